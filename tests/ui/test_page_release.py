"""The Release page (pages/release.py) and the "Apply" under the maps, run headless with AppTest from app.py."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from cli_helpers import run_cli
from streamlit.testing.v1 import AppTest
from ui_helpers import app_test, goto, open_tab, shown

from dashboard import release_plan
from rumap.io.data import BUNDLED_DATA, read_table
from rumap.release.plan import Step, read_plan

INCOME = BUNDLED_DATA["income (synthetic, Table 1)"]


def _app() -> AppTest:
    return app_test(timeout=300)


def _goto(at: AppTest, page: str) -> AppTest:
    goto(at, page)
    assert [shown(e.value) for e in at.error] == []
    return at


def _bare(step: Step) -> dict:
    """A step's plan entry without its origin (the map it came from)."""
    return {k: v for k, v in step.to_dict().items() if k != "origin"}


def _cli_bytes(tmp_path, plan_json: str, out_name: str) -> bytes:
    (tmp_path / "plan.json").write_text(plan_json)
    proc = run_cli("release", "--data", INCOME, "--plan", tmp_path / "plan.json", "--out", tmp_path / out_name,
                   "--no-prediction")
    assert proc.returncode == 0, proc.stderr
    return (tmp_path / out_name).read_bytes()


def test_release_page_without_steps_says_how_to_add_one():
    at = _goto(_app(), "release")
    assert any("No step yet" in shown(i.value) for i in at.info)
    assert not at.get("download_button")


def test_apply_under_the_map_adds_the_recommended_point_and_release_gives_the_command_line_bytes(tmp_path):
    at = _goto(_app(), "empirical")
    at.number_input(key="em_replicates").set_value(20).run()
    at.selectbox(key="em_method").set_value("microaggregation").run()
    at.button(key="em_run").click().run()
    choice = at.selectbox(key="empirical_apply_value")
    recommended = [o for o in choice.options if o.endswith("(recommended)")]
    assert len(recommended) == 1 and choice.format_func(choice.value) == recommended[0]
    at_recommended = choice.value
    at.selectbox(key="empirical_apply_value").set_value(3.0).run()  # a point the user picks
    at.button(key="empirical_apply").click().run()
    at.selectbox(key="empirical_apply_value").set_value(at_recommended).run()  # and the recommended one
    at.button(key="empirical_apply").click().run()
    plan = at.session_state[release_plan.PLAN]
    k = int(float(recommended[0].split()[0]))
    assert [s.origin["choice"] for s in plan] == ["picked", "recommended"]
    assert [_bare(s) for s in plan] == [
        {"method": "microaggregation", "parameters": {"k": kk, "algorithm": "mdav", "standardize": False,
                                                      "criterion": "pc1"}, "columns": ["income"], "seed": None}
        for kk in (3, k)]
    assert any("Release plan: 2 step(s)" in c.value for c in at.caption)

    _goto(at, "release")
    lines = [shown(m.value) for m in at.markdown if m.value.startswith("Step ")]
    assert lines == ["Step 1: microaggregation (k = 3, algorithm = mdav, criterion = pc1) on income",
                     f"Step 2: microaggregation (k = {k}, algorithm = mdav, criterion = pc1) on income"]
    (after, checks) = at.dataframe
    assert after.value["step"].tolist() == [1, 2]
    assert (after.value["risk: share linked to their own record"].between(0, 1)).all()
    assert after.value["information loss: SSE/SST"].is_monotonic_increasing  # k = 3, then groups of at least k
    assert checks.value["step"].tolist()[0] == 1 and not checks.value["outside"].any()
    command = at.code[-1].value
    assert command == ("python -m rumap release --data data/income.csv --plan release_plan.json "
                       "--out income_protected.csv --report release_report.html")
    done = at.session_state[release_plan.RELEASED][1]
    assert done.content == _cli_bytes(tmp_path, done.plan.to_json(), "income_protected.csv")
    released = pd.read_csv(io.BytesIO(done.content))
    original = read_table(INCOME)
    assert list(released.columns) == list(original.columns) and len(released) == len(original)
    assert released["income"].groupby(released["income"]).size().min() >= k

    # the downloaded plan, uploaded again, gives the same bytes; so does Parquet, through the command line
    again = release_plan.release(original, "income", read_plan(done.plan.to_json()), "income_protected.csv",
                                 replicates=None)
    assert again.content == done.content
    at.selectbox(key="release_out_name").set_value("income_protected.parquet").run()
    parquet = at.session_state[release_plan.RELEASED][1]
    assert parquet.content == _cli_bytes(tmp_path, done.plan.to_json(), "income_protected.parquet")
    assert "--out income_protected.parquet" in at.code[-1].value


