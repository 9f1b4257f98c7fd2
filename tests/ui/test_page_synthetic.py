"""The Empirical page offers the synthetic-data generators beside the masking methods: their widgets come from
the generators' and measures' records, the map is kept with its common curve, Apply adds a synthesis step."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from ui_helpers import app_test, goto, open_reproduce_panels, shown

from dashboard.release_plan import PLAN, RELEASED
from dashboard.state import ANALYSES
from rumap.io.data import BUNDLED_DATA, read_table
from rumap.maps.common import COMMON_RISK_LABEL, COMMON_UTILITY_LABEL
from rumap.maps.methods import METHODS
from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES
from rumap.specs import EmpiricalSpec
from rumap.synthesis import GENERATORS


def _errors(at) -> list[str]:
    return [shown(e.value) for e in at.error]


def _draw_tiny_map(at, method: str) -> list[str]:
    """Run the chosen generator's map on 2 values with 2 replicates; the code of its reproduce panels."""
    at.number_input(key=f"em_syn_{method}_num").set_value(2)
    at.number_input(key="em_syn_replicates").set_value(2).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    assert len(at.get("plotly_chart")) == 1
    return [c.value for c in open_reproduce_panels(at).code]


def test_the_empirical_page_maps_a_generator_keeps_it_and_applies_it():
    at = goto(app_test(), "empirical")
    assert at.selectbox(key="em_method").options == [*METHODS, *GENERATORS]
    at.selectbox(key="em_method").set_value("copula").run()
    assert not at.exception and not _errors(at), _errors(at)
    assert at.selectbox(key="em_syn_risk").options == list(SYNTHETIC_RISKS)
    assert at.selectbox(key="em_syn_utility").options == list(SYNTHETIC_UTILITIES)
    assert at.number_input(key="em_syn_copula_start").value == GENERATORS["copula"].grid[0]
    at.selectbox(key="em_syn_risk").set_value("repu").run()  # a risk that needs keys offers them
    assert at.multiselect(key="em_syn_keys").value
    at.selectbox(key="em_syn_risk").set_value("dcr_share")
    codes = _draw_tiny_map(at, "copula")
    assert any("simulate" in c and "--method copula --shrinkage 0.0,1.0" in c for c in codes), codes
    at.text_input(key="empirical_name").set_value("copula map").run()
    at.button(key="empirical_keep").click().run()
    (kept,) = at.session_state[ANALYSES]
    assert kept.maps[0].values.tolist() == [0.0, 1.0] and kept.common is not None
    at.selectbox(key="empirical_apply_value").set_value(1.0).run()
    at.button(key="empirical_apply").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (step,) = at.session_state[PLAN]
    assert step.method == "synthesize" and step.parameters["shrinkage"] == 1.0
    assert step.columns == ("income",) and step.origin["map"].startswith("copula synthesis")

    # a microaggregation map of the same data, kept beside it: Compare overlays both on the common measures
    micro = EmpiricalSpec(simulation={"method": "microaggregation", "values": [2, 5], "targets": ["max"],
                                      "knowledge": ["index"], "replicates": 2, "seed": 1},
                          data=kept.spec.data).run(_income())
    at.session_state[ANALYSES] = [kept, micro.renamed("micro map")]
    goto(at, "compare")
    at.multiselect(key="compare_maps").set_value(["copula map", "micro map"]).run()
    assert not _errors(at), _errors(at)
    assert at.selectbox(key="compare_measure").value == f"R: {COMMON_RISK_LABEL} | U: {COMMON_UTILITY_LABEL}"
    (figure,) = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    drawn = {t["name"] for t in figure["data"] if t.get("mode") == "lines"}
    assert any(n.startswith("copula map") for n in drawn) and any(n.startswith("micro map") for n in drawn), drawn

    goto(at, "release")
    assert not _errors(at), _errors(at)
    checks = at.dataframe[-1].value
    synthesised = checks[checks["method"] == "synthesize"]
    assert synthesised["measure"].tolist() == ["1 − nndr (R)", "1 − pmse / c(1 − c) (U)", "linkage (R)", "common (U)"]
    means = synthesised.set_index("measure")["map mean"]  # the map's own seed and replicates: its own means
    assert means["linkage (R)"] == pytest.approx(kept.common.risk[1]) and synthesised["replicates"].eq(2).all()
    done = at.session_state[RELEASED][1]
    released = pd.read_csv(io.BytesIO(done.content))
    original = _income_frame()
    assert list(released.columns) == ["income"] and len(released) == len(original)
    assert not released["income"].equals(original["income"])


def _income_frame() -> pd.DataFrame:
    return read_table(BUNDLED_DATA["income (synthetic, Table 1)"])


def _income() -> np.ndarray:
    return _income_frame()[["income"]].to_numpy(float)


def test_the_empirical_page_offers_mst_from_its_record_with_its_privacy_in_words():
    pytest.importorskip("opendp")
    at = goto(app_test(), "empirical")
    at.selectbox(key="em_method").set_value("mst").run()
    assert not at.exception and not _errors(at), _errors(at)
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("rho = ") and "epsilon = 10 at delta" in c and "factor of 22,000" in c
               for c in captions), captions  # the Tables page's sentence, at the grid's largest epsilon
    codes = _draw_tiny_map(at, "mst")
    assert any("synthetic_map(data, 'mst', [0.1, 10.0]" in c for c in codes), codes
    assert not any("--method mst" in c for c in codes), codes  # simulate --method mst draws MST's own map
    at.text_input(key="empirical_name").set_value("mst map").run()
    at.button(key="empirical_keep").click().run()
    (kept,) = at.session_state[ANALYSES]
    assert kept.maps[0].parameter == "epsilon" and kept.maps[0].values.tolist() == [0.1, 10.0]
    at.selectbox(key="empirical_apply_value").set_value(10.0).run()
    at.button(key="empirical_apply").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (step,) = at.session_state[PLAN]
    assert step.parameters["generator"] == "mst" and step.parameters["epsilon"] == 10.0
