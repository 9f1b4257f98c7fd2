"""Timings of tables from microdata and of the R-U maps of protected tables.

Run: .venv/bin/python benchmarks/bench_table_maps.py
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from rumap.io.data import BUNDLED_DATA, read_table
from rumap.maps.tables import protection_map, rounding_base_map, rule_map
from rumap.tables.microdata import table_from_microdata


def _time(label: str, func) -> object:
    start = time.perf_counter()
    out = func()
    print(f"{label}: {time.perf_counter() - start:.2f} s")
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    n = 100_000
    frame = pd.DataFrame({"region": rng.integers(0, 50, n).astype(str), "activity": rng.integers(0, 20, n).astype(str),
                          "size": rng.integers(0, 5, n).astype(str), "turnover": rng.lognormal(5, 2, n)})
    table = _time(f"table from {n:,} records, 50 x 20 x 5 layers", lambda: table_from_microdata(
        frame, "region", "activity", "size", response="turnover"))
    _time("p% rule on its contributions (layer total, 1,071 cells)",
          lambda: table.primary("p-percent", p=10))
    persons = read_table(BUNDLED_DATA["persons (synthetic, categorical keys)"])
    small = table_from_microdata(persons, "region", "marital", response="income")
    primary = small.primary("p-percent", p=10)
    _time(f"protection map, persons region x marital (12 x 4), {len(primary)} primaries, P in 5, 10, 20, 40",
          lambda: protection_map(small.published(), primary, [5.0, 10.0, 20.0, 40.0]))
    _time("threshold-rule map, same table, threshold in 2, 3, 5, 10",
          lambda: rule_map(small, "threshold", [2.0, 3.0, 5.0, 10.0]))
    _time("rounding-base map, same table, b in 10 .. 100,000",
          lambda: rounding_base_map(small.published(), [10.0, 100.0, 1000.0, 10000.0, 100000.0]))


if __name__ == "__main__":
    main()