@pytest.fixture
def two_steps():
    at = _app()
    at.session_state[release_plan.PLAN] = [Step("rankswap", {"swap_percent": 5.0}, columns=["income"], seed=2),
                                           Step("microaggregation", {"k": 4}, columns=["income"])]
    return _goto(at, "release")


def _methods(at: AppTest) -> list[str]:
    return [s.method for s in at.session_state[release_plan.PLAN]]


def test_steps_move_remove_and_undo(two_steps):
    at = two_steps
    assert _methods(at) == ["rankswap", "microaggregation"]
    assert at.button(key="release_up_0").disabled and at.button(key="release_down_1").disabled
    at.button(key="release_down_0").click().run()
    assert _methods(at) == ["microaggregation", "rankswap"]
    first = at.session_state[release_plan.RELEASED][1]
    assert [s.method for s in first.plan.steps] == ["microaggregation", "rankswap"]
    at.button(key="release_remove_1").click().run()
    assert _methods(at) == ["microaggregation"]
    assert len(at.dataframe[0].value) == 1
    at.button(key="release_undo").click().run()
    assert _methods(at) == ["microaggregation", "rankswap"]
    at.button(key="release_undo").click().run()
    assert _methods(at) == ["rankswap", "microaggregation"]
    assert not at.exception and [shown(e.value) for e in at.error] == []
    plan = json.loads(at.session_state[release_plan.RELEASED][1].plan.to_json())
    assert [s["method"] for s in plan["steps"]] == ["rankswap", "microaggregation"]


def test_a_step_that_does_not_fit_the_data_is_an_error_box_not_a_traceback():
    at = _app()
    at.session_state[release_plan.PLAN] = [Step("pram", {"theta": 0.8}, keys=["no such key"], seed=1)]
    _goto_with_error = at.switch_page("pages/release.py").run()
    assert not _goto_with_error.exception
    assert any("no column 'no such key'" in shown(e.value) for e in at.error)


def test_out_names_offer_the_upload_format_then_csv_and_parquet():
    assert release_plan.out_names("survey.sav") == ["survey_protected.sav", "survey_protected.csv",
                                                    "survey_protected.parquet"]
    assert release_plan.out_names("data/income.csv") == ["income_protected.csv", "income_protected.parquet"]
    assert release_plan.out_names("x.sas7bdat") == ["x_protected.csv", "x_protected.parquet"]  # no SAS writer


def test_apply_under_a_map_of_keys_adds_pram_and_release_gives_the_command_line_bytes(tmp_path):
    survey = BUNDLED_DATA["survey (synthetic, households and weights)"]
    at = open_tab(_goto(_app(), "categorical"), "PRAM map", "categorical_tab")  # the page's own file, the survey
    assert at.selectbox(key="cat_pram_apply_value").value is None  # no bound, no recommendation: the user picks
    at.button(key="cat_pram_apply").click().run()
    assert [shown(w.value) for w in at.warning] == ["Pick the value to apply first: this map recommends none."]
    at.selectbox(key="cat_pram_apply_value").set_value(0.8).run()
    at.button(key="cat_pram_apply").click().run()
    assert any("has no column" in shown(w.value) for w in at.warning)  # the session's data are the income file
    at.switch_page("pages/data.py").run()
    at.selectbox(key="data_bundled").set_value("survey (synthetic, households and weights)").run()
    open_tab(_goto(at, "categorical"), "PRAM map", "categorical_tab")
    theta = at.selectbox(key="cat_pram_apply_value").options[0]  # the least theta: most values change
    at.selectbox(key="cat_pram_apply_value").set_value(float(theta.split()[0])).run()
    at.button(key="cat_pram_apply").click().run()
    assert not at.warning
    (first, step) = at.session_state[release_plan.PLAN]
    assert step.origin["choice"] == "picked" and step.origin["data"] == at.session_state["rumap_data"].fingerprint
    assert _bare(step) == {"method": "pram", "parameters": {"theta": float(theta.split()[0])},
                              "keys": ["age_band", "sex", "region", "marital", "occupation"], "seed": 0}
    assert first.keys == step.keys
    at.session_state[release_plan.PLAN] = [step]
    _goto(at, "release")
    done = at.session_state[release_plan.RELEASED][1]
    (tmp_path / "plan.json").write_text(done.plan.to_json())
    proc = run_cli("release", "--data", survey, "--plan", tmp_path / "plan.json", "--out",
                   tmp_path / "survey_protected.csv", "--no-prediction")
    assert proc.returncode == 0, proc.stderr
    assert done.content == (tmp_path / "survey_protected.csv").read_bytes()
    assert sum(done.report.categorical["changed"].values()) > 0


