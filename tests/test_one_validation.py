"""One validation path (issue 42, item 5).

A release step's bad value gets the message a public function of the core gives the same value (both checked by
the same constraint), under the plan's key; ``simulate`` builds the dashboard's EmpiricalSpec and runs it.
"""

from __future__ import annotations

import json

import pytest

from rumap.errors import InputError
from rumap.masking.microaggregation import microaggregate
from rumap.masking.pram import pram_matrix
from rumap.masking.swapping import swap_window
from rumap.release.plan import read_plan
from tests.cli_helpers import run_cli

DATA = [[1.0], [2.0], [4.0], [7.0]]

#: A step's method, its parameters, what it works on, and the public function's call with the same bad value.
CASES = [
    ("microaggregation", {"k": True}, "columns", lambda: microaggregate(DATA, k=True)),
    ("microaggregation", {"k": 1.5}, "columns", lambda: microaggregate(DATA, k=1.5)),
    ("microaggregation", {"k": 2, "algorithm": "fast"}, "columns", lambda: microaggregate(DATA, 2, "fast")),
    ("pram", {"theta": 2}, "keys", lambda: pram_matrix([1.0, 2.0], theta=2)),
    ("pram", {"theta": "0.5"}, "keys", lambda: pram_matrix([1.0, 2.0], theta="0.5")),
    ("rankswap", {"swap_percent": -1}, "columns", lambda: swap_window(100, -1)),
]


@pytest.mark.parametrize(("method", "parameters", "target", "public"), CASES,
                         ids=[f"{c[0]}-{json.dumps(c[1])}" for c in CASES])
def test_a_steps_bad_value_has_the_message_of_a_public_functions(method, parameters, target, public):
    with pytest.raises(InputError) as expected:
        public()
    plan = {"steps": [{"method": method, "parameters": parameters, target: ["a"]}]}
    with pytest.raises(InputError) as caught:
        read_plan(json.dumps(plan))
    assert str(caught.value) == f"step 1: steps[0].parameters.{expected.value}"


def test_simulate_runs_the_spec_the_dashboard_builds(tmp_path, monkeypatch):
    from rumap.specs import EmpiricalSpec

    ran = []

    def run(self, *args, **kwargs):  # the spec is what is checked here, not the engine (tested elsewhere)
        ran.append(self)
        raise InputError("ran")

    monkeypatch.setattr(EmpiricalSpec, "run", run)
    path = tmp_path / "x.csv"
    path.write_text("a\n" + "\n".join(str(v) for v in (3, 9, 4, 12, 7, 1)) + "\n")
    proc = run_cli("simulate", "--data", path, "--column", "a", "--lambda2", "1:4:2", "--replicates", "3",
                   "--target", "max", "--max-risk", "0.5", "--json")
    assert (proc.returncode, proc.stderr.strip()) == (2, "error: ran")
    (spec,) = ran
    assert (spec.data.kind, spec.data.name, spec.data.columns, spec.data.n) == ("server", str(path), ("a",), 6)
    assert spec.max_risk == 0.5
    assert (spec.simulation.values, spec.simulation.targets, spec.simulation.replicates) == ((1.0, 4.0), ("max",), 3)
