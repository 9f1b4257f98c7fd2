"""Timings of the table measures: LP bounds of suppressed cells, linked tables, sensitivity rules, rounding map.

Run: .venv/bin/python benchmarks/bench_tables.py
"""

from __future__ import annotations

import time

import numpy as np

from rumap.tables.bounds import suppression_bounds
from rumap.tables.linked import linked_bounds
from rumap.tables.published import PublishedTable, paper_table1
from rumap.tables.rounding import rounding_ru_map
from rumap.tables.rules import apply_rule


def _time(label: str, func, repeats: int = 3) -> None:
    func()  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        func()
    print(f"{label}: {(time.perf_counter() - start) / repeats * 1e3:.1f} ms")


def main() -> None:
    rng = np.random.default_rng(0)
    _time("Table 1 of the paper, 4 suppressed cells (8 LPs)", lambda: suppression_bounds(paper_table1()))
    cells = rng.integers(0, 500, (20, 20)).astype(float)
    mask = rng.random((20, 20)) < 0.1
    table = PublishedTable.from_cells(cells, suppressed=mask)
    _time(f"20 x 20 table, {int(mask.sum())} suppressed cells", lambda: suppression_bounds(table), repeats=1)
    cube = rng.integers(0, 50, (5, 5, 5)).astype(float)
    _time("5 x 5 x 5 cube released as AS, AR, SR (250 LPs)", lambda: linked_bounds(cube, ["AS", "AR", "SR"]),
          repeats=1)
    n = 1_000_000
    cell_of = rng.integers(0, 10_000, n).astype(str)
    values = rng.lognormal(3, 1.5, n)
    _time(f"p% rule on {n:,} contributions in 10,000 cells", lambda: apply_rule(cell_of, values, "p-percent", p=10),
          repeats=1)
    big = rng.integers(0, 10_000, (100, 100)).astype(float)
    _time("rounding R-U map, 100 x 100 table, 50 bases", lambda: rounding_ru_map(big, np.arange(2, 52)))


if __name__ == "__main__":
    main()
