"""The Empirical page's masking widgets are drawn from the method registry: a registered method is offered."""

from __future__ import annotations

from method_helpers import toy_registered
from ui_helpers import app_test, goto, shown


def test_the_empirical_page_offers_a_registered_method_with_its_grid_and_options():
    with toy_registered():
        at = goto(app_test(), "empirical")
        assert "toy" in at.selectbox(key="em_method").options
        at.selectbox(key="em_method").set_value("toy").run()
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        numbers = {n.key: n for n in at.number_input}
        assert [numbers[k].value for k in ("em_toy_start", "em_toy_stop", "em_toy_num")] == [1000.0, 5000.0, 3]
        assert numbers["em_toy_start"].label == "smallest base"
        assert numbers["em_toy_start"].help == "rounding base b, in data units"  # its bounds' entry and its units
        at.checkbox(key="em_toy_down").check().run()
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        assert not any(n.key == "em_k_start" or n.key == "em_start" for n in at.number_input)
