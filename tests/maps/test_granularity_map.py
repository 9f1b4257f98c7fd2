"""The R-U map of eliminating granularity over the critical level, from Python, the command line and a plan."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_cli

from rumap.maps.granularity import granularity_map
from rumap.release.from_map import step_from_key_map
from rumap.release.registry import CATEGORICAL_METHODS
from rumap.tables.granularity import granularity_analysis


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(8)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], 80), "region": rng.choice(list("abcdef"), 80),
                         "age": rng.choice(["20-39", "40-59", "60-79", "80-99"], 80, p=[.4, .3, .2, .1])})


def test_risk_and_utility_over_the_level(frame):
    keys = ["sex", "region", "age"]
    m = granularity_map(frame, keys, [20.0, 100.0], moves="suppress")
    assert m.parameter == "level" and m.method == "granularity elimination"
    rows = m.config["levels"]
    assert [r["level"] for r in rows] == [20.0, 100.0]
    # R: records in unit cells of a 2- or 3-key table, measured independently on a release at the level
    original = granularity_analysis(frame, keys).records_in_unit_cells.mean()
    assert all(0.0 <= r["unit_cells"] <= original for r in rows)
    assert list(m.risk) == [r["unit_cells"] for r in rows] and list(m.utility) == [r["kept"] for r in rows]
    assert rows[0]["kept"] <= rows[-1]["kept"] and rows[0]["suppressed"] >= rows[-1]["suppressed"]
    assert all(set(r["categories"]) == set(keys) and 0 < r["global_risk"] <= 1 for r in rows)
    other = granularity_map(frame, keys, [50.0], risk="global_risk", utility="categories", moves="merge")
    assert other.risk[0] == other.config["levels"][0]["global_risk"]
    assert other.utility[0] == pytest.approx(np.mean(list(other.config["levels"][0]["categories"].values())))
    # its point is a release step with the map's other parameters
    step = step_from_key_map(other, keys, 50.0)
    assert step.method == "granularity" and step.parameters["level"] == 50.0 and step.parameters["moves"] == "merge"


def test_simulate_method_granularity(frame, tmp_path):
    path = tmp_path / "keys.csv"
    frame.to_csv(path, index=False)
    assert CATEGORICAL_METHODS["granularity"].values() == [20.0, 40.0, 60.0, 80.0, 100.0]
    _, out = run_cli("simulate", "--data", path, "--method", "granularity", "--keys", "sex,region,age", "--level",
                     "40:100:2", "--utility", "categories", "--json", check_json=True)
    curve = out["curves"][0]
    assert out["config"]["parameter"] == "level" and len(curve["values"]) == 2
    proc = run_cli("simulate", "--data", path, "--method", "granularity", "--keys", "sex,region,age", "--level",
                   "0:100:3")
    assert proc.returncode == 2 and "--level" in proc.stderr
