"""The Tables page's cell key method and DP noise tabs keep their maps over V and epsilon, each with its curve on the
measures every protection of a count table shares (the tabs alone, with fewer replicates, to stay fast)."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

from dashboard.state import ANALYSES
from rumap.maps.table_common import TABLE_COMMON_KNOWLEDGE, TABLE_COMMON_RISK_LABEL


def _tabs() -> None:
    from dashboard import table_ckm, table_dp
    from dashboard.widgets import errors_shown

    table_ckm.MAP_REPLICATES = table_dp.MAP_REPLICATES = 2
    for section in (table_ckm.ckm_section, table_dp.dp_section):
        with errors_shown():
            section()


def test_the_cell_key_and_dp_maps_are_kept_with_their_shared_curves():
    at = AppTest.from_function(_tabs, default_timeout=120)
    at.run()
    at.toggle(key="ckm_run").set_value(True)
    at.toggle(key="dp_run").set_value(True).run()
    at.toggle(key="ckm_map").set_value(True)
    at.toggle(key="dp_map").set_value(True).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    at.button(key="tables_ckm_keep").click().run()
    at.button(key="tables_dp_keep").click().run()
    ckm, dp = at.session_state[ANALYSES]
    assert ckm.name == "cell key method over V, persons.csv: region x marital"  # the DP tab's table
    assert dp.name == "DP noise over epsilon, persons.csv: region x marital"
    for a, parameter in ((ckm, "variance"), (dp, "epsilon")):
        (own,) = a.maps
        assert own.parameter == a.common.parameter == parameter
        assert a.common.risk_label == TABLE_COMMON_RISK_LABEL and a.common.knowledge == TABLE_COMMON_KNOWLEDGE
        assert a.common.risk.tolist() == own.config["common_risk"]
        assert np.all((a.common.utility > 0) & (a.common.utility <= 1))
    assert dp.common.risk.tolist() == dp.maps[0].risk.tolist()  # DP's own R is the shared one
    assert "m = dp_table_map(table, [0.1, 0.3, 1.0, 3.0, 10.0]" in dp.spec.python  # the code that draws it
    assert dp.spec.command.startswith("python -m rumap simulate --method dp-table")
    assert ckm.spec.command.startswith("python -m rumap simulate --method ckm")
