"""Census scale: time and peak memory of the categorical-key risk measures as whole processes, beside sdcMicro's.

For each size n (10^5 to 10^7 records by default) a census-like file of
``--keys`` keys is generated (``benchmarks/census_data.py``, seed 1: households,
weights, skewed and dependent keys, 1% missing values in three keys), as
Parquet for rumap and as CSV for R. Each operation runs as its own process
(wall time and peak resident memory from ``wait4``):

- rumap out of core (``rumap.scale``): weighted key frequencies; individual and
  global risk with k-anonymity (``individual``); with household risk and each
  record's values written chunk by chunk (``household+out``); distinct
  l-diversity of ``income`` (``l-diversity``);
- rumap in memory (``python -m rumap risk individual``, the pandas path) where
  the file is under its 200 MB limit and ``--memory-up-to`` records;
- sdcMicro (R): ``freqCalc``, ``measure_risk`` (individual and global risk),
  ``measure_risk`` with ``hid`` (household risk) and ``ldiversity``, while
  each finishes within ``--peer-timeout`` seconds (``--no-peer`` leaves it out).

Then the growth of time and memory with n, and peak memory against the chunk
size at the largest n (``--chunks``). The distinct key rows are held a hash
partition at a time (``rumap.scale.partitioned``: ``ceil(distinct /
chunk)`` partitions), so peak memory follows the chunk size, not n: the
growth table marks each 10x of records whose memory grows less than 2x.
Every figure is one run on a shared machine (the load average is printed):
CPU seconds change less with the load than wall seconds; rerun for medians.

Run: .venv/bin/python benchmarks/bench_census.py [--sizes 100000,1000000,10000000] [--keys 8]
[--chunks 250000,1000000,4000000] [--folder DIR] (generated files are kept in DIR and reused)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from census_data import KEYS, MISSING_KEYS, MISSING_SHARE, write  # noqa: E402

RUMAP = """
import sys, time
from rumap.scale import scan, key_frequencies, individual_risk
path, op, keys, chunk = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
start = time.perf_counter()
source = scan(path)
if op == "frequencies":
    result = key_frequencies(source, keys, weight="weight").to_dict()
elif op == "individual":
    result = individual_risk(source, keys, weight="weight", k=3, chunk_size=chunk, progress=False).to_dict()
elif op == "household+out":
    result = individual_risk(source, keys, weight="weight", household="household", k=3, chunk_size=chunk,
                             out=sys.argv[5], progress=False).to_dict()
elif op == "l-diversity":
    result = individual_risk(source, keys, weight="weight", sensitive="income", chunk_size=chunk,
                             progress=False).to_dict()
print(f"{time.perf_counter() - start:.3f}", result.get("expected_reidentifications", result.get("distinct_rows")),
      result.get("household_expected_reidentifications"), result.get("l_diversity_one"))
"""

PEER = """
suppressMessages({library(sdcMicro); library(data.table)})
a <- commandArgs(TRUE); keys <- strsplit(a[3], ",")[[1]]
df <- as.data.frame(fread(a[1]))
start <- Sys.time()
if (a[2] == "frequencies") { f <- freqCalc(df, keyVars = keys, w = "weight"); out <- c(NA, NA, NA) }
if (a[2] == "individual") { m <- measure_risk(df, keyVars = keys, w = "weight"); out <- c(m$global_risk_ER, NA, NA) }
if (a[2] == "household") { m <- measure_risk(df, keyVars = keys, w = "weight", hid = "household")
  out <- c(m$global_risk_ER, m$hier_risk_ER, NA) }
if (a[2] == "l-diversity") { l <- ldiversity(df, keyVars = keys, ldiv_index = "income")
  out <- c(NA, NA, sum(l[, "income_Distinct_Ldiversity"] == 1)) }
cat(sprintf("%.3f", as.numeric(Sys.time() - start, units = "secs")), out, "\\n")
"""

PEER_OPERATION = {"frequencies": "frequencies", "individual": "individual", "household+out": "household",
                  "l-diversity": "l-diversity"}


def measured(command: list[str], timeout: float) -> tuple[float, float, str]:
    """Wall seconds, peak resident MB and stdout of one process (nan, nan and the reason when it fails).

    The stdout is prefixed with the process's CPU seconds (user + system), which a loaded machine changes less.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return float("nan"), float("nan"), f"over {timeout:.0f} s"
            time.sleep(0.02)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            last = (err.read().strip().splitlines() or ["failed"])[-1]
            return float("nan"), float("nan"), last[:70]
        return wall, usage.ru_maxrss / 1024.0, f"{usage.ru_utime + usage.ru_stime:.2f} {out.read().strip()}"


