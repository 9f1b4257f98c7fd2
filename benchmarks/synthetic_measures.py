"""Seconds of each measure of rumap.risk.synthetic on an original, a release and a holdout of 10^5 records x 10.

Three files of the same distribution (a release drawn like the original: no copying), for three kinds of data:

- ``numeric``: 10 iid normal numeric columns (the KD-tree's worst case: ten dimensions);
- ``mixed``: 7 numeric + 3 categorical columns (5, 12 and 20 levels);
- ``categorical``: 10 categorical columns (5 to 20 levels).

Each measure is timed once (wall and CPU seconds), then the whole ``synthetic_measures`` (what ``python -m rumap
risk synthetic`` computes, with the paired masked-file measures when the files have the same size). ``--peers``
adds scikit-learn's exact ``NearestNeighbors`` (its own choice of tree or brute force) on the coordinates whose
Euclidean distance is the records' distance (:func:`rumap.risk.synthetic.record_coordinates`), for the search of
``nndr`` (two nearest originals of each release record): the peer's seconds beside rumap's.

Run: .venv/bin/python benchmarks/synthetic_measures.py [--n 100000] [--cases numeric mixed categorical] [--peers]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rumap.risk import synthetic  # noqa: E402

LEVELS = {"mixed": [5, 12, 20], "categorical": [5, 6, 8, 10, 12, 14, 15, 16, 18, 20]}
NUMERIC = {"numeric": 10, "mixed": 7, "categorical": 0}


def make_file(case: str, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` records of a case: iid standard normal numbers, uniform categories labelled ``L0``, ``L1``, ..."""
    data: dict[str, np.ndarray] = {f"x{i}": rng.normal(size=n) for i in range(NUMERIC[case])}
    for j, m in enumerate(LEVELS.get(case, [])):
        data[f"c{j}"] = np.array([f"L{v}" for v in range(m)])[rng.integers(0, m, n)]
    return pd.DataFrame(data)


def timed(label: str, fn: Callable[[], object]) -> tuple[object, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label:<22} {wall:7.2f} s  (cpu {cpu:6.2f} s)  {result}", flush=True)
    return result, wall


def sklearn_nndr_search(original: pd.DataFrame, release: pd.DataFrame) -> str:
    from sklearn.neighbors import NearestNeighbors

    o, r = synthetic.record_coordinates([original, release])
    distance, _ = NearestNeighbors(n_neighbors=2).fit(o).kneighbors(r)
    return f"median d1/d2 {np.median(np.where(distance[:, 1] > 0, distance[:, 0] / distance[:, 1], 0.0)):.6g}"


def run_case(case: str, n: int, peers: bool) -> None:
    rng = np.random.default_rng(44)
    original, release, holdout = (make_file(case, n, rng) for _ in range(3))
    columns = list(original.columns)
    keys, target = columns[-3:], columns[0]
    print(f"{case}: {n:,} records x {len(columns)} columns (keys {', '.join(keys)}; target {target})")
    calls = {
        "dcr_share": lambda: synthetic.dcr_share(original, release, holdout),
        "nndr": lambda: synthetic.nndr(original, release),
        "membership_advantage": lambda: synthetic.membership_advantage(original, release, holdout),
        "repu": lambda: synthetic.repu(original, release, keys),
        "disco": lambda: synthetic.disco(original, release, keys, target),
        "pmse": lambda: synthetic.pmse(original, release),
        "synthetic_measures": lambda: "done" if synthetic.synthetic_measures(original, release, holdout) else "",
    }
    seconds = {name: timed(name, call)[1] for name, call in calls.items()}
    if peers:
        _, peer = timed("sklearn NearestNeighbors", lambda: sklearn_nndr_search(original, release))
        print(f"  nndr: rumap {seconds['nndr']:.2f} s, scikit-learn's search alone {peer:.2f} s "
              f"(x{peer / seconds['nndr']:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="records of each file")
    parser.add_argument("--cases", nargs="+", choices=list(NUMERIC), default=list(NUMERIC))
    parser.add_argument("--peers", action="store_true", help="time scikit-learn's exact search beside nndr's")
    args = parser.parse_args()
    for case in args.cases:
        run_case(case, args.n, args.peers)


if __name__ == "__main__":
    main()
