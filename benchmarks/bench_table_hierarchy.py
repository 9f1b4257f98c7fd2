"""Timing of a hierarchical magnitude table of 1,428 cells protected at every level (issue 40).

2,000 firms; a region hierarchy of three levels (Total > 3 regions > 24
provinces, codes N01 ...) crossed with an activity hierarchy of three levels
(Total > 5 sections > 45 divisions, codes A01 ...): 28 x 51 = 1,428 cells, a
magnitude table of turnover, primaries by the p% rule, protected by
:func:`rumap.tables.table_suppression.suppress_table`'s default method.

Run: .venv/bin/python benchmarks/bench_table_hierarchy.py [--rule threshold|dominance|p-percent] [--csv FILE]
(``--csv`` writes the firms, for the command line's ``table suppress --microdata``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from rumap.tables.hierarchy import from_prefixes
from rumap.tables.ndtable import build_table
from rumap.tables.table_suppression import suppress_table

RULES = {"threshold": {"threshold": 3}, "dominance": {"n": 1, "k": 0.6}, "p-percent": {"p": 10.0}}


def firms(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """``n`` firms with a province (3 regions x 8), a division (5 sections x 9) and a turnover."""
    rng = np.random.default_rng(seed)
    region = rng.integers(0, 3, n)
    province = rng.integers(1, 9, n)
    section = rng.integers(0, 5, n)
    division = rng.integers(1, 10, n)
    return pd.DataFrame({"region": [f"{'NSW'[r]}{p:02d}" for r, p in zip(region, province, strict=True)],
                         "activity": [f"{'ABCDE'[s]}{d:02d}" for s, d in zip(section, division, strict=True)],
                         "turnover": np.round(rng.lognormal(3, 1.5, n), 2)})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rule", default="p-percent", choices=list(RULES))
    parser.add_argument("--csv")
    args = parser.parse_args()
    frame = firms()
    if args.csv:
        frame.to_csv(args.csv, index=False)
    hierarchies = {d: from_prefixes(sorted(frame[d].unique()), [1, 3]) for d in ("region", "activity")}
    start, cpu = time.perf_counter(), time.process_time()
    table = build_table(frame, ["region", "activity"], hierarchies, "turnover")
    mask = table.primary_mask(args.rule, **RULES[args.rule])
    built = time.perf_counter() - start
    result = suppress_table(table, mask, protection=10.0)
    total, cpu = time.perf_counter() - start, time.process_time() - cpu
    counts = result.counts()
    print(f"{table.size:,} cells ({' x '.join(map(str, table.shape))}), {int((table.frequencies == 0).sum())} empty, "
          f"{counts['primary']} primary ({args.rule}), {counts['secondary']} secondary; cost {result.cost:,.2f}, "
          f"{result.method}, {result.status}; built in {built:.2f} s, protected in {total - built:.2f} s "
          f"({cpu:.2f} s of CPU in all)")


if __name__ == "__main__":
    main()
