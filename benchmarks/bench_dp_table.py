"""Timing of a DP count table of about 10^5 cells with hierarchies, beside OpenDP's own example of noisy counts.

200,000 records over three dimensions: 100 codes under 10 groups (prefixes of
length 2 and 3), 40 codes under 4 groups (lengths 1 and 2) and 15 flat codes:
111 x 45 x 16 = 79,920 cells, 60,000 of them finest. :func:`rumap.tables.dp.dp_table`
releases it (noise on the finest cells, every subtotal summed, counts made
non-negative integers), seeded (numpy draws) and unseeded (OpenDP's sampler).
Beside it, OpenDP's documented way of releasing a vector of counts: a
``make_laplace`` measurement over the same 60,000 finest counts, the noise
alone, without a table's subtotals or post-processing.

Run: .venv/bin/python benchmarks/bench_dp_table.py [--records N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from rumap.tables.dp import dp_table
from rumap.tables.hierarchy import from_prefixes


def microdata(n: int, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """``n`` records over the three dimensions, and the hierarchies of the first two."""
    rng = np.random.default_rng(seed)
    a = [f"{i:03d}" for i in range(100)]
    b = [f"{i:02d}" for i in range(40)]
    c = [f"c{i}" for i in range(15)]
    frame = pd.DataFrame({"a": rng.choice(a, n), "b": rng.choice(b, n), "c": rng.choice(c, n)})
    return frame, {"a": from_prefixes(a, [2, 3]), "b": from_prefixes(b, [1, 2])}


def _timed(label: str, work) -> object:
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    print(f"{label}: {time.perf_counter() - wall:.2f} s ({time.process_time() - cpu:.2f} s CPU)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    args = parser.parse_args()
    frame, hierarchies = microdata(args.records)
    import opendp.prelude as dp

    dp.enable_features("contrib")
    seeded = _timed("dp_table, laplace, seeded (numpy)",
                    lambda: dp_table(frame, ["a", "b", "c"], hierarchies, epsilon=1.0, seed=1))
    print(f"  {seeded.table.size:,} cells, {int(seeded.finest.sum()):,} finest; epsilon {seeded.privacy.epsilon}")
    _timed("dp_table, discrete-gaussian, seeded", lambda: dp_table(frame, ["a", "b", "c"], hierarchies,
                                                                   mechanism="discrete-gaussian", rho=0.5, seed=1))
    _timed("dp_table, laplace, OpenDP's sampler", lambda: dp_table(frame, ["a", "b", "c"], hierarchies, epsilon=1.0))
    _timed("to_dict (the command line's JSON)", seeded.to_dict)
    counts = [int(v) for v in seeded.original[seeded.finest]]
    measurement = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=1.0)
    _timed(f"OpenDP's example: make_laplace on the {len(counts):,} finest counts", lambda: measurement(counts))


if __name__ == "__main__":
    main()
