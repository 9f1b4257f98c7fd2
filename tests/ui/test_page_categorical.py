"""The categorical-keys page (pages/categorical.py) runs on its own and reacts to its widgets."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import open_reproduce_panels, open_tab, shown

from dashboard import release_plan
from dashboard.state import CACHE
from rumap.risk.individual import individual_risk

#: The key of the page's tabs (pages/categorical.py TAB_KEY): a run draws the open tab only.
TAB = "categorical_tab"

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "categorical.py")
SURVEY = ROOT / "data" / "survey.csv"


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def first_session() -> AppTest:
    """The page's first run, which computes its measures and maps (about 10 s)."""
    at = AppTest.from_file(PAGE, default_timeout=180).run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


@pytest.fixture()
def app(first_session) -> AppTest:
    """A new session of the page for each test, its result cache holding the first session's results.

    The cache's entries are keyed on every value of the data and every setting, so a test finds
    there only what its own run would compute; widgets and everything else start afresh.
    """
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state[CACHE] = first_session.session_state[CACHE]
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def test_the_map_of_targeted_swapping_is_drawn_when_asked(app):
    open_tab(app, "Targeted swapping map", TAB)
    assert any("its map is simulated when asked" in c.value for c in app.caption)
    assert not app.get("plotly_chart")  # not drawn until asked
    app.toggle(key="cat_swap_draw").set_value(True).run()
    assert not app.exception and not app.error
    assert len(app.get("plotly_chart")) == 1  # the swapping map, its tab alone drawn
    (said,) = [shown(c.value) for c in app.caption if "Targeted swapping exchanges the geography" in c.value]
    # on the survey's 5 keys nearly every household is at risk: the share swapped, not the rate, is what happens
    assert "Households swapped (mean over the replicates): 9" in said and "a rate below that swaps no more" in said
    assert any(c.value.startswith("python -m rumap simulate") and "--method swap" in c.value
               for c in open_reproduce_panels(app).code)
    app.session_state["cat_swap_apply_value"] = 0.1  # the rate picked (the map recommends none)
    app.button(key="cat_swap_apply").click().run()  # Apply: the swap at this rate is the plan's step
    (step,) = app.session_state[release_plan.PLAN]
    assert (step.method, step.parameters["swaprate"], step.parameters["hierarchy"], step.parameters["household"],
            step.parameters["similar"], step.seed) == ("swap", 0.1, ["region"], "hh", [["hh_size"]], 0)
    assert "region" not in step.keys and step.origin["map"].startswith("targeted swapping")


def test_runs_on_the_bundled_survey(app):
    expected = individual_risk(pd.read_csv(SURVEY), ["age_band", "sex", "region", "marital", "occupation"],
                               weight="weight", household="hh", k=3)
    assert metric(app, "records") == "2,329"
    assert "cat_server" not in [field.key for field in app.text_input]  # no file on the server unless offered
    assert metric(app, "expected re-identifications") == f"{expected.expected_reidentifications:.2f}"
    assert metric(app, "records with f_k < 3") == f"{expected.k_anonymity_violations:,}"
    assert len(app.get("plotly_chart")) == 1  # the suppression map, the first tab's; the others run when opened
    assert any(c.value.startswith("python -m rumap risk individual") for c in open_reproduce_panels(app).code)
    assert len(open_tab(app, "PRAM map", TAB).get("plotly_chart")) == 1
    open_tab(app, "Banding map", TAB)
    assert any("Banding needs a numeric key" in shown(i.value) for i in app.info)
    assert not app.get("plotly_chart")


def test_recoding_before_measuring_lowers_the_risk(app):
    before = float(metric(app, "expected re-identifications"))
    app.text_area(key="cat_recode").input("region: R01, R02, R03, R04, R05, R06 = west\n"
                                          "region: R07, R08, R09, R10, R11, R12 = east").run()
    assert not app.exception and not app.error
    assert float(metric(app, "expected re-identifications")) < before


