"""Timings of the computations behind the dashboard: data digests, the Pareto frontier, the HTML report.

    .venv/bin/python benchmarks/bench_dashboard.py
"""

from __future__ import annotations

import time

import numpy as np

from rumap.fingerprint import array_digest
from rumap.maps.pareto import pareto_frontier
from rumap.present.examples import EXAMPLES, example_specs
from rumap.present.report import config_json, report_html
from rumap.result import RUMap


def best_of(func, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    x = np.random.default_rng(0).normal(size=(10_000_000, 1))
    print(f"digest of 10,000,000 values (80 MB): {best_of(lambda: array_digest(x)):.3f} s")

    rng = np.random.default_rng(1)
    maps = [RUMap(parameter="k", values=np.arange(1000), risk=np.sort(rng.random(1000))[::-1],
                  utility=np.sort(rng.random(1000))[::-1], method=f"m{i}") for i in range(20)]
    print(f"Pareto frontier of 20 maps x 1,000 points: {best_of(lambda: pareto_frontier(maps)) * 1e3:.1f} ms")

    start = time.perf_counter()
    analyses = [spec.run().renamed(name) for key in EXAMPLES for name, spec in example_specs(key)]
    print(f"the paper's Figures 2-7 ({len(analyses)} analyses, M = 200): {time.perf_counter() - start:.2f} s")
    html = report_html(analyses)
    seconds = best_of(lambda: report_html(analyses))
    print(f"HTML report of Figures 2-7: {seconds:.2f} s, {len(html) / 1e6:.1f} MB (plotly.js inlined once)")
    print(f"configuration JSON of Figures 2-7: {len(config_json(analyses)) / 1e3:.1f} kB")


if __name__ == "__main__":
    main()
