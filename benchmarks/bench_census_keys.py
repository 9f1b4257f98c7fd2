"""Protecting the keys of census-like files of 10^5 to 10^7 records: time and peak memory, sdcMicro beside.

Each operation runs as a whole process, as a user runs it, on a Parquet file
from ``benchmarks/census_data.py`` (8 keys, households, weights; the same seed
gives the same file), reading and writing a chunk of 10^6 records at a time:

- local suppression to 3-anonymity (``protect suppress --k 3``), beside
  sdcMicro's ``localSuppression(k = 3)`` on the same records (a CSV copy);
- PRAM with theta = 0.8 (``protect pram``), beside sdcMicro's ``pram``
  (its own matrix: the times only are comparable);
- local suppression to 3-anonymity with households (``--household household
  --household-variables region,household_size``: a region or household size
  suppressed in one member is suppressed in all); sdcMicro's
  ``localSuppression`` has no household variables, so nothing is beside it;
- global recoding: age in 10-year bands and two merges (``protect recode``),
  beside sdcMicro's ``globalRecode`` of age (its bands closed on the right:
  the times only are comparable) and ``groupAndRename`` of the merges;
- SUDA2 with MSUs of every size, each record's scores written
  (``risk suda --engine scale --out``), beside sdcMicro's ``suda2`` on its
  object.

Wall time, CPU time (user + system, which is what a quiet machine would take
on one core) and peak resident memory come from ``/usr/bin/time``. sdcMicro
is skipped where R or sdcMicro is missing and stopped after ``--peer-timeout``
seconds (then "did not finish" is printed).

Run: .venv/bin/python benchmarks/bench_census_keys.py --sizes 100000,1000000,10000000
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from census_data import KEYS, write  # noqa: E402

CHUNK = "1000000"


def measured(command: list[str], timeout: float | None = None) -> tuple[float, float, float, str] | None:
    """Wall seconds, CPU seconds, peak MB and stdout of a whole process, or None if it failed or timed out."""
    timer = shutil.which("time") or "/usr/bin/time"
    try:
        proc = subprocess.run([timer, "-f", "@@ %e %U %S %M", *command], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None
    line = [x for x in proc.stderr.splitlines() if x.startswith("@@ ")]
    if proc.returncode != 0 or not line:
        print(proc.stderr.strip().splitlines()[-3:], file=sys.stderr)
        return None
    wall, user, system, peak = (float(x) for x in line[-1].split()[1:])
    return wall, user + system, peak / 1024.0, proc.stdout


MERGES = {"birthplace": ([1, 2, 3, 4, 5], "1-5"), "occupation": (list(range(50, 59)), "50+")}


def rumap_runs(path: Path, keys: list[str], folder: Path) -> dict[str, tuple | None]:
    base = [sys.executable, "-m", "rumap", "protect"]
    common = ["--data", str(path), "--keys", ",".join(keys), "--engine", "scale", "--chunk-size", CHUNK, "--json",
              "--work-limit", "1e13"]
    merges = [f for v, (old, new) in MERGES.items() for f in ("--merge", f"{v}:{','.join(map(str, old))}={new}")]
    return {
        "suppress k=3": measured([*base, "suppress", *common, "--k", "3", "--out", str(folder / "suppressed.parquet")]),
        "suppress k=3 hh": measured([*base, "suppress", *common, "--k", "3", "--household", "household",
                                     "--household-variables", "region,household_size",
                                     "--out", str(folder / "suppressed_hh.parquet")]),
        "pram theta=0.8": measured([*base, "pram", *common, "--theta", "0.8", "--seed", "1",
                                    "--out", str(folder / "pram.parquet")]),
        "recode": measured([*base, "recode", *common, "--band", "age:10", *merges,
                            "--out", str(folder / "recoded.parquet")]),
        "suda2": measured([sys.executable, "-m", "rumap", "risk", "suda", *common,
                           "--out", str(folder / "suda.parquet")]),
    }


def peer_runs(path: Path, keys: list[str], folder: Path, timeout: float) -> dict[str, tuple | None]:
    """sdcMicro on a CSV copy of the file (R reads it whole, as its users do)."""
    if shutil.which("Rscript") is None:
        return {}
    import pandas as pd

    csv = folder / "peer.csv"
    pd.read_parquet(path).to_csv(csv, index=False)
    load = (f"suppressPackageStartupMessages(library(sdcMicro)); d <- read.csv('{csv}');"
            f"keys <- c({', '.join(repr(k) for k in keys)}); for (k in keys) d[[k]] <- as.factor(d[[k]]);"
            "s <- createSdcObj(d, keyVars = keys, weightVar = 'weight');")
    return {
        "suppress k=3": measured(["Rscript", "-e", load + "s <- localSuppression(s, k = 3);"
                                  "cat(sum(s@localSuppression$totalSupps), '\\n')"], timeout),
        "pram theta=0.8": measured(["Rscript", "-e", load.replace("keyVars = keys, ", "keyVars = keys, pramVars = "
                                                                  "keys, ") + "s <- pram(s, pd = 0.8); cat('done\\n')"],
                                   timeout),
        "recode": measured(["Rscript", "-e", load.replace("for (k in keys)", "for (k in setdiff(keys, 'age'))")
                            + "s <- globalRecode(s, column = 'age', breaks = seq(0, 110, 10));"
                            + "".join(f"s <- groupAndRename(s, var = '{v}', before = c({', '.join(map(repr, map(str, old)))}), "
                                      f"after = rep('{new}', {len(old)}));" for v, (old, new) in MERGES.items())
                            + "cat('done\\n')"], timeout),
        "suda2": measured(["Rscript", "-e", load + "s <- suda2(s, missing = NA, DisFraction = 0.01);"
                           "cat(sum(s@risk$suda2$score > 0), '\\n')"], timeout),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="records, comma-separated")
    parser.add_argument("--keys", type=int, default=8, choices=range(8, 13))
    parser.add_argument("--peer-timeout", type=float, default=1800.0, help="seconds before sdcMicro is stopped")
    parser.add_argument("--no-peer", action="store_true", help="skip sdcMicro")
    args = parser.parse_args(argv)
    keys = list(KEYS[:args.keys])
    print(f"{'records':>10}  {'operation':<16} {'rumap wall':>11} {'cpu':>8} {'peak MB':>8}   "
          f"{'sdcMicro wall':>13} {'cpu':>8} {'peak MB':>8}")
    for n in (int(float(x)) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            path = folder / "census.parquet"
            write(path, n, keys=args.keys, seed=1)
            ours = rumap_runs(path, keys, folder)
            theirs = {} if args.no_peer else peer_runs(path, keys, folder, args.peer_timeout)
            for operation, result in ours.items():
                peer = theirs.get(operation)
                left = (f"{result[0]:10.1f}s {result[1]:7.1f}s {result[2]:8.0f}" if result
                        else f"{'failed':>11} {'':>8} {'':>8}")
                right = (f"{peer[0]:12.1f}s {peer[1]:7.1f}s {peer[2]:8.0f}" if peer else
                         f"{'did not finish' if operation in theirs else '-':>13}")
                print(f"{n:>10}  {operation:<16} {left}   {right}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
