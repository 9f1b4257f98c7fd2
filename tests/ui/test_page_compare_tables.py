"""Compare overlays the maps kept on the Tables page (suppression, the cell key method, DP noise) on the measures
every protection of a count table shares, asks for a share as their bound and says in words what is compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import plotly_array, shown

from dashboard.decisions import SHARED_MEASURES
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.state import ANALYSES
from rumap.maps.cellkey_map import ckm_map
from rumap.maps.dp_tables import dp_table_map
from rumap.maps.recommend import recommend
from rumap.maps.table_common import TABLE_COMMON_RISK_LABEL, TABLE_COMMON_UTILITY_LABEL, table_common_curve
from rumap.maps.tables import rule_map
from rumap.present.plotting import AT_FLOOR, ZERO_RISK
from rumap.tables.microdata import example_microdata, table_from_microdata
from rumap.tables.ndtable import build_table

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def kept() -> list:
    frame = example_microdata()
    maps = {"suppression": rule_map(table_from_microdata(frame, "region", "size"), "threshold", [1.0, 2.0, 4.0]),
            "cell key": ckm_map(frame, ["region", "size"], [1.0, 2.0, 4.0], max_perturbation=3, replicates=3),
            "dp noise": dp_table_map(build_table(frame, ["region", "size"]), [0.1, 1.0, 10.0], replicates=3)}
    return [page_analysis([m], PageMapSpec(page="tables", label=name), common=table_common_curve(m))
            for name, m in maps.items()]


def test_compare_overlays_the_three_protections_of_a_table_on_their_shared_measures(kept):
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[ANALYSES] = list(kept)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    assert at.selectbox(key="compare_measure").value == \
        f"R: {TABLE_COMMON_RISK_LABEL} | U: {TABLE_COMMON_UTILITY_LABEL}"  # their own measures differ
    (fig,) = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert {t["name"] for t in fig["data"] if t.get("mode") == "lines"} == {"suppression", "cell key", "dp noise"}
    assert not [i for i in at.info if "Not drawn" in shown(i.value)]
    # DP noise at epsilon 0.1 recovers no small count (R = 0): on the log risk axis, at its floor, said so
    (zero,) = [t for t in fig["data"] if (t.get("meta") or {}).get(AT_FLOOR)]
    assert plotly_array(zero["x"]) == [pytest.approx(kept[2].common.utility[0])] and kept[2].common.risk[0] == 0
    assert plotly_array(zero["y"]) == [pytest.approx(10 ** fig["layout"]["yaxis"]["range"][0])]
    assert ZERO_RISK in zero["hovertemplate"] and zero["text"][0].endswith("=0.1, R=0")
    assert any(shown(c.value).startswith("A log axis has no 0: 1 point of risk 0 is drawn") for c in at.caption)
    bound = at.number_input(key="compare_max_share")
    assert bound.value == pytest.approx(SHARED_MEASURES[TABLE_COMMON_RISK_LABEL].first_bound)
    assert bound.label == "Tolerable share of small counts recovered exactly"
    assert any("share of the table's small counts" in shown(c.value) for c in at.caption)  # what is compared
    rows = {row["map"]: row for row in at.dataframe[-1].value.to_dict("records")}
    for a in kept:  # each map's value under the bound, from the core's rule on its shared curve
        chosen = recommend([a.common], bound.value, "upper")
        assert rows[a.name]["reaches the bound"] == chosen.feasible
        if chosen.feasible:
            assert rows[a.name]["reaches the bound at"] == pytest.approx(chosen.value)
    at.switch_page("pages/pareto.py").run()  # Pareto: the same curves, judged by the bound set on Compare
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    assert any("R_max = 0.2 (R = share of small counts" in shown(c.value) for c in at.caption)
