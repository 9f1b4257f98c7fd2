"""Timings of the simulation engine (printed, not asserted).

Targets on the 2-core reference machine: the paper's set-up (n = 177, M = 200,
20 values of lambda2) under 0.3 s; n = 100,000, M = 200, 20 values, targets
max/min/p01/p10/p90/p99 with index and position knowledge and the mean utility
under 10 s and 1.5 GB peak memory.

Run: ``python benchmarks/bench_simulation.py [--large-n N]``
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rumap.budget import DEFAULT_BUDGET  # noqa: E402
from rumap.io.data import numeric_column, read_table  # noqa: E402
from rumap.maps.simulation import SimulationConfig, simulate  # noqa: E402

TARGETS = ("max", "min", "p01", "p10", "p90", "p99")


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best_of(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large-n", type=int, default=100_000)
    args = parser.parse_args()

    income = numeric_column(read_table(ROOT / "data" / "income.csv"), "income")
    paper = SimulationConfig(values=tuple(np.linspace(0.05, 1.0, 20)), targets=TARGETS,
                             knowledge=("index", "position"), method_options={"relative": True, "truncate_below": 0.0},
                             replicates=200, seed=1)
    simulate(income, paper)  # warm-up (imports, caches)
    t = best_of(5, lambda: simulate(income, paper))
    print(f"paper set-up (n=177, M=200, 20 values, 6 targets x index/position, mean utility, Eq 11 truncation): "
          f"{t:.3f} s (target < 0.3 s)")

    micro = SimulationConfig(method="microaggregation", values=tuple(range(2, 22)), targets=TARGETS,
                             knowledge=("index", "position"), utility="variance")
    t = best_of(3, lambda: simulate(income, micro))
    print(f"microaggregation map (MDAV, n=177, k = 2..21, computed once per k): {t:.3f} s")

    x = np.random.default_rng(7).lognormal(10, 0.6, size=args.large_n)
    large = SimulationConfig(values=tuple(np.linspace(0.05, 1.0, 20)), targets=TARGETS,
                             knowledge=("index", "position"), method_options={"relative": True},
                             replicates=200, seed=1)
    # the default work limit refuses n = 10^6 x 200 x 20; this run asks for it
    budget = dataclasses.replace(DEFAULT_BUDGET, work=max(DEFAULT_BUDGET.work, 2.0 * args.large_n * 200 * 20))
    start = time.perf_counter()
    simulate(x, large, budget=budget)
    t = time.perf_counter() - start
    print(f"n={args.large_n:,} (M=200, 20 values, 6 targets x index/position, mean utility): {t:.2f} s "
          f"(target < 10 s), peak RSS {peak_rss_mb():.0f} MB (target < 1536 MB)")


if __name__ == "__main__":
    main()
