"""Compare and Pareto overlay kept maps of different methods on the common measures, and say which they leave out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from ui_helpers import shown

from dashboard.risk_bound import BOUNDS
from dashboard.state import ANALYSES
from rumap.maps.common import COMMON_RISK_LABEL, COMMON_UTILITY_LABEL
from rumap.maps.recommend import recommend
from rumap.maps.simulation import SimulationConfig
from rumap.specs import AnalyticSpec, DataSource, EmpiricalSpec

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def kept() -> list:
    rng = np.random.default_rng(4)
    x = np.column_stack([rng.lognormal(10, 0.5, 80), rng.normal(40, 8, 80)])
    source = DataSource.of("upload", "survey.csv", ["income", "age"], x)

    def run(method: str, values: tuple, name: str):
        config = SimulationConfig(method=method, values=values, targets=("max",), knowledge=("index",),
                                  replicates=5, seed=2)
        return EmpiricalSpec(simulation=config, data=source, max_risk=1e-6).run(x).renamed(name)

    noise = run("noise", (0.05, 0.2, 0.5, 1.0), "noise map")
    micro = run("microaggregation", (2, 3, 5, 8), "micro map")
    analytic = AnalyticSpec(n=200, sigma2=1.0, states=("record",), lambda2_num=5, max_risk=5.0).run() \
        .renamed("analytic map")
    return [noise, micro, analytic]


def _page(kept: list, page: str, bounds: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[ANALYSES] = list(kept)
    if bounds:
        at.session_state[BOUNDS] = dict(bounds)
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [shown(e.value) for e in at.error]
    return at


def _trace_names(at: AppTest) -> set[str]:
    (fig,) = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    return {t["name"] for t in fig["data"] if t.get("mode") == "lines"}


def test_the_maps_of_two_methods_differ_on_their_own_measures(kept):
    noise, micro, _ = kept
    assert noise.maps[0].utility_label != micro.maps[0].utility_label  # Eq 14 says nothing of what k loses
    own = {(m.risk_label, m.utility_label) for a in kept for m in a.maps}
    assert len(own) == 3


def test_compare_overlays_noise_and_microaggregation_on_the_common_measures(kept):
    at = _page(kept, "compare")
    measure = at.selectbox(key="compare_measure")
    assert measure.value == f"R: {COMMON_RISK_LABEL} | U: {COMMON_UTILITY_LABEL}"  # the only pair both maps have
    assert _trace_names(at) == {"noise map", "micro map"}
    (info,) = [shown(i.value) for i in at.info if "Not drawn" in shown(i.value)]
    assert info.startswith("2 of 3 chosen maps drawn")
    assert "analytic map" in info and "no masked copies of data" in info
    assert at.number_input(key="compare_max_share").value == pytest.approx(0.05)
    note = next(shown(i.value) for i in at.info if "Compared on" in shown(i.value))  # not the maps' own: says so
    assert "Compared on R = share of records re-identified" in note and "measure R and U differently" in note
    own = kept[1].recommendation()  # what the map's page, the report and the command line give
    assert own.feasible and f"micro map: its own risk is R = 1 / snooper's MSE (Eq 12); under its own bound " \
        f"R_max = 1e-06 it recommends k = {own.value:.4g}" in note
    for scale in ("efficiency", "normalised", "as computed"):  # every utility scale applies to the common U
        at.radio(key="compare_utility_scale").set_value(scale).run()
        assert not at.exception and not at.error, [shown(e.value) for e in at.error]
        assert _trace_names(at) == {"noise map", "micro map"}
    at.number_input(key="compare_max_share").set_value(0.5).run()
    assert not at.exception and not at.error
    text = " ".join(shown(m.value) for m in at.markdown)
    for name, analysis in (("noise map", kept[0]), ("micro map", kept[1])):
        common = analysis.common
        reached = common.risk <= 0.5
        if reached.any():
            best = common.values[reached][np.argmax(common.utility[reached])]
            assert f"{name}: reached at" in text and f"= {best:.4g}" in text.split(f"{name}: reached at")[1][:40]


def test_compare_of_one_map_opens_on_its_own_measures_and_recommendation(kept):
    at = _page(kept, "compare")
    at.multiselect(key="compare_maps").set_value(["micro map"]).run()
    assert at.selectbox(key="compare_measure").value == _own_measure(kept[1], at)  # not the common ones
    assert not any("Compared on" in shown(i.value) for i in at.info)
    own = kept[1].recommendation()
    assert f"with k = {own.value:.4g} (risk" in shown(at.success[0].value)  # as its page and the command line


def test_compare_on_a_methods_own_measures_lists_the_maps_it_leaves_out(kept):
    at = _page(kept, "compare")
    own = _own_measure(kept[0], at)
    at.selectbox(key="compare_measure").set_value(own).run()
    assert not at.exception
    assert _trace_names(at) == {"noise map"}
    info = next(shown(i.value) for i in at.info if "Not drawn" in shown(i.value))
    assert info.startswith("1 of 3 chosen maps drawn")
    assert "micro map: it measures R = 1 / snooper's MSE (Eq 12), U = " in info
    assert "choose its common measures to overlay it" in info
    assert "analytic map: it measures R = " in info and "no masked copies of data" in info


def _own_measure(analysis, at: AppTest) -> str:
    m = analysis.maps[0]
    own = f"R: {m.risk_label} | U: {m.utility_label}"
    assert own in at.selectbox(key="compare_measure").options
    return own


def test_pareto_draws_one_frontier_over_both_methods(kept):
    at = _page(kept, "pareto", bounds={COMMON_RISK_LABEL: 0.5})
    (fig,) = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert [s["y0"] for s in fig["layout"]["shapes"]] == [0.5]  # the bound Compare judges by
    chosen = [recommend([a.common], 0.5) for a in kept[:2]]  # the core's rule, on each map's common curve
    best = max((c for c in chosen if c.feasible), key=lambda c: c.utility)
    (star,) = [t for t in fig["data"] if t["name"] == "most utility under the bound"]
    assert (star["x"][0], star["y"][0]) == pytest.approx((best.utility, best.risk))
    frontier = at.dataframe[0].value
    points = sum(len(a.common.values) for a in kept[:2])
    assert f"of {points}" in at.subheader[0].value
    assert set(frontier["map"]) <= {"noise map", "micro map"}
    risk = np.concatenate([a.common.risk for a in kept[:2]])
    utility = np.concatenate([a.common.utility for a in kept[:2]])
    beaten = [any(u2 >= u and r2 <= r and (u2 > u or r2 < r) for u2, r2 in zip(utility, risk, strict=True))
              for u, r in zip(utility, risk, strict=True)]
    assert len(frontier) == beaten.count(False)  # a second computation of the frontier, by brute force
