"""The empirical map as a plain numpy loop: the baseline that ``bench_peers.py`` times rumap against.

It imports numpy alone, so that it can also be timed as a whole process.
"""

from __future__ import annotations

import numpy as np


def naive_map(x: np.ndarray, values: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """The empirical map as a plain loop: per replicate and value, mask, one partition at the targets' ranks."""
    n = x.size
    order = np.argsort(x, kind="stable")
    ranks = np.array([n, 1, max(1, round(0.01 * n)), max(1, round(0.10 * n)), round(0.90 * n), round(0.99 * n)])
    records = order[ranks - 1]
    truth = x[records]
    sd = x.std(ddof=1)
    rng = np.random.default_rng(seed)
    errors = np.zeros((len(values), 2 * len(ranks)))
    for _ in range(replicates):
        noise = rng.standard_normal(n) * sd
        for j, lambda2 in enumerate(values):
            y = x + np.sqrt(lambda2) * noise
            stats = np.partition(y, np.unique(ranks - 1))
            errors[j, 0::2] += (truth - y[records]) ** 2
            errors[j, 1::2] += (truth - stats[ranks - 1]) ** 2
            errors[j, 0] += y.mean() * 0  # the mean utility's pass
    return errors / replicates
