"""The Empirical page computes a map on subsamples: only the choices a subsample estimates are offered, the map
says what it was computed on and what its bands cover, the command carries the flags and a kept map the record."""

from __future__ import annotations

from ui_helpers import app_test, goto, open_reproduce_panels, shown

from rumap.maps.attacks import KNOWLEDGE
from rumap.maps.methods import METHODS
from rumap.maps.subsample import allowed
from rumap.maps.utility import UTILITIES


def _errors(at) -> list[str]:
    return [shown(e.value) for e in at.error]


def test_the_empirical_page_maps_subsamples_and_refuses_what_they_cannot_estimate(monkeypatch):
    from rumap.maps import subsample

    monkeypatch.setattr(subsample, "SUGGESTED_RECORDS", 100)  # the bundled data's 177 records count as many
    at = goto(app_test(), "empirical")
    assert not at.exception and not _errors(at)
    assert any("177 records: computing on subsamples" in shown(i.value) for i in at.info)
    assert "variance" in at.selectbox(key="em_utility").options  # every choice without subsamples
    at.checkbox(key="em_subsample_on").check().run()
    assert not at.exception and not _errors(at), _errors(at)
    assert not any("computing on subsamples" in shown(i.value) for i in at.info)  # suggested no more once chosen
    assert at.selectbox(key="em_method").options == allowed("method", list(METHODS))
    assert allowed("knowledge", list(KNOWLEDGE)) == ["index"]
    assert at.multiselect(key="em_knowledge").value == ["index"]  # the default's "position" is not offered
    assert len(at.multiselect(key="em_knowledge").options) == 1
    assert at.selectbox(key="em_utility").options == allowed("utility", list(UTILITIES))
    assert "variance" not in at.selectbox(key="em_utility").options
    at.number_input(key="em_subsample").set_value(40)
    at.number_input(key="em_subsamples").set_value(3)
    at.number_input(key="em_replicates").set_value(5).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    assert len(at.get("plotly_chart")) == 1
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("Computed on 3 subsamples of 40 records of 177; bands are ± 1.96 between-subsample")
               and "not a bias of order 1/m" in c for c in captions), captions
    codes = [c.value for c in open_reproduce_panels(at).code]
    assert any(c.startswith("python -m rumap simulate") and "--subsample 40 --subsamples 3" in c for c in codes)
    assert any("'subsample': 40" in c or '"subsample": 40' in c or "subsample=40" in c for c in codes), codes
    at.text_input(key="empirical_name").set_value("sampled").run()
    at.button(key="empirical_keep").click().run()
    assert not at.exception
    from dashboard.state import ANALYSES
    from rumap.present.report import report_html

    (kept,) = at.session_state[ANALYSES]
    assert kept.spec.to_dict()["simulation"]["subsample"] == 40 and kept.subsample.subsamples == 3
    page = report_html([kept])
    assert "Computed on 3 subsamples of 40 records of 177" in page and "--subsample 40 --subsamples 3" in page
    goto(at, "compare")
    assert any("computed on 3 subsamples of 40 records" in shown(i.value) for i in at.info), [i.value for i in at.info]
    goto(at, "empirical")
    at.number_input(key="em_subsample").set_value(177).run()  # as many records as the data: refused by the core
    assert not at.exception
    assert any("subsample: 177 records is not fewer than the data's 177" in e for e in _errors(at)), _errors(at)