def test_integer_coded_categories_are_recoded_and_the_reproduce_commands_include_it(app, tmp_path):
    import json
    import shlex
    import subprocess
    import sys

    from rumap.masking.categorical import recode
    from rumap.risk.suda import suda2

    keys = ["hh_size", "sex", "region", "marital"]
    app.multiselect(key="cat_keys").set_value(keys)
    app.button(key="cat_settings_apply").click().run()  # the settings form's button measures the file once
    before = float(metric(app, "expected re-identifications"))
    open_tab(app, "Special uniques (SUDA2)", TAB)
    app.text_area(key="cat_recode").input("hh_size: 1, 2 = small\nhh_size: 5, 6, 7 = large\nregion: R99 = x").run()
    assert not app.exception and not app.error, [shown(e.value) for e in app.error]
    assert float(metric(app, "expected re-identifications")) < before
    warnings = [shown(w.value) for w in app.warning]
    assert any("region" in w and "R99 matches no value" in w for w in warnings), warnings
    assert not any("hh_size" in w for w in warnings)
    recoded = recode(pd.read_csv(SURVEY), {"hh_size": {"1": "small", "2": "small", "5": "large", "6": "large",
                                                       "7": "large"}, "region": {"R99": "x"}})
    assert metric(app, "special uniques") == f"{suda2(recoded, keys).special_uniques:,}"
    codes = [c.value for c in open_reproduce_panels(app).code]
    command = next(c for c in codes if c.startswith("python -m rumap risk suda"))
    assert "--merge 'hh_size: 1, 2 = small'" in command and "--merge 'region: R99 = x'" in command
    proc = subprocess.run([sys.executable, *shlex.split(command)[1:]], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"{json.loads(proc.stdout)['special_uniques']:,}" == metric(app, "special uniques")
    assert any("recode(read_table(" in c and "suda2(" in c for c in codes)
    assert all("--merge" in c for c in codes if c.startswith("python -m rumap"))


def test_a_bad_recoding_line_is_an_error_box(app):
    app.text_area(key="cat_recode").input("region R01").run()
    assert any("recoding line 1 must read VAR: A, B = NEW" in shown(e.value) for e in app.error)
    assert not app.exception


def test_the_pram_matrix_is_shown_and_invariant(app):
    import numpy as np

    open_tab(app, "PRAM map", TAB)
    app.selectbox(key="cat_matrix_variable").set_value("region").run()
    app.number_input(key="cat_theta").set_value(0.5).run()
    assert not app.exception and not app.error
    matrix = next(df.value for df in app.dataframe if list(df.value.index) == list(df.value.columns))
    counts = pd.read_csv(SURVEY)["region"].astype(str).value_counts(sort=False).reindex(matrix.index)
    pi = counts.to_numpy() / counts.sum()
    np.testing.assert_allclose(pi @ matrix.to_numpy(), pi, atol=1e-3)
    assert np.allclose(np.diag(matrix.to_numpy()), 0.5 + 0.5 * pi, atol=1e-4)


def test_per_record_risk_is_offered_only_after_a_click(app):
    assert not app.get("download_button")  # nothing prepared until asked
    app.button(key="cat_risk_prepare").click().run()
    assert not app.exception and not app.error
    assert len(app.get("download_button")) == 1


def test_the_suda_view_shows_sdcmicros_scores(app):
    from rumap.risk.suda import suda2

    expected = suda2(pd.read_csv(SURVEY), ["age_band", "sex", "region", "marital", "occupation"])
    open_tab(app, "Special uniques (SUDA2)", TAB)
    assert metric(app, "special uniques") == f"{expected.special_uniques:,}"
    assert metric(app, "highest SUDA score") == f"{expected.score.max():g}"
    assert any(c.value.startswith("python -m rumap risk suda") for c in open_reproduce_panels(app).code)
    app.selectbox(key="cat_suda_max").set_value(2).run()
    assert not app.exception and not app.error
    smaller = suda2(pd.read_csv(SURVEY), ["age_band", "sex", "region", "marital", "occupation"], max_size=2)
    assert metric(app, "special uniques") == f"{smaller.special_uniques:,}"
    assert any("--max-size 2" in c.value for c in open_reproduce_panels(app).code)


def test_suda_searches_every_key_by_default_as_the_command_line_does(app):
    from cli_helpers import run_cli

    keys = ["age_band", "sex", "region", "marital", "occupation"]
    app.multiselect(key="cat_keys").set_value(keys[:1])  # a user who picks the keys one at a time
    app.button(key="cat_settings_apply").click().run()
    app.multiselect(key="cat_keys").set_value(keys)
    app.button(key="cat_settings_apply").click().run()
    assert not app.exception and not app.error
    open_tab(app, "Special uniques (SUDA2)", TAB)
    _proc, summary = run_cli("risk", "suda", "--data", SURVEY, "--keys", ",".join(keys), "--json", check_json=True)
    assert summary["max_size"] == len(keys) and summary["special_uniques"] > 0
    assert metric(app, "special uniques") == f"{summary['special_uniques']:,}"
    commands = [c.value for c in open_reproduce_panels(app).code if "rumap risk suda" in c.value]
    assert commands and "--max-size" not in commands[0]
    assert app.selectbox(key="cat_suda_max").options == ["all 5 keys (default)", "1", "2", "3", "4", "5"]


def test_the_maps_take_the_chosen_risk_and_utility(app):
    app.selectbox(key="cat_map_utility").set_value("entropy").run()
    app.selectbox(key="cat_map_risk").set_value("share_above").run()
    assert not app.exception and not app.error, [shown(e.value) for e in app.error]
    captions = " ".join(shown(c.value) for c in app.caption)
    assert "entropy information loss" in captions and "above the risk threshold" in captions
    assert any("--utility entropy" in c.value and "--risk-threshold" in c.value for c in open_reproduce_panels(app).code)
    app.selectbox(key="cat_map_utility").set_value("cramers_v").run()
    assert not app.exception and not app.error, [shown(e.value) for e in app.error]
    assert any("--pair" in c.value for c in open_reproduce_panels(app).code)


def test_the_maps_run_over_the_grids_of_the_core(app):
    from rumap.release.registry import CATEGORICAL_METHODS

    assert app.number_input(key="cat_k_max").value == 5  # the first tab's
    grids = {}
    for tab in ("Local suppression map", "PRAM map"):
        grids.update({column: frame.value[column].tolist() for frame in open_tab(app, tab, TAB).dataframe
                      for column in ("k", "theta") if column in frame.value.columns})
    assert grids == {"k": CATEGORICAL_METHODS["suppress"].values(), "theta": CATEGORICAL_METHODS["pram"].values()}
    assert grids["k"] == [1, 2, 3, 4, 5]


def test_the_k_fields_explain_k_anonymity_not_microaggregation(app):
    helps = {field.label: field.help for field in app.number_input}
    for label in ("k of k-anonymity", "unsafe cell: fewer records than", "largest k"):
        assert helps[label] and "microaggregation" not in helps[label], (label, helps[label])


def test_keys_chosen_one_after_another_are_measured_once_the_form_is_sent(app):
    before = metric(app, "records with f_k < 3")
    app.multiselect(key="cat_keys").set_value(["sex", "region"]).run()  # chosen, not yet sent: nothing measured
    assert metric(app, "records with f_k < 3") == before
    app.multiselect(key="cat_keys").set_value(["sex", "region"])
    app.button(key="cat_settings_apply").click().run()
    assert not app.exception and not app.error
    assert metric(app, "records with f_k < 3") != before
    assert any("keys: sex, region" in shown(c.value) for c in app.caption)
