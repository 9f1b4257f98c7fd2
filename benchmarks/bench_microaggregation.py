"""Timing of MDAV microaggregation: 5 variables, k = 3, n = 5,000 / 20,000 / 100,000; then the other
procedures (MWA, optimal univariate, rank swapping) once each.

Targets: faster than sdcMicro's C++ MDAV on the same machine (about 0.15 s at
n = 5,000 and 2.5 s at n = 20,000), and n = 100,000 in under a minute.
Synthetic data with a fixed seed: correlated log-normal variables.

Run: .venv/bin/python benchmarks/bench_microaggregation.py [N ...]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from rumap.masking.microaggregation import microaggregate
from rumap.masking.swapping import rank_swap

TARGETS = {5_000: "target < 0.15 s (sdcMicro C++)", 20_000: "target < 2.5 s (sdcMicro C++)",
           100_000: "target < 60 s"}
#: Runs per size; the best and the median are printed (the machine is shared, so timings vary).
REPEATS = {5_000: 7, 20_000: 3}


def synthetic(n: int, p: int = 5, seed: int = 0) -> np.ndarray:
    """Correlated log-normal data, like incomes and taxes."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=(n, 1))
    return np.exp(0.8 * common + 0.6 * rng.normal(size=(n, p)))


def main(sizes: list[int]) -> None:
    microaggregate(synthetic(500), 3, "mdav", standardize=True)  # warm-up
    for n in sizes:
        data = synthetic(n)
        times, cpu_times = [], []
        for _ in range(REPEATS.get(n, 1)):
            start, cpu_start = time.perf_counter(), time.process_time()
            result = microaggregate(data, 3, "mdav", standardize=True)
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
        print(f"MDAV n = {n:>7,}, p = 5, k = 3: best {min(times):7.3f} s, median {np.median(times):7.3f} s of "
              f"{len(times)} (CPU {min(cpu_times):.3f} s)  (100 SSE/SST = {100 * result.information_loss:.3f}, "
              f"{result.n_groups} groups)  {TARGETS.get(n, '')}", flush=True)


def others() -> None:
    """One run of each other procedure, for the README's table."""
    cases = [
        ("MWA, n = 2,000, p = 5, k = 3", lambda: microaggregate(synthetic(2_000), 3, "mwa", standardize=True)),
        ("optimal univariate, n = 100,000, k = 3", lambda: microaggregate(synthetic(100_000, 1), 3, "optimal")),
        ("rank swapping, n = 100,000, p = 5, 5% window", lambda: rank_swap(synthetic(100_000), 5.0, seed=1)),
    ]
    for name, run in cases:
        start = time.perf_counter()
        run()
        print(f"{name}: {time.perf_counter() - start:.3f} s", flush=True)


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]]
    main(sizes or list(TARGETS))
    if not sizes:
        others()
