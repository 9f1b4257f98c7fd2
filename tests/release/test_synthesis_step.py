"""The synthesis step of a release plan (rumap.release.synthesis)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.release.apply import apply_plan
from rumap.release.plan import ReleasePlan, Step
from rumap.release.synthesis import SYNTHESIS_STEP
from rumap.synthesis import GENERATORS


def test_the_steps_parameters_and_flags_are_the_generators_records():
    parameters = [record.parameter for record in GENERATORS.values()]
    assert list(SYNTHESIS_STEP.parameters) == ["generator", *parameters]
    assert [flag.flag for flag in SYNTHESIS_STEP.flags] == ["--generator", *(f"--{p}" for p in parameters)]


def test_a_plan_synthesises_every_column():
    rng = np.random.default_rng(1)
    data = pd.DataFrame({"s": rng.choice(["a", "b"], 30), "x": rng.normal(size=30), "k": rng.integers(0, 3, 30)})
    plan = ReleasePlan((Step("synthesize", {"generator": "copula", "shrinkage": 0.5}, columns=["x", "s", "k"],
                             seed=4),))
    result = apply_plan(data, plan)
    assert list(result.data.columns) == ["s", "x", "k"] and len(result.data) == 30
    assert result.outcomes[0].summary["synthesised"] == ["x", "s", "k"]
    assert not result.data["x"].isin(data["x"]).all()  # new values, not the original records
    assert apply_plan(data, plan).data.equals(result.data)
    first = apply_plan(data, ReleasePlan((Step("synthesize", {}, columns=["x"]),)))  # x first, the others after
    assert first.outcomes[0].summary["synthesised"] == ["x", "s", "k"]
    every = apply_plan(data, ReleasePlan((Step.from_dict({"method": "synthesize", "seed": 4,
                                                          "parameters": {"generator": "copula", "shrinkage": 0.5}}),)))
    assert every.outcomes[0].summary["synthesised"] == ["s", "x", "k"] and list(every.data.columns) == ["s", "x", "k"]
    assert "columns" not in every.outcomes[0].step.to_dict()


def test_the_report_sets_the_release_beside_its_map():
    from rumap.release.report import release_report

    data = pd.DataFrame(np.random.default_rng(2).normal(size=(60, 2)), columns=["a", "b"])
    result = apply_plan(data, ReleasePlan((Step("synthesize", {"generator": "cart", "minbucket": 10}, seed=1),)))
    checks = release_report(data, result, replicates=3).steps[0].checks
    assert [c.measure for c in checks] == ["1 − nndr (R)", "1 − pmse / c(1 − c) (U)", "linkage (R)", "common (U)"]
    assert all(c.replicates == 3 and c.draw_band[0] <= c.mean <= c.draw_band[1] for c in checks)


@pytest.mark.parametrize(("parameters", "fragment"), [
    ({"generator": "nosuch"}, "generator must be one of"),
    ({"generator": "cart", "shrinkage": 0.5}, "shrinkage is a parameter of generator copula"),
    ({"minbucket": 0}, "minbucket"),
    ({"generator": "cart", "epsilon": 1.0}, "epsilon is a parameter of generator mst"),
    ({"generator": "mst", "epsilon": 0.0}, "epsilon must be"),
])
def test_bad_parameters_are_refused(parameters, fragment):
    with pytest.raises(InputError, match=fragment):
        Step("synthesize", parameters, columns=["x"])


def test_release_synthesizes_every_column_without_columns(tmp_path):
    from cli_helpers import run_cli

    data = pd.DataFrame({"x": np.arange(20.0), "s": list("ab") * 10})
    data.to_csv(tmp_path / "d.csv", index=False)
    proc = run_cli("release", "--data", tmp_path / "d.csv", "--method", "synthesize", "--minbucket", "5",
                   "--out", tmp_path / "o.csv", "--no-prediction", "--json")
    assert proc.returncode == 0, proc.stderr
    released = pd.read_csv(tmp_path / "o.csv")
    assert list(released.columns) == ["x", "s"] and len(released) == 20


def test_release_synthesizes_with_mst_at_its_epsilon(tmp_path):
    from cli_helpers import run_cli

    pytest.importorskip("opendp")
    pd.DataFrame({"k": [1, 2, 3, 1] * 5, "s": list("ab") * 10}).to_csv(tmp_path / "d.csv", index=False)
    proc = run_cli("release", "--data", tmp_path / "d.csv", "--method", "synthesize", "--generator", "mst",
                   "--epsilon", "2", "--seed", "3", "--out", tmp_path / "o.csv", "--no-prediction", "--json")
    assert proc.returncode == 0, proc.stderr
    released = pd.read_csv(tmp_path / "o.csv")
    assert list(released.columns) == ["k", "s"] and len(released) == 20 and set(released["k"]) <= {1, 2, 3}
