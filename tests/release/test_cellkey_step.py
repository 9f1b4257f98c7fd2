"""The cell key method as a step of a release plan."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.release.apply import apply_plan
from rumap.release.plan import ReleasePlan, Step
from rumap.tables.cellkey import cellkey_table
from rumap.tables.ptable import create_ptable

DATA = Path(__file__).resolve().parent.parent / "data"


def test_cell_key_step_releases_the_published_table():
    micro = pd.read_csv(DATA / "ckm" / "micro.csv")
    params = {"max_perturbation": 3, "variance": 1.08, "js": 1, "record_key": "rk"}
    result = apply_plan(micro, ReleasePlan((Step("cell_key", params, keys=("region", "sex")),)))
    direct = cellkey_table(micro, ["region", "sex"], create_ptable(3, 1.08, 1), record_key="rk")
    pd.testing.assert_frame_equal(result.data.reset_index(drop=True), direct.to_frame())
    assert result.outcomes[0].summary["cells"] == direct.table.size
    with pytest.raises(InputError, match="parameter variance must be a number >= 0"):
        apply_plan(micro, ReleasePlan((Step("cell_key", {**params, "variance": -1}, keys=("sex",)),)))