def cpu_seconds(out: str) -> float:
    """The CPU seconds :func:`measured` puts first in a run's output (nan when it failed)."""
    try:
        return float(out.split(" ", 1)[0])
    except ValueError:
        return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--keys", type=int, default=8, choices=range(8, 13))
    parser.add_argument("--chunk", type=int, default=1_000_000, help="chunk size of the record-wise passes")
    parser.add_argument("--chunks", default="250000,1000000,4000000",
                        help="chunk sizes of the table of peak memory against the chunk size")
    parser.add_argument("--folder", default=None, help="where the generated files go (default: a temporary folder)")
    parser.add_argument("--memory-up-to", type=int, default=1_000_000, help="largest n run in memory")
    parser.add_argument("--peer-timeout", type=float, default=600.0)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--missing", type=float, default=MISSING_SHARE,
                        help="share of missing values in three keys (0: complete keys)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    keys = ",".join(KEYS[: args.keys])
    folder = Path(args.folder or tempfile.mkdtemp(prefix="rumap-census-"))
    folder.mkdir(parents=True, exist_ok=True)
    with_peer = not args.no_peer and subprocess.run(["Rscript", "-e", "library(sdcMicro)"],
                                                    capture_output=True).returncode == 0
    script = folder / "peer.R"
    script.write_text(PEER)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; {args.keys} keys: {keys}; "
          f"{args.missing:.0%} missing in {', '.join(MISSING_KEYS)}; "
          f"chunk {args.chunk:,}; sdcMicro {'yes' if with_peer else 'not run'}")
    print(f"{'n':>10} {'operation':<15} {'rumap s':>8} {'CPU s':>6} {'MB':>6} {'compute':>8}  "
          f"{'sdcMicro s':>10} {'CPU s':>6} {'MB':>6} {'compute':>8}  result rumap | sdcMicro")
    rows: dict[tuple[int, str], tuple[float, float, float]] = {}
    for n in sizes:
        parquet = folder / f"census_{n}_{args.keys}_{args.missing:g}.parquet"
        if not parquet.exists():
            write(parquet, n, args.keys, seed=1, missing=args.missing)
        csv = folder / f"census_{n}_{args.keys}_{args.missing:g}.csv"
        if with_peer and not csv.exists():
            write(csv, n, args.keys, seed=1, missing=args.missing)
        for op in ("frequencies", "individual", "household+out", "l-diversity"):
            wall, mb, out = measured([sys.executable, "-c", RUMAP, str(parquet), op, keys, str(args.chunk),
                                      str(folder / "records.parquet")], 3600)
            rows[(n, op)] = (wall, mb, cpu_seconds(out))
            peer = (float("nan"), float("nan"), "")
            if with_peer:
                peer = measured(["Rscript", str(script), str(csv), PEER_OPERATION[op], keys], args.peer_timeout)
            ours, theirs = (out.split(" ", 2) + ["", ""])[:3], (peer[2].split(" ", 2) + ["", ""])[:3]
            if theirs[2] == "":  # the reason it did not finish
                theirs = ["", "", peer[2]]
            print(f"{n:>10,} {op:<15} {wall:>8.2f} {ours[0]:>6} {mb:>6.0f} {ours[1]:>8}  {peer[0]:>10.2f} "
                  f"{theirs[0]:>6} {peer[1]:>6.0f} {theirs[1]:>8}  {ours[2]} | {theirs[2]}", flush=True)
        if n <= args.memory_up_to:
            wall, mb, out = measured([sys.executable, "-m", "rumap", "risk", "individual", "--data", str(parquet),
                                      "--keys", keys, "--weight", "weight", "--k", "3", "--engine", "memory",
                                      "--work-limit", "1e13"], 3600)
            print(f"{n:>10,} {'in memory':<15} {wall:>8.2f} {out.split(' ')[0]:>6} {mb:>6.0f}  "
                  "(python -m rumap risk individual --engine memory)", flush=True)
    print("\ngrowth with n (ratios of wall time, CPU time and peak memory; 'bound' where memory grows < 2x "
          "for 10x the records):")
    for op in ("frequencies", "individual", "household+out", "l-diversity"):
        ratios = []
        for small, large in zip(sizes, sizes[1:], strict=False):
            (t0, m0, c0), (t1, m1, c1) = rows[(small, op)], rows[(large, op)]
            growth = m1 / m0 if large == 10 * small else float("nan")
            mark = " bound" if growth < 2.0 else ""
            ratios.append(f"{small:,} -> {large:,}: time x{t1 / t0:.1f}, CPU x{c1 / c0:.1f}, "
                          f"memory x{m1 / m0:.2f}{mark}")
        print(f"  {op}: " + "; ".join(ratios))
    largest = folder / f"census_{sizes[-1]}_{args.keys}_{args.missing:g}.parquet"
    print(f"\npeak memory against the chunk size (n = {sizes[-1]:,}; load average {os.getloadavg()[0]:.1f}):")
    for op in ("individual", "l-diversity", "household+out"):
        for chunk in (int(c) for c in args.chunks.split(",")):
            wall, mb, out = measured([sys.executable, "-c", RUMAP, str(largest), op, keys, str(chunk),
                                      str(folder / "records.parquet")], 3600)
            print(f"  {op:<15} chunk {chunk:>9,}: {wall:6.2f} s, CPU {cpu_seconds(out):6.2f} s, {mb:5.0f} MB",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
