"""The paper's worked examples (Figures 2-7) give the paper's findings."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.maps.pareto import best_under_risk
from rumap.present.examples import EXAMPLES, INCOME_MAX_RISK, example_specs
from rumap.specs import AnalyticSpec, EmpiricalSpec


def test_every_example_builds_named_specifications():
    for key, example in EXAMPLES.items():
        named = example_specs(key)
        assert named and all(name.startswith(example.figures) for name, _ in named)
        kinds = {type(spec) for _, spec in named}
        assert kinds == ({EmpiricalSpec} if example.needs_engine else {AnalyticSpec})
    with pytest.raises(InputError, match="key must be one of"):
        example_specs("figure-99")


def test_figures_2_to_4_analytic_numbers():
    (_, fig2), = example_specs("figure-2")
    analysis = fig2.run()
    record, population = analysis.optima
    assert (fig2.n, fig2.sigma2, fig2.max_risk) == (200, 1.0, 5.0)
    assert record.lambda2 == pytest.approx(0.2) and record.utility == pytest.approx(166.67, abs=0.01)
    assert population.lambda2 == 0.0 and population.risk == pytest.approx(0.995, abs=5e-4)
    (_, fig4), = example_specs("figure-4")
    assert fig4.states == ("record", "population", "percentile", "maximum")


def test_figure_5_minimum_unreachable_maximum_near_0_12():
    (_, spec), = example_specs("figure-5")
    analysis = spec.run()
    by_target = {m.target: m for m in analysis.maps}
    assert spec.max_risk == INCOME_MAX_RISK == 1 / 5000**2
    assert not best_under_risk([by_target["min"]], spec.max_risk).reachable
    maximum = best_under_risk([by_target["max"]], spec.max_risk)
    assert 0.05 <= maximum.value <= 0.25  # the paper: 0.12 S^2
    efficiency = by_target["max"].efficiency[list(by_target["max"].values).index(maximum.value)]
    assert 0.85 <= efficiency <= 0.93  # the paper: 89% at 0.12 S^2


def test_figure_6_percentile_knowledge_is_riskier_than_index_knowledge():
    (_, spec), = example_specs("figure-6")
    maps = {m.knowledge: m for m in spec.run().maps}
    assert np.mean(maps["position"].risk > maps["index"].risk) >= 0.8


def test_figure_7_unequal_variance_keeps_more_utility_at_the_bound():
    (_, equal), (_, unequal) = example_specs("figure-7")
    assert unequal.simulation.method_options["unequal_above"] == 35000.0
    best_equal = best_under_risk(list(equal.run().maps), equal.max_risk)
    best_unequal = best_under_risk(list(unequal.run().maps), unequal.max_risk)
    assert best_unequal.reachable and best_equal.reachable
    assert best_unequal.utility >= best_equal.utility


def test_every_example_opens_a_view_drawn_like_its_figure():
    from rumap.present.examples import VIEWS, Example

    for example in EXAMPLES.values():
        assert example.view == ("each-curve" if example.needs_engine else "analytic")
        assert example.view in VIEWS
    with pytest.raises(InputError, match="unknown view 'worst'"):
        Example("t", "Figure 0", "d", lambda: [], view="worst")