def test_a_table_plan_releases_the_protected_table_as_the_command_line_does(tmp_path):
    persons = BUNDLED_DATA["persons (synthetic, categorical keys)"]
    at = _app()
    at.switch_page("pages/data.py").run()
    at.selectbox(key="data_bundled").set_value("persons (synthetic, categorical keys)").run()
    at.session_state[release_plan.PLAN] = [
        Step("table", {"response": "income"}, keys=["region", "marital"]),
        Step("primary", {"rule": "p-percent", "p": 10}), Step("secondary_suppression", {"protection": 10.0})]
    _goto(at, "release")
    done = at.session_state[release_plan.RELEASED][1]
    after = at.dataframe[0].value
    assert after["method"].tolist() == ["table", "primary", "secondary_suppression"]
    assert after["risk: suppressed"].tolist()[-1] == done.report.table["suppressed"] > 0
    (tmp_path / "plan.json").write_text(done.plan.to_json())
    proc = run_cli("release", "--data", persons, "--plan", tmp_path / "plan.json", "--out",
                   tmp_path / "persons_protected.csv", "--no-prediction")
    assert proc.returncode == 0, proc.stderr
    assert done.content == (tmp_path / "persons_protected.csv").read_bytes()


def test_apply_under_the_map_of_a_table_adds_its_three_steps():
    at = _app()
    at.switch_page("pages/data.py").run()
    at.selectbox(key="data_bundled").set_value("persons (synthetic, categorical keys)").run()
    open_tab(_goto(at, "tables"), "From microdata")
    at.checkbox(key="micro_draw_map").check().run()  # the map over the protection level
    choice = at.selectbox(key="tables_micro_apply_value")
    assert choice.label == "Release at P"  # the protection level, as the map names it
    at.selectbox(key="tables_micro_apply_value").set_value(20.0).run()
    at.button(key="tables_micro_apply").click().run()
    assert not [w for w in at.warning if "has no column" in shown(w.value)], [shown(w.value) for w in at.warning]
    assert [shown(e.value) for e in at.error] == []
    plan = [_bare(s) for s in at.session_state[release_plan.PLAN]]
    assert plan == [
        {"method": "table", "parameters": {"response": "income", "shadow": None}, "keys": ["region", "marital"],
         "seed": None},
        {"method": "primary", "parameters": {"rule": "p-percent", "k": None, "n": None, "p": 10.0, "q": None,
                                             "threshold": None}, "seed": None},
        {"method": "secondary_suppression", "parameters": {"protection": 20.0, "cost": "value", "time_limit": 30.0},
         "seed": None}]
    _goto(at, "release")
    done = at.session_state[release_plan.RELEASED][1]
    assert done.report.table["protection"] == "secondary suppression" and done.report.table["suppressed"] > 0


def test_a_step_that_cannot_reach_its_k_is_a_warning_on_the_release_page():
    at = _goto(_app(), "release")
    at.session_state[release_plan.PLAN] = [Step("suppress", {"k": 10**6}, keys=["income"])]
    at.run()
    warnings = [shown(w.value) for w in at.warning]
    assert any("step 1 (suppress) did not reach k-anonymity: k = 1000000 is more than the" in w for w in warnings), warnings
    assert at.get("download_button")  # the file is there, and the page says it is not protected as asked


def test_the_release_page_releases_a_synthetic_file():
    at = _app()
    at.session_state[release_plan.PLAN] = [Step("synthesize", {"generator": "copula"}, columns=["income"], seed=1)]
    _goto(at, "release")
    released = at.session_state[release_plan.RELEASED][1]
    original = read_table(INCOME)["income"]
    assert len(released.result.data) == len(original) and not released.result.data["income"].equals(original)
    assert any("synthesize (generator = copula)" in shown(m.value) for m in at.markdown)
