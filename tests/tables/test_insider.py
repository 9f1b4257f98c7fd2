"""The insider who knows its own contribution (rumap/tables/insider.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.tables.insider import insider_bounds, insider_view
from rumap.tables.published import paper_table1


def test_insider_view_paper_example():
    """Section 4.4: 995 <= z <= 1004 and A contributes 400: A knows B is in [595, 604]; an outsider (0, 1004]."""
    view = insider_view(995, 1004, 400)
    assert (view.insider_min, view.insider_max) == (595, 604)
    assert view.insider_values == 10 and view.insider_risk == pytest.approx(1 / math.log2(10))
    assert view.outsider_max == 1004 and view.outsider_risk < view.insider_risk
    assert view.insider_relative_width < 0.02  # "within 1%" of B's turnover, either side
    assert view.outsider_relative_width == pytest.approx(1.67, abs=0.01)  # "almost 170%"
    with pytest.raises(InputError, match="exceeds"):
        insider_view(995, 1004, 2000)


def test_insider_tightens_the_table():
    result = insider_bounds(paper_table1(), "5", "5", 300)
    assert result.insider.cell("5", "5") == {"min": 300, "max": 406, "values": 107,
                                            "risk": pytest.approx(1 / math.log2(107))}
    assert result.insider.cell("6", "5")["max"] == 106
    assert result.insider.cell("6", "7")["min"] == 1145
    assert (result.view.insider_min, result.view.insider_max) == (0, 106)
    assert np.all(result.insider.risk >= result.outsider.risk)
    frame = result.to_frame()
    assert {"insider_min", "insider_max", "insider_values", "insider_risk"} <= set(frame.columns)
    with pytest.raises(InputError, match="no unknown cell"):
        insider_bounds(paper_table1(), "4", "5", 10)
