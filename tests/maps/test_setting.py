"""The analytic setting's inputs taken from data (rumap/maps/setting.py): sigma^2 is the sample variance S^2."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rumap.maps.analytic import risk_sample, state_risk
from rumap.maps.setting import AnalyticSetting, sample_variance
from rumap.specs import DATA_STATISTICS

DATA = Path(__file__).resolve().parents[2] / "data"


def test_the_sample_variance_is_the_table_1_figure():
    # Duncan et al. (2001), Table 1 income data: n = 177, sd 13.3K, U(unmasked) = n / S^2 = 1.0E-06
    x = pd.read_csv(DATA / "income.csv")["income"].to_numpy(dtype=float)
    assert x.size == 177
    assert sample_variance(x) ** 0.5 == pytest.approx(13_300, abs=50)
    assert x.size / sample_variance(x) == pytest.approx(1.0e-6, rel=0.01)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_place_that_reads_sigma2_from_data_reads_the_same_number(seed):
    x = np.random.default_rng(seed).lognormal(size=50) * 1000
    # the previous computation of each place (np.var with ddof = 1) and a second one
    assert sample_variance(x) == float(np.var(x, ddof=1))
    assert sample_variance(x) == pytest.approx(statistics.variance(x.tolist()), rel=1e-12)
    assert AnalyticSetting.from_data(x).sigma2 == sample_variance(x)
    assert DATA_STATISTICS["variance"](x) == sample_variance(x)
    # the sample state's risk (Eq 3) with sigma2 from the data, as given explicitly
    setting = AnalyticSetting(n=x.size, sigma2=sample_variance(x), mu=float(np.mean(x)), data=x)
    lam = np.array([0.0, 1e5, 1e6])
    np.testing.assert_array_equal(state_risk("sample", lam, setting),
                                  state_risk("sample", lam, AnalyticSetting.from_data(x)))
    np.testing.assert_array_equal(risk_sample(lam, x), risk_sample(lam, x, sigma2=float(np.var(x, ddof=1))))
