"""The Empirical page offers the synthetic-data generators beside the masking methods: their widgets come from
the generators' and measures' records, the map is kept with its common curve, Apply adds a synthesis step."""

from __future__ import annotations

from ui_helpers import app_test, goto, open_reproduce_panels, shown

from dashboard.release_plan import PLAN
from dashboard.state import ANALYSES
from rumap.maps.methods import METHODS
from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES
from rumap.synthesis import GENERATORS


def _errors(at) -> list[str]:
    return [shown(e.value) for e in at.error]


def test_the_empirical_page_maps_a_generator_keeps_it_and_applies_it():
    at = goto(app_test(), "empirical")
    assert at.selectbox(key="em_method").options == [*METHODS, *GENERATORS]
    at.selectbox(key="em_method").set_value("cart").run()
    assert not at.exception and not _errors(at), _errors(at)
    assert at.selectbox(key="em_syn_risk").options == list(SYNTHETIC_RISKS)
    assert at.selectbox(key="em_syn_utility").options == list(SYNTHETIC_UTILITIES)
    assert at.number_input(key="em_syn_cart_start").value == GENERATORS["cart"].grid[0]
    at.selectbox(key="em_syn_risk").set_value("repu").run()  # a risk that needs keys offers them
    assert at.multiselect(key="em_syn_keys").value
    at.selectbox(key="em_syn_risk").set_value("dcr_share")
    at.number_input(key="em_syn_cart_start").set_value(10)
    at.number_input(key="em_syn_cart_stop").set_value(40)
    at.number_input(key="em_syn_cart_num").set_value(2)
    at.number_input(key="em_syn_replicates").set_value(2).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    assert len(at.get("plotly_chart")) == 1
    codes = [c.value for c in open_reproduce_panels(at).code]
    assert any("simulate" in c and "--method cart --minbucket 10,40" in c for c in codes), codes
    at.text_input(key="empirical_name").set_value("cart map").run()
    at.button(key="empirical_keep").click().run()
    (kept,) = at.session_state[ANALYSES]
    assert kept.maps[0].values.tolist() == [10.0, 40.0] and kept.common is not None
    at.selectbox(key="empirical_apply_value").set_value(40.0).run()
    at.button(key="empirical_apply").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (step,) = at.session_state[PLAN]
    assert step.method == "synthesize" and step.parameters["minbucket"] == 40
