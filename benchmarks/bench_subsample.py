"""Whole-process times of ``python -m rumap simulate`` on a large Parquet file, with and without ``--subsample``,
against the naive numpy loop (``naive_map.py``) reading the same column (printed, not asserted).

Each run is a fresh interpreter: imports, reading the file, the map. Printed per run: wall and CPU seconds
(user + system, of the process and its threads), peak RSS, and ``/proc/loadavg`` before and after (the machine
is shared: wall time means little under load, CPU time more). The target: the map at most 0.25x the naive
loop's time.

Run: ``python benchmarks/bench_subsample.py [--n 1000000] [--replicates 20] [--values 10] [--subsample 10000]``
(the file ``/tmp/rumap-bench/n<N>.parquet`` is written first if it is missing).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("max", "min", "p01", "p10", "p90", "p99")


def make_file(n: int, folder: Path) -> Path:
    """A Parquet file of n records: a lognormal ``x``, a correlated ``y`` and a small integer key ``k``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / f"n{n}.parquet"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(7)
        x = rng.lognormal(10, 0.6, size=n)
        table = pa.table({"x": x, "y": x * 0.5 + rng.normal(0, 1000, size=n), "k": rng.integers(0, 5, size=n)})
        pq.write_table(table, path, row_group_size=1_000_000)
    return path


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def whole_process(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS in MB of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--values", type=int, default=10)
    parser.add_argument("--subsample", type=int, default=10_000)
    parser.add_argument("--subsamples", type=int, default=10)
    parser.add_argument("--folder", default="/tmp/rumap-bench")
    parser.add_argument("--skip", action="append", default=[], help="full, subsample or naive: a run to leave out")
    args = parser.parse_args()
    path = make_file(args.n, Path(args.folder))
    grid = f"0.05:1:{args.values}"
    common = [sys.executable, "-m", "rumap", "simulate", "--data", str(path), "--column", "x", "--lambda2-frac", grid,
              *[a for t in TARGETS for a in ("--target", t)], "--replicates", str(args.replicates), "--seed", "1",
              "--work-limit", "1e12", "--json"]
    naive = ("import sys; sys.path[:0] = ['benchmarks']; import numpy as np, pyarrow.parquet as pq; "
             f"x = pq.read_table({str(path)!r}, columns=['x']).column('x').to_numpy(); "
             f"from naive_map import naive_map; naive_map(x, np.linspace(0.05, 1.0, {args.values}), "
             f"{args.replicates}, 1)")
    runs = {"full": common + ["--knowledge", "index", "--knowledge", "position"],
            "subsample": common + ["--knowledge", "index", "--subsample", str(args.subsample),
                                   "--subsamples", str(args.subsamples)],
            "naive": [sys.executable, "-c", naive]}
    print(f"n = {args.n:,}, M = {args.replicates}, {args.values} values of lambda2_frac, 6 targets "
          f"(naive and full: index and position knowledge; subsample: index, m = {args.subsample:,}, "
          f"B = {args.subsamples})", flush=True)
    seen: dict[str, tuple[float, float, float]] = {}
    for name, argv in runs.items():
        if name in args.skip:
            continue
        before = loadavg()
        seen[name] = wall, cpu, rss = whole_process(argv)
        print(f"{name:9s}: wall {wall:7.2f} s  CPU {cpu:7.2f} s  peak RSS {rss:7.0f} MB  "
              f"loadavg before {before} after {loadavg()}", flush=True)
    if "naive" in seen:
        for name in ("full", "subsample"):
            if name in seen:
                print(f"{name}/naive: {seen[name][0] / seen['naive'][0]:.3f}x wall, "
                      f"{seen[name][1] / seen['naive'][1]:.3f}x CPU")


if __name__ == "__main__":
    main()
