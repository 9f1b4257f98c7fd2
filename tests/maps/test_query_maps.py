"""R-U maps of camouflage and query auditing: the protection guarantees bound R; second computations of U."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.databases.audit import audit_queries
from rumap.errors import InputError
from rumap.maps.databases import audit_map, camouflage_map, narrowest_relative_width, random_workload

INCOME = np.round(np.exp(np.random.default_rng(4).normal(9.7, 0.6, 40)), 2)


def test_camouflage_risk_never_passes_the_width_guarantee():
    widths = np.array([2.0, 10.0, 30.0, 60.0])
    ru = camouflage_map(INCOME, widths, queries=15, records=12, seed=2)
    # Eq 1-2: every derived interval holds [a - w a, a + w a], of relative width 2 w / 100
    assert (ru.risk <= 1 / (2 * widths / 100) + 1e-6).all()
    assert ru.utility[0] > ru.utility[-1]  # wider camouflage, wider guarantees
    assert ru.method == "camouflage" and ru.config["records"] == 12
    assert ru.risk == pytest.approx(1 / np.array(ru.config["narrowest_relative_width"]))
    assert ru.utility == pytest.approx(1 / np.array(ru.config["mean_relative_guarantee_width"]))


@pytest.mark.parametrize("seed", [0, 1, 2, 7])
def test_camouflage_curves_are_monotone_in_the_width(seed):
    widths = np.linspace(2.0, 60.0, 12)
    ru = camouflage_map(INCOME, widths, queries=15, records=12, seed=seed)
    # the same random draws at every width: every vector moves w |a_i| times a fixed draw, so each guarantee
    # widens in proportion to w and every answer interval holds the narrower one
    assert (np.diff(ru.utility) < 0).all(), ru.utility
    assert (np.diff(ru.risk) <= 1e-9 * ru.risk[:-1]).all(), ru.risk
    widths_kept = np.array(ru.config["mean_relative_guarantee_width"])
    np.testing.assert_allclose(widths_kept / widths, widths_kept[0] / widths[0], rtol=1e-9)


def test_audit_map_shares_and_guarantee():
    levels = np.array([0.0, 10.0, 40.0])
    ru = audit_map(INCOME, levels, queries=15, records=10, seed=3)
    assert ((ru.utility >= 0) & (ru.utility <= 1)).all()
    assert (ru.risk[1:] <= 1 / (2 * levels[1:] / 100) + 1e-6).all()
    assert np.isfinite(ru.risk[0])  # exact disclosure is always refused


def test_audit_map_equals_the_auditor_on_the_same_workload():
    rng = np.random.default_rng(5)
    values = INCOME[:8]  # fewer than records: no sampling, the workload comes first from the generator
    workload = random_workload(8, 12, rng)
    ru = audit_map(values, [20.0], queries=12, records=10, seed=5)
    log = audit_queries(values, workload, protection=20.0)
    assert ru.utility[0] == pytest.approx(log.share_answered)
    assert ru.risk[0] == pytest.approx(1 / narrowest_relative_width(values, log.low, log.high))


def test_bad_inputs():
    with pytest.raises(InputError):
        camouflage_map([0.0, 0.0, 0.0], [10.0])
    with pytest.raises(InputError):
        audit_map([1.0, -2.0, 3.0], [10.0])
    with pytest.raises(InputError):
        camouflage_map([1.0, 2.0], [0.0])


def test_a_known_lower_bound_lies_within_the_data_magnitude_for_every_query_function():
    from rumap._validation import MAX_MAGNITUDE, PARAMETERS

    entry = PARAMETERS["known_bound"]
    assert (entry.low, entry.high) == (-MAX_MAGNITUDE, MAX_MAGNITUDE) and entry.contains(-MAX_MAGNITUDE)
    for call in (lambda lower: camouflage_map(INCOME, [5.0], lower=lower),
                 lambda lower: audit_map(INCOME, [5.0], lower=lower),
                 lambda lower: audit_queries(INCOME, ["SUM:*"], lower=lower)):
        with pytest.raises(InputError, match=r"^lower must be a number in \[-1e\+150, 1e\+150\], got -1.1e\+150$"):
            call(-1.1e150)
