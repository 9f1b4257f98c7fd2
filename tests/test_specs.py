"""Specifications convert to JSON and back without loss and re-run to the same maps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.fingerprint import array_digest
from rumap.specs import Analysis, AnalyticSpec, DataSource, EmpiricalSpec, spec_from_dict

PAPER = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population", "percentile", "maximum"), max_risk=5.0)


def _roundtrip(spec):
    return spec_from_dict(json.loads(json.dumps(spec.to_dict())))


def test_analytic_spec_roundtrip_and_paper_optimum():
    assert _roundtrip(PAPER) == PAPER
    analysis = PAPER.run()
    assert [m.knowledge for m in analysis.maps] == list(PAPER.states)
    record = analysis.optima[0]
    assert record.lambda2 == pytest.approx(0.2) and record.utility == pytest.approx(200 / 1.2)
    assert analysis.maps[1].risk[0] == pytest.approx(0.995, abs=5e-4)
    again = _roundtrip(PAPER).run()
    for a, b in zip(analysis.maps, again.maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
        np.testing.assert_array_equal(a.utility, b.utility)
    assert {(c.states, round(c.lambda2, 3)) for c in analysis.crossings} >= {(("record", "percentile"), 0.085)}


def test_data_source_checks_the_data_it_describes():
    x = np.random.default_rng(3).lognormal(10, 0.6, size=150)
    source = DataSource.of("upload", "incomes.csv", ["income"], x)
    assert source.digest == array_digest(x.reshape(-1, 1)) and source.n == 150 and source.values is None
    spec = AnalyticSpec(n=150, sigma2=float(x.var(ddof=1)), mu=float(x.mean()), states=("sample", "maximum"),
                        lambda2_stop=float(x.var()), data=source)
    maps = spec.run(x).maps
    with pytest.raises(InputError, match="load it first"):
        spec.run()
    with pytest.raises(InputError, match="are not 'incomes.csv'"):
        spec.run(x * 1.0001)
    inline = AnalyticSpec(**{**spec.__dict__, "data": source.with_values(x)})
    restored = _roundtrip(inline)
    assert restored.data.values is not None and "values" in json.dumps(restored.to_dict())
    assert "values" not in json.dumps(spec.to_dict())
    for a, b in zip(maps, restored.run().maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
    with pytest.raises(InputError, match="not the data this map was computed on"):
        source.with_values(x[::-1])


@pytest.mark.parametrize(("changes", "message"), [
    ({"states": ()}, "at least one knowledge state"),
    ({"states": ("psychic",)}, "unknown state 'psychic'"),
    ({"states": ("sample",)}, "needs a data column"),
    ({"states": ("mean-target",)}, "needs the target value tau"),
    ({"lambda2_start": 2.0, "lambda2_stop": 1.0}, "start <= stop"),
    ({"lambda2_num": 0}, "grid_num"),
    ({"max_risk": -1.0}, "max_risk"),
    ({"family": "cauchy"}, "family must be one of"),
])
def test_bad_analytic_specs(changes, message):
    with pytest.raises(InputError, match=message):
        AnalyticSpec(**{**PAPER.__dict__, **changes})


def test_spec_from_dict_refuses_bad_input():
    with pytest.raises(InputError, match="unknown map kind"):
        spec_from_dict({"kind": "magic"})
    with pytest.raises(InputError, match="must be a JSON object"):
        spec_from_dict([1, 2])
    with pytest.raises(InputError, match="^spec.lambda2 is missing"):
        spec_from_dict({"kind": "analytic", "n": 10})
    with pytest.raises(InputError, match="^spec.simulation: "):
        spec_from_dict({"kind": "empirical", "simulation": {}})


def test_empirical_spec_roundtrip_without_running():
    x = np.arange(10.0)
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.1, 0.2], "replicates": 5},
                         data=DataSource.of("bundled", "income", ["income"], x), max_risk=4e-8)
    assert _roundtrip(spec) == spec
    assert spec.title() == "noise, income [income]"


def test_analysis_to_dict_and_frame():
    analysis = PAPER.run()
    named = analysis.renamed("Figure 4")
    frame = named.to_frame()
    assert set(frame["analysis"]) == {"Figure 4"} and len(frame) == 4 * 301
    d = named.to_dict()
    assert d["name"] == "Figure 4" and d["spec"]["kind"] == "analytic"
    assert d["maps"][0]["risk"][0] is None  # infinite record risk at lambda2 = 0
    assert d["optima"][0]["lambda2"] == pytest.approx(0.2)
    json.dumps(d, allow_nan=False)
    assert isinstance(named, Analysis)
