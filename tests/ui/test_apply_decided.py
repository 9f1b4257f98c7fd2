"""What "Apply" puts in the plan is the map on screen, and the Release page refuses a plan of other data unasked.

The user's gestures of issue 40: draw a map, change its bound and draw it again, then Apply without touching
the selector; recode the keys, then Apply under the map of local suppression; make a plan on one file and
open the Release page on another. Each runs the dashboard's own functions headless (AppTest), on tiny data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

from dashboard import release_plan
from rumap.fingerprint import frame_digest
from rumap.release.plan import Step


def _noise_map_under_its_bound():
    import numpy as np
    import streamlit as st

    from dashboard.release_plan import apply_controls
    from rumap.specs import DataSource, EmpiricalSpec

    x = np.random.default_rng(1).lognormal(6.0, 0.7, 60)[:, None]
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.05, 0.1, 0.2, 0.4, 0.8, 1.6], "replicates": 8,
                                     "targets": ["max", "p90"], "knowledge": ["index"], "seed": 1},
                         data=DataSource.of("inline", "wages", ["wage"], x), max_risk=st.session_state["bound"])
    apply_controls(spec.run(x), "em")


def _labels(at: AppTest) -> dict[float, str]:
    box = at.selectbox(key="em_apply_value")
    return {float(o.split()[0]): o for o in box.options}


def test_apply_releases_the_recommendation_of_the_map_drawn_last_not_the_selectors_leftover():
    at = AppTest.from_function(_noise_map_under_its_bound, default_timeout=60)
    at.session_state["bound"] = 30.0
    at.run()
    assert at.selectbox(key="em_apply_value").value == 0.2
    at.session_state["bound"] = 8.0  # the bound changed and the map was drawn again: λ² = 0.8 is recommended now
    at.run()
    assert at.selectbox(key="em_apply_value").value == 0.8
    assert [v for v, text in _labels(at).items() if text.endswith("(recommended)")] == [0.8]
    at.button(key="em_apply").click().run()  # the selector untouched
    at.selectbox(key="em_apply_value").set_value(0.4).run()  # then a point the user picks on this map
    at.button(key="em_apply").click().run()
    recommended, picked = at.session_state[release_plan.PLAN]
    assert (recommended.parameters["lambda2"], picked.parameters["lambda2"]) == (0.8, 0.4)
    assert {k: recommended.origin[k] for k in ("choice", "recommended", "max_risk", "binding", "targets")} == {
        "choice": "recommended", "recommended": 0.8, "max_risk": 8.0,
        "binding": {"target": "max", "knowledge": "index"}, "targets": ["max", "p90"]}
    assert (picked.origin["choice"], picked.origin["recommended"]) == ("picked", 0.8)
    at.session_state["bound"] = 4.0  # a new map: the pick made on the last one is not carried over
    at.run()
    assert at.selectbox(key="em_apply_value").value == 1.6
    at.session_state["bound"] = 0.5  # no value meets it: nothing is applied until the user picks one
    at.run()
    assert at.selectbox(key="em_apply_value").value is None
    at.button(key="em_apply").click().run()
    assert len(at.session_state[release_plan.PLAN]) == 2 and [shown(w.value) for w in at.warning] == [
        "Pick the value to apply first: this map recommends none."]


def _survey() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"age": rng.integers(20, 70, 300), "sex": rng.choice(["f", "m"], 300),
                         "region": rng.choice(["a", "b", "c"], 300)})


def _suppression_map_after_recoding():
    import streamlit as st

    from dashboard.pagemaps import PageMapSpec, page_analysis
    from dashboard.release_plan import apply_controls
    from rumap.maps.categorical import suppression_map
    from rumap.masking.categorical import parse_merges, recode

    frame, merges = st.session_state["frame"], st.session_state["merges"]
    keys = ["age", "sex", "region"]
    ru = suppression_map(recode(frame, parse_merges(merges)), keys, [2, 3, 5])
    spec = PageMapSpec(page="categorical", label="local suppression", settings={"keys": keys, "ks": [2, 3, 5],
                                                                              "merges": merges})
    apply_controls(page_analysis([ru], spec), "cat")


def test_apply_after_recoding_releases_the_recoding_the_map_was_drawn_with():
    from rumap.masking.categorical import local_suppression, parse_merges, recode
    from rumap.release.apply import apply_plan
    from rumap.release.plan import ReleasePlan

    frame = _survey()
    merges = [f"age: {', '.join(str(a) for a in range(lo, lo + 10))} = {lo}-{lo + 9}" for lo in range(20, 70, 10)]
    at = AppTest.from_function(_suppression_map_after_recoding, default_timeout=60)
    at.session_state["frame"], at.session_state["merges"] = frame, merges
    at.run()
    at.selectbox(key="cat_apply_value").set_value(3.0).run()
    at.button(key="cat_apply").click().run()
    plan = at.session_state[release_plan.PLAN]
    assert [s.method for s in plan] == ["recode", "suppress"]
    released = apply_plan(frame, ReleasePlan(tuple(plan))).data
    on_the_map = local_suppression(recode(frame, parse_merges(merges)), ["age", "sex", "region"], k=3).data
    pd.testing.assert_frame_equal(released.astype(str), on_the_map.astype(str))
    assert released["age"].nunique() == 5 and released["age"].isna().sum() < 30  # banded, few ages suppressed


def _release_page_on(frame: pd.DataFrame, plan: list[Step]) -> AppTest:
    from pathlib import Path

    from dashboard.state import DATA, LoadedData

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "pages" / "release.py"), default_timeout=120)
    at.session_state[DATA] = LoadedData("upload", "hourly.csv", frame, "0" * 64)
    at.session_state[release_plan.PLAN] = plan
    return at.run()


def test_a_plan_decided_on_another_file_is_flagged_and_applied_only_when_confirmed():
    rng = np.random.default_rng(5)
    weekly = pd.DataFrame({"wage": rng.lognormal(6.5, 0.5, 40)})
    hourly = pd.DataFrame({"wage": weekly["wage"] / 38.0})
    step = Step("microaggregation", {"k": 3}, columns=["wage"],
                origin={"map": "microaggregation, weekly.csv [wage]", "data": frame_digest(weekly),
                        "choice": "recommended", "value": 3.0, "recommended": 3.0, "max_risk": 1e-9,
                        "decision": "upper", "binding": {"target": "max", "knowledge": "index"},
                        "targets": ["max"], "knowledge": ["index"], "target_column": "wage"})
    at = _release_page_on(hourly, [step])
    assert not at.exception
    (error,) = at.error
    assert "Step 1 was decided on a map of other data than this session's hourly.csv" in shown(error.value)
    assert "from the map microaggregation, weekly.csv [wage], at its recommended value; data fingerprint " \
        f"{frame_digest(weekly)[:12]}" in [shown(c.value) for c in at.caption]
    assert release_plan.RELEASED not in at.session_state  # nothing released
    at.checkbox[0].check().run()
    assert at.session_state[release_plan.RELEASED][1].plan.steps == (step,)

    at = _release_page_on(weekly, [step])  # the file the map was drawn on
    assert not at.error and not at.checkbox
    assert at.session_state[release_plan.RELEASED][1].plan.steps == (step,)
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("Step 1: From the map microaggregation, weekly.csv [wage] (data fingerprint ")
               and "R_max = 1e-09; decision rule: each judged by the upper end of its 95% band; binding target max "
                   "under index knowledge; recommended value 3, released." in c for c in captions), captions
    red = [shown(m.value) for m in at.markdown if m.value.startswith(":red[")]
    assert red and red[0].startswith(":red[**Step 1: Above R_max: snooper max/index (its target, the record of "
                                     "rank 40 in the attacked column"), red


def test_a_recoding_step_reads_as_its_groups_not_every_value():
    from rumap.release.from_map import recode_step

    line = release_plan.describe(recode_step(["age: 18..29 = 18-29", "age: 30..44 = 30-44", "region: n, s = ns"]))
    assert "age: 18-29 ← 18 … 29 (12 values); 30-44 ← 30 … 44 (15 values) | region: ns ← n, s" in line
    assert "'19'" not in line
