"""Timing of the disclosure risk measures at n = 100,000 records.

Distance-based record linkage with 5 numeric keys (KD-tree), probabilistic
linkage in blocks of 1,000, interval disclosure, and the identity risk of a
4-variable key.

Run: .venv/bin/python benchmarks/bench_risk.py
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from rumap.risk.identity import identity_risk_from_data
from rumap.risk.interval import interval_disclosure
from rumap.risk.linkage import distance_linkage, probabilistic_linkage


def timed(label: str, fn, repeats: int = 1):
    fn()  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        result = fn()
    seconds = (time.perf_counter() - start) / repeats
    print(f"{label}: {seconds:.3f} s")
    return result


def main() -> None:
    n = 100_000
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 5))
    y = x + rng.normal(scale=0.3, size=x.shape)
    result = timed(f"distance linkage, n = {n:,}, 5 numeric keys (KD-tree)", lambda: distance_linkage(x, y), 3)
    print(f"  linked correctly: {result.linked_correctly:.4f}")
    mixed_o = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "region": rng.choice(list("abcdefgh"), n),
                            "size": rng.integers(0, 10, n)})
    mixed_m = mixed_o.assign(a=y[:, 0], b=y[:, 1])
    result = timed(f"distance linkage, n = {n:,}, 2 numeric + 1 nominal (8) + 1 ordinal (10) keys (KD-tree)",
                   lambda: distance_linkage(mixed_o, mixed_m, kinds={"size": "ordinal"}))
    print(f"  linked correctly: {result.linked_correctly:.4f}")
    result = timed(f"probabilistic linkage, n = {n:,}, 5 keys, blocks of 1,000",
                   lambda: probabilistic_linkage(x, y, block_size=1000))
    print(f"  linked correctly: {result.linked_correctly:.4f}")
    result = timed(f"rank interval disclosure, n = {n:,}, 5 variables", lambda: interval_disclosure(x, y), 3)
    print(f"  risk: {result.risk:.4f}")
    persons = pd.DataFrame({"age": rng.integers(0, 100, n), "sex": rng.integers(0, 2, n),
                            "region": rng.integers(0, 50, n), "household": rng.integers(1, 10, n)})
    result = timed(f"identity risk, n = {n:,}, key of 4 variables",
                   lambda: identity_risk_from_data(persons, ["age", "sex", "region", "household"], N=2_000_000, a=500), 3)
    print(f"  sample uniques {result.sample_uniques}, risk {result.risk:.4g}")
    small_x, small_y = x[:5000], y[:5000]
    timed("distance linkage, n = 5,000, 5 keys, brute force (for comparison)",
          lambda: distance_linkage(small_x, small_y, engine="brute"))


if __name__ == "__main__":
    main()
