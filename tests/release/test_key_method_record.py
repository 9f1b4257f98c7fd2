"""A protection of categorical keys is one record and one registry line: every layer finds it there.

The toy of :mod:`key_method_helpers` (coarsening an integer key) is added to
:data:`rumap.release.registry._STEPS` and then is a step of a plan (in memory,
chunk by chunk, in the report), a map of keys (``CATEGORICAL_METHODS``), and a
step made at a point of its map, with nothing else told about it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from key_method_helpers import COARSEN_STEP, NAME, coarsen_registered, coarsened

from rumap.budget import DEFAULT_BUDGET
from rumap.errors import InputError
from rumap.maps.methods import METHODS, MaskingMethod, register_method
from rumap.release import report, stream
from rumap.release.apply import apply_plan
from rumap.release.from_map import step_from_key_map
from rumap.release.plan import ReleasePlan, Step
from rumap.release.registry import CATEGORICAL_METHODS, STEP_METHODS


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"id": np.arange(200), "age": rng.integers(18, 90, 200), "sex": rng.choice(["f", "m"], 200)})


def test_the_registry_line_puts_the_toy_in_both_views():
    assert NAME not in STEP_METHODS and NAME not in CATEGORICAL_METHODS
    with coarsen_registered():
        assert STEP_METHODS[NAME] is COARSEN_STEP
        assert CATEGORICAL_METHODS[NAME] is COARSEN_STEP.key_map
        assert NAME in stream.STREAMED and NAME not in report.PREDICTORS
    assert NAME not in STEP_METHODS and NAME not in CATEGORICAL_METHODS and NAME not in stream.STREAMED


def test_its_step_applies_in_memory_and_chunk_by_chunk_to_the_same_bytes(frame, tmp_path):
    path, out = tmp_path / "persons.parquet", tmp_path / "released.parquet"
    frame.to_parquet(path, index=False)
    with coarsen_registered():  # a step names a method of the registry when it is made
        plan = ReleasePlan((Step(NAME, {"width": 10, "variable": "age"}, keys=["age", "sex"]),))
        result = apply_plan(frame, plan)
        done = stream.release_in_chunks(path, plan, out, chunk_size=30)
        with pytest.raises(InputError, match="width must be a number >= 1"):
            apply_plan(frame, ReleasePlan((Step(NAME, {"width": 0, "variable": "age"}, keys=["age", "sex"]),)))
    np.testing.assert_array_equal(result.data["age"], coarsened(frame["age"], 10.0))
    assert result.outcomes[0].summary == {"changed": int((result.data["age"] != frame["age"]).sum())}
    pd.testing.assert_frame_equal(pd.read_parquet(out), result.data)
    assert (done.chunks, done.summaries) == (7, (dict(result.outcomes[0].summary),))


def test_the_report_reads_its_record(frame):
    with coarsen_registered():
        plan = ReleasePlan((Step(NAME, {"width": 5, "variable": "age"}, keys=["age", "sex"]),))
        released = report.release_report(frame, apply_plan(frame, plan), replicates=None)
    (step,) = released.steps
    assert step.step.method == NAME and step.checks == ()
    assert released.categorical["before"]["global_risk"] >= released.categorical["after"]["global_risk"]


def test_a_point_of_its_map_is_its_step(frame):
    with coarsen_registered():
        record = CATEGORICAL_METHODS[NAME]
        curve = record.draw(frame, ["age", "sex"], record.values(), weight=None, variable="age", replicates=None,
                            seed=0, source="persons", budget=DEFAULT_BUDGET)
        step = step_from_key_map(curve, ["age", "sex"], 14.0, variable="age")
        assert step == Step(NAME, {"width": 14.0, "variable": "age"}, keys=["age", "sex"])
    np.testing.assert_allclose(curve.values, np.linspace(1.0, 20.0, 4))
    assert curve.utility[0] == 1.0 and curve.risk[-1] <= curve.risk[0]


def test_a_masking_method_may_not_take_its_name():
    with coarsen_registered(), pytest.raises(InputError, match="exists already"):
        register_method(NAME, MaskingMethod("rank swapping again", METHODS["rankswap"].grids,
                                            METHODS["rankswap"].make_masker))
    assert NAME not in METHODS


def test_the_command_line_reads_its_flags_from_its_record(frame, tmp_path):
    from cli_helpers import run_cli

    data, out = tmp_path / "persons.csv", tmp_path / "released.csv"
    frame.to_csv(data, index=False)
    assert "coarsen" not in run_cli("release", "--help").stdout
    with coarsen_registered():
        helps = run_cli("release", "--help").stdout + run_cli("simulate", "--help").stdout
        _, released = run_cli("release", "--data", data, "--method", NAME, "--keys", "age,sex", "--width", "10",
                           "--coarsen-variable", "age", "--out", out, "--no-prediction", "--json", check_json=True)
        _, drawn = run_cli("simulate", "--data", data, "--method", NAME, "--keys", "age,sex", "--width", "1,10",
                        "--band-variable", "age", "--json", check_json=True)
        _, protected = run_cli("protect", NAME, "--data", data, "--keys", "age,sex", "--width", "10",
                               "--coarsen-variable", "age", "--out", tmp_path / "protected.csv", "--json",
                               check_json=True)
        listed = run_cli("protect", "--help").stdout
        refused = run_cli("release", "--data", data, "--method", "pram", "--keys", "age,sex", "--theta", "0.5",
                          "--coarsen-variable", "age", "--out", tmp_path / "other.csv")
        expected = apply_plan(frame, ReleasePlan((Step(NAME, {"width": 10, "variable": "age"}, keys=["age", "sex"]),)))
    for flag in ("--width", "--coarsen-variable", "coarsen: the integer key coarsened"):
        assert flag in helps
    np.testing.assert_array_equal(pd.read_csv(out)["age"], expected.data["age"])
    assert released["steps"][0]["parameters"] == {"width": 10.0, "variable": "age"}
    assert drawn["config"]["values"] == [1.0, 10.0] and drawn["curves"][0]["method"] == "coarsening"
    assert refused.returncode == 2 and "--coarsen-variable applies to --method coarsen, not pram" in refused.stderr
    # protect coarsen: the same step, its file the release's, with the risk before and after
    assert NAME in listed and (tmp_path / "protected.csv").read_bytes() == out.read_bytes()
    assert protected["changed"] == int((expected.data["age"] != frame["age"]).sum())
    assert protected["risk_after"]["global_risk"] <= protected["risk_before"]["global_risk"]
