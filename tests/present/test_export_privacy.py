"""No export carries a value, order statistic or aggregate of the data unless the user asks for it.

Every export the dashboard offers is made from maps computed on a private
column (analytic maps whose σ², μ and τ come from the data, and an empirical
map whose targets are the maximum, a percentile and a row): the curves as CSV
and JSON, the configuration, the HTML report and the figures (titles, labels,
hover text). None may contain any value of the column, any percentile, its
mean or its variance, in any of the formats the exports write numbers in. With
the explicit choices the same exports do carry them (so the search can fail),
and a configuration without them still loads back to the same maps once the
data are loaded.
"""

from __future__ import annotations

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.present.figures import analysis_figure
from rumap.present.report import config_json, curves_csv, curves_json, load_config, report_html
from rumap.specs import AnalyticSpec, DataSource, EmpiricalSpec, inputs_from_data

X = np.round(np.exp(np.random.default_rng(2026).normal(9.7, 0.6, size=150)), 2) + 0.01  # every value has cents
SOURCE = DataSource.of("upload", "private.csv", ["income"], X)


def _analytic():
    inputs = {"n": X.size, "sigma2": float(np.var(X, ddof=1)), "mu": float(X.mean()), "tau": float(X.max())}
    spec = AnalyticSpec(**inputs, states=("sample", "maximum", "minimum", "percentile", "mean-target"),
                        lambda2_stop=1e8, lambda2_num=11, max_risk=4e-8, data=SOURCE,
                        from_data=inputs_from_data(inputs, X))
    assert dict(spec.from_data) == {"sigma2": "variance", "mu": "mean", "tau": "maximum"}
    return spec.run(X).renamed("private analytic")


def _empirical():
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.1, 0.5, 1.0], "replicates": 20, "seed": 1,
                                     "targets": ["max", "min", "p90", "row:17"], "knowledge": ["index", "position"]},
                         data=SOURCE)
    return spec.run(X).renamed("private empirical")


def _secrets() -> set[str]:
    """Every value of X, its percentiles, mean and variance, as the exports could write them."""
    numbers = [*X, *np.percentile(X, [1, 5, 10, 25, 50, 75, 90, 95, 99]), X.mean(), np.var(X, ddof=1),
               np.var(X), X.std(ddof=1)]
    shown = set()
    for v in numbers:
        v = float(v)
        shown |= {repr(v), f"{v:.6g}", f"{v:.4g}", f"{v:.5g}", f"{v:.8g}", f"{v:.10g}", f"{v:,.2f}"}
    return {s for s in shown if "." in s or "e" in s}  # bare integers could occur by chance (e.g. in a digest)


def _exports(analyses, aggregates: bool = False) -> dict[str, str]:
    out = {"curves CSV": curves_csv(analyses),
           "curves JSON": curves_json(analyses, aggregates, aggregates),
           "configuration": config_json(analyses, aggregates=aggregates),
           "HTML report": report_html(analyses, aggregates=aggregates)}
    for a in analyses:
        out[f"figure {a.name}"] = analysis_figure(a, title=a.name).to_json()
    return out


@pytest.fixture(scope="module")
def analyses():
    return [_analytic(), _empirical()]


def test_no_export_holds_a_value_order_statistic_or_aggregate_by_default(analyses):
    secrets = _secrets()
    for name, text in _exports(analyses).items():
        found = sorted(s for s in secrets if s in text)
        assert not found, f"{name} holds data values: {found[:5]}"
    config = config_json(analyses)
    assert SOURCE.digest in config and '"n": 150' in config and "private.csv" in config  # names, counts, digest


def test_the_explicit_choice_puts_them_in(analyses):
    secrets = _secrets()
    exports = _exports(analyses, aggregates=True)
    assert any(s in exports["configuration"] for s in secrets)  # the mean and variance
    assert any(s in exports["curves JSON"] for s in secrets)  # the targets' values
    with_values = config_json(analyses, data_values={SOURCE.digest: X})
    assert repr(float(X[0])) in with_values


def test_a_configuration_without_aggregates_loads_back_with_the_data(analyses):
    text = config_json(analyses)
    with pytest.raises(InputError, match="load it first"):
        load_config(text)  # the withheld inputs need the data
    loaded = load_config(text, data_values={SOURCE.digest: X})
    for (name, spec), original in zip(loaded, analyses, strict=True):
        assert name == original.name and spec == original.spec
        for a, b in zip(spec.run(X).maps, original.maps, strict=True):
            np.testing.assert_array_equal(a.risk, b.risk)


def test_other_data_do_not_fill_withheld_inputs(analyses):
    with pytest.raises(InputError, match="not 'private.csv'"):
        load_config(config_json(analyses), data_values={SOURCE.digest: X[::-1]})


def test_from_data_is_checked():
    with pytest.raises(InputError, match="needs the data source"):
        AnalyticSpec(n=10, sigma2=1.0, states=("record",), from_data=(("mu", "mean"),))
    with pytest.raises(InputError, match="cannot be the data's 'maximum'"):
        AnalyticSpec(n=10, sigma2=1.0, states=("record",), data=SOURCE, from_data=(("sigma2", "maximum"),))
    with pytest.raises(InputError, match="only sigma2, mu, tau"):
        AnalyticSpec(n=10, sigma2=1.0, states=("record",), data=SOURCE, from_data=(("n", "mean"),))
