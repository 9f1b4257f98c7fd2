"""Make data/income.csv: a synthetic stand-in for the household incomes of Table 1.

Duncan, Keller-McNulty & Stokes (2001), section 4, map the household income of
part-time private school teachers (NCES Teacher Followup Survey, item TFS376).
The microdata are confidential; the paper publishes only Table 1. This script
makes n = 177 incomes (in dollars) with exactly those summary statistics:
mean $20.1K, sd $13.3K, min $2K, 1st percentile $2K, 10th $7.2K, 90th $35K,
99th $70K and max $95.2K. Percentiles are sample percentiles x_(ceil(np))
(numpy's ``method="inverted_cdf"``), the order statistics Y_(np) of the paper;
so the 99th percentile is the record worth $70K, the paper's Figure 6 target.

The order statistics at the published ranks are fixed; the records between
them are a seeded log-normal sample mapped into each gap and bent by a power
``t ** gamma`` whose exponents are solved so that the mean and the standard
deviation come out as published. Values are rounded to whole dollars.

Run: ``python scripts/make_income_data.py`` (writes data/income.csv).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import optimize

SEED = 20011
N = 177
MEAN, SD = 20_100.0, 13_300.0
# 1-based rank -> value; ranks ceil(p n) for p = 0.01, 0.10, 0.90, 0.99.
ANCHORS = {1: 2_000.0, 2: 2_000.0, 18: 7_200.0, 160: 35_000.0, 176: 70_000.0, 177: 95_200.0}
OUT = Path(__file__).resolve().parent.parent / "data" / "income.csv"


def _gaps() -> list[tuple[int, int]]:
    ranks = sorted(ANCHORS)
    return [(a, b) for a, b in zip(ranks[:-1], ranks[1:], strict=True) if b - a > 1]


def make_income(seed: int = SEED) -> np.ndarray:
    """The sorted synthetic incomes, shape (177,), in dollars."""
    rng = np.random.default_rng(seed)
    gaps = _gaps()
    # positions in (0, 1) inside each gap, from a sorted log-normal sample
    positions = []
    for a, b in gaps:
        draw = np.sort(rng.lognormal(0.0, 0.6, size=b - a - 1))
        positions.append((np.arange(1, b - a) + 0.5 * (draw / draw.max() - 0.5)) / (b - a))

    def build(gammas: np.ndarray) -> np.ndarray:
        x = np.empty(N)
        for rank, value in ANCHORS.items():
            x[rank - 1] = value
        for (a, b), t, g in zip(gaps, positions, gammas, strict=True):
            lo, hi = ANCHORS[a], ANCHORS[b]
            x[a:b - 1] = lo + (hi - lo) * np.clip(t, 1e-9, 1 - 1e-9) ** g
        return x

    def misfit(log_g: np.ndarray) -> np.ndarray:
        x = build(np.exp(np.r_[0.0, log_g]))
        return np.array([(x.mean() - MEAN) / MEAN, (x.std(ddof=1) - SD) / SD])

    solution = optimize.least_squares(misfit, x0=np.zeros(len(gaps) - 1), xtol=1e-14, ftol=1e-14)
    x = np.round(build(np.exp(np.r_[0.0, solution.x])))
    return np.sort(x)


def main() -> None:
    x = make_income()
    order = np.random.default_rng(SEED + 1).permutation(N)  # records in survey order, not sorted
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as fh:
        fh.write("income\n")
        fh.writelines(f"{int(v)}\n" for v in x[order])
    q = np.quantile(x, [0.01, 0.10, 0.90, 0.99], method="inverted_cdf")
    print(f"wrote {OUT}: n={x.size} mean={x.mean():.1f} sd={x.std(ddof=1):.1f} min={x.min():.0f} "
          f"p01={q[0]:.0f} p10={q[1]:.0f} p90={q[2]:.0f} p99={q[3]:.0f} max={x.max():.0f}")


if __name__ == "__main__":
    main()
