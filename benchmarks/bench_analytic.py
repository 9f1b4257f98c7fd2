"""Timing of the analytic map: every state over 10,000 noise variances (target: under 10 ms).

Run: .venv/bin/python benchmarks/bench_analytic.py
"""

from __future__ import annotations

import time

import numpy as np

from rumap.maps.analytic import STATES, analytic_map
from rumap.maps.setting import AnalyticSetting


def main() -> None:
    rng = np.random.default_rng(0)
    data = rng.normal(0, 1, 200)
    setting = AnalyticSetting.from_data(data, tau=0.5)
    lam = np.linspace(0, 3, 10_000)
    states = list(STATES)
    analytic_map(states, lam, setting)  # warm-up
    repeats = 50
    start = time.perf_counter()
    for _ in range(repeats):
        analytic_map(states, lam, setting)
    per_call = (time.perf_counter() - start) / repeats
    print(f"analytic map, {len(states)} states x {lam.size} lambda2 values: {per_call * 1e3:.2f} ms per map "
          f"(target < 10 ms)")


if __name__ == "__main__":
    main()
