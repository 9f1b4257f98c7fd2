"""The command line's start: ``--help`` of each command, and a whole ``microaggregate`` process beside its computation.

Each command runs as a fresh process (``python -m rumap ...``), as a user starts it; the figures are the
best of a few runs in wall time and in CPU time (user + system of the process, which a busy machine
disturbs less). Then ``microaggregate --algorithm optimal --k 3`` on a CSV of 10^6 values: the whole
process, its parts (interpreter and imports, reading the file, the computation, the JSON), and the
computation alone in this process (the numba kernel already loaded).

Run: .venv/bin/python benchmarks/bench_cli.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HELP_COMMANDS = ([], ["analytic"], ["table"], ["simulate"], ["microaggregate"], ["risk"], ["protect"], ["query"],
                 ["release"])


def process_time(argv: list[str], repeats: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``python -m rumap argv`` run ``repeats`` times."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rumap", *argv], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for command in HELP_COMMANDS:
        wall, cpu = process_time([*command, "--help"], args.repeats)
        print(f"python -m rumap {' '.join([*command, '--help'])}: wall {wall:.3f} s, cpu {cpu:.3f} s", flush=True)

    from rumap.io.data import read_table
    from rumap.masking.microaggregation import microaggregate

    x = np.random.default_rng(0).lognormal(size=1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.csv"
        np.savetxt(path, x, header="x", comments="", fmt="%.17g")
        argv = ["microaggregate", "--data", str(path), "--k", "3", "--algorithm", "optimal", "--json"]
        process_time(argv, 1)  # the numba cache is written once, if it was not yet
        wall, cpu = process_time(argv, min(args.repeats, 3))
        print(f"python -m rumap {' '.join(argv[:1] + ['--data', 'x.csv (10^6 values)'] + argv[3:])}: "
              f"wall {wall:.3f} s, cpu {cpu:.3f} s", flush=True)
        microaggregate(x[:100], 3, "optimal")  # the kernel loaded, as in a process that already ran it
        start = time.perf_counter()
        frame = read_table(str(path))
        read = time.perf_counter() - start
        times = []
        for _ in range(3):
            start = time.perf_counter()
            microaggregate(frame["x"].to_numpy(), 3, "optimal")
            times.append(time.perf_counter() - start)
    empty = process_time(["--help"], args.repeats)[0]
    print(f"  its parts: interpreter and --help {empty:.3f} s, reading the CSV {read:.3f} s, "
          f"microaggregate(x, 3, 'optimal') {min(times):.3f} s (best of 3; sorting, labels and SSE included)",
          flush=True)


if __name__ == "__main__":
    main()
