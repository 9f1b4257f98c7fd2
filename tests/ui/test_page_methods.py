"""The Empirical page's masking widgets are drawn from the method registry: a registered method is offered, and its
release step reaches the Release page."""

from __future__ import annotations

import json

import numpy as np
from method_helpers import round_to_base, toy_registered
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
        at.button(key="em_run").click().run()  # its map is simulated in a worker process, which knows it too
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        (figure,) = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
        lines = [t for t in figure["data"] if t.get("mode") == "lines"]
        assert lines and all(t["name"].startswith("toy / ") for t in lines)


def test_a_registered_methods_step_is_released_on_the_release_page():
    from dashboard import release_plan
    from rumap.io.data import BUNDLED_DATA, numeric_columns, read_table
    from rumap.release.from_map import step_from_spec
    from rumap.specs import DataSource, EmpiricalSpec

    income = numeric_columns(read_table(BUNDLED_DATA["income (synthetic, Table 1)"]), ["income"])
    with toy_registered():
        spec = EmpiricalSpec(simulation={"method": "toy", "values": [1000.0, 3000.0], "method_options": {"down": True},
                                         "targets": ["max"], "knowledge": ["index"]},
                             data=DataSource.of("inline", "income", ["income"], income))
        at = goto(app_test(timeout=300), "release")
        at.session_state[release_plan.PLAN] = [step_from_spec(spec, 3000.0)]  # what "Apply" under its map adds
        at.run()
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        lines = [shown(m.value) for m in at.markdown if m.value.startswith("Step ")]
        assert lines == ["Step 1: toy (toy_base = 3000, down = True) on income"]
        done = at.session_state[release_plan.RELEASED][1]
        np.testing.assert_array_equal(done.result.data["income"], round_to_base(income[:, 0], 3000.0, True))
        checks = release_plan.checks_frame(done.report)
        assert not checks.empty and (checks["replicates"] == 1).all()  # its map beside it, deterministic
        assert at.get("download_button")


def test_a_registered_protection_of_keys_is_released_on_the_release_page():
    from key_method_helpers import NAME, coarsen_registered, coarsened

    from dashboard import release_plan
    from rumap.io.data import BUNDLED_DATA, read_table
    from rumap.release.plan import Step

    income = read_table(BUNDLED_DATA["income (synthetic, Table 1)"])
    with coarsen_registered():
        at = goto(app_test(timeout=300), "release")
        at.session_state[release_plan.PLAN] = [Step(NAME, {"width": 5000, "variable": "income"}, keys=["income"])]
        at.run()
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        lines = [shown(m.value) for m in at.markdown if m.value.startswith("Step ")]
        assert lines == ["Step 1: coarsen (width = 5000, variable = income) on income"]
        done = at.session_state[release_plan.RELEASED][1]
        np.testing.assert_array_equal(done.result.data["income"], coarsened(income["income"], 5000.0))
        assert at.get("download_button")
