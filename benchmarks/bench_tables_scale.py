"""Secondary suppression at a statistical office's scale: a hierarchical table from 10^6 records, beside sdcTable.

Run from the repository root:

    PYTHONPATH=. python benchmarks/bench_tables_scale.py [--records 1000000] [--scales 0.1,0.3,1] [--seed 33]
        [--dims 2] [--protection 10] [--time-limit 60] [--sdctable] [--sdctable-methods SIMPLEHEURISTIC,GAUSS,OPT]
        [--sdctable-cap 600]

The generator (seeded) draws records with a region (10 regions > 10 provinces
each, codes R01 > R0101) and an activity (30 sections > 29 divisions each,
A01 > A0101), skewed so that many divisions of many provinces hold one or two
records, and a turnover; ``--dims 3`` adds a size class (small, medium,
large). At scale 1 the magnitude table of turnover has about 10^5 cells with
every subtotal; the primaries are the cells with one or two records (the
threshold rule, n < 3). A scale s draws s times the records and shrinks the
number of provinces and divisions by sqrt(s), so the cells and the primaries
grow about linearly in s.

For each scale, in a fresh process: the time to build the table, the time of
``suppress_table(method="heuristic")`` (HiTaS' pass and the LP audit of every
primary), the peak resident memory, the cost (sum of the secondary cells'
values), the lower bound and the gap, and whether the audit confirms every
primary. With ``--sdctable`` the same leaf cells go to R (a CSV and the two
hierarchies in sdcHierarchies' "@" format) and sdcTable 0.32.6 protects them
with each method (frequency rule maxN = 2, the same primaries) under a cap in
seconds; its cost is the sum of its secondary cells' values.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

_R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcTable))
args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]; method <- args[2]; cap <- as.numeric(args[3])
cells <- read.csv(file.path(folder, "cells.csv"), colClasses = c("character", "character", "numeric", "numeric"))
dims <- list(region = read.csv(file.path(folder, "region.csv"), colClasses = "character"),
             activity = read.csv(file.path(folder, "activity.csv"), colClasses = "character"))
setTimeLimit(elapsed = cap, transient = TRUE)
started <- Sys.time()
result <- tryCatch({
  p <- makeProblem(data = cells, dimList = dims, freqVarInd = which(names(cells) == "freq"),
                   numVarInd = which(names(cells) == "turnover"))
  p <- primarySuppression(p, type = "freq", maxN = 2)
  if (method == "OPT" || method == "HITAS") {
    p <- protectTable(p, method = method, timeLimit = cap / 60)
  } else {
    p <- protectTable(p, method = method)
  }
  info <- getInfo(p, type = "finalData")
  out <- as.data.frame(info)
  list(ok = TRUE, secondary = sum(out$sdcStatus == "x"), primary = sum(out$sdcStatus == "u"),
       cost = sum(out$turnover[out$sdcStatus == "x"]))
}, error = function(e) list(ok = FALSE, message = conditionMessage(e)))
elapsed <- as.numeric(difftime(Sys.time(), started, units = "secs"))
cat(jsonlite::toJSON(c(result, list(seconds = elapsed)), auto_unbox = TRUE), "\n")
"""


def generate(seed: int, records: int, scale: float, dims: int) -> pd.DataFrame:
    """Seeded microdata: region (R01 > R0101), activity (A01 > A0101), optionally size, and turnover."""
    rng = np.random.default_rng(seed)
    records = max(1, round(records * scale))
    shrink = math.sqrt(scale)
    provinces = max(2, round(10 * shrink))
    divisions = max(2, round(29 * shrink))
    region = np.array([f"R{r + 1:02d}{p + 1:02d}" for r in range(10) for p in range(provinces)])
    activity = np.array([f"A{s + 1:02d}{d + 1:02d}" for s in range(30) for d in range(divisions)])
    region_weight = rng.lognormal(0.0, 0.4, region.size)
    activity_weight = rng.lognormal(0.0, 0.8, activity.size)
    columns = {"region": region[rng.choice(region.size, records, p=region_weight / region_weight.sum())],
               "activity": activity[rng.choice(activity.size, records, p=activity_weight / activity_weight.sum())]}
    if dims == 3:
        columns["size"] = rng.choice(np.array(["small", "medium", "large"]), records, p=[0.7, 0.2, 0.1])
    columns["turnover"] = np.round(rng.lognormal(3.0, 1.2, records))
    return pd.DataFrame(columns)


def run_rumap(seed: int, records: int, scale: float, dims: int, protection: float, time_limit: float) -> dict:
    """Build and protect one instance; the figures as a dict (run in a fresh process for its peak memory)."""
    from rumap.budget import DEFAULT_BUDGET
    from rumap.tables.hierarchy import from_prefixes
    from rumap.tables.ndtable import build_table
    from rumap.tables.table_suppression import suppress_table

    frame = generate(seed, records, scale, dims)
    started = time.perf_counter()
    hierarchies = {"region": from_prefixes(frame["region"].unique(), [3, 5]),
                   "activity": from_prefixes(frame["activity"].unique(), [3, 5])}
    names = ["region", "activity", "size"][:dims]
    budget = DEFAULT_BUDGET.raised(1e14)
    table = build_table(frame, names, hierarchies, "turnover", budget=budget)
    mask = table.primary_mask("threshold", threshold=3)
    built = time.perf_counter() - started
    started = time.perf_counter()
    result = suppress_table(table, mask, protection=protection, method="heuristic", time_limit=time_limit,
                            singletons=False, budget=budget)
    protected = time.perf_counter() - started
    counts = result.counts()
    return {"scale": scale, "records": frame.shape[0], "cells": table.size, "nonempty": int((table.frequencies > 0).sum()),
            "primaries": counts["primary"], "secondaries": counts["secondary"], "build_s": built,
            "protect_s": protected, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "cost": result.cost, "lower_bound": result.lower_bound, "gap": result.gap, "method": result.method,
            "protected": result.all_protected, "subtables": result.config["iterations"]}


def write_for_r(frame: pd.DataFrame, folder: Path) -> None:
    """The leaf cells (region, activity, freq, turnover) and both hierarchies in sdcHierarchies' "@" levels."""
    cells = frame.groupby(["region", "activity"], as_index=False).agg(freq=("turnover", "size"),
                                                                       turnover=("turnover", "sum"))
    cells.to_csv(folder / "cells.csv", index=False)
    for name in ("region", "activity"):
        leaves = sorted(frame[name].unique())
        rows = [("@", "Total")]
        for top in sorted({c[:3] for c in leaves}):
            rows.append(("@@", top))
            rows.extend(("@@@", c) for c in leaves if c.startswith(top))
        pd.DataFrame(rows, columns=["levels", "codes"]).to_csv(folder / f"{name}.csv", index=False)


def run_sdctable(frame: pd.DataFrame, methods: list[str], cap: float) -> list[dict]:
    """sdcTable's figures for each method (within ``cap`` seconds each), or why there are none."""
    if shutil.which("Rscript") is None:
        return [{"method": m, "ok": False, "message": "Rscript not found"} for m in methods]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_for_r(frame, folder)
        (folder / "run.R").write_text(_R_SCRIPT)
        for method in methods:
            started = time.perf_counter()
            try:
                done = subprocess.run(["Rscript", str(folder / "run.R"), str(folder), method, str(cap)],
                                      capture_output=True, text=True, timeout=cap + 120)
                line = [x for x in done.stdout.splitlines() if x.startswith("{")]
                figures = json.loads(line[-1]) if line else {"ok": False, "message": done.stderr.strip()[-300:]}
            except subprocess.TimeoutExpired:
                figures = {"ok": False, "message": f"over {cap:g} s"}
            figures.update(method=method, wall_s=time.perf_counter() - started)
            out.append(figures)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--scales", default="0.1,0.3,1")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--dims", type=int, default=2, choices=(2, 3))
    parser.add_argument("--protection", type=float, default=10.0)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sdctable", action="store_true")
    parser.add_argument("--sdctable-methods", default="SIMPLEHEURISTIC,GAUSS,OPT")
    parser.add_argument("--sdctable-cap", type=float, default=600.0)
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run_rumap(args.seed, args.records, args.one, args.dims, args.protection, args.time_limit)))
        return
    print(f"rumap heuristic (HiTaS pass + LP audit), {args.records} records, seed {args.seed}, {args.dims} dimensions, "
          f"protection {args.protection:g}%, cost value, threshold rule n < 3")
    rows = []
    for scale in (float(s) for s in args.scales.split(",")):
        done = subprocess.run([sys.executable, __file__, "--one", str(scale), "--records", str(args.records),
                               "--seed", str(args.seed), "--dims", str(args.dims), "--protection",
                               str(args.protection), "--time-limit", str(args.time_limit)],
                              capture_output=True, text=True, env=dict(os.environ))
        if done.returncode != 0:
            print(f"  scale {scale:g}: failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(figures)
        print(f"  scale {scale:g}: {figures['records']} records, {figures['cells']} cells ({figures['nonempty']} non-empty), "
              f"{figures['primaries']} primaries, {figures['secondaries']} secondaries; build {figures['build_s']:.1f} s, "
              f"protect + audit {figures['protect_s']:.1f} s, peak {figures['peak_mb']:.0f} MB; cost "
              f"{figures['cost']:.6g}, lower bound {figures['lower_bound']:.6g}, gap {100 * figures['gap']:.1f}%, "
              f"every primary protected by the audit: {figures['protected']}")
        if args.sdctable and args.dims == 2:
            frame = generate(args.seed, args.records, scale, args.dims)
            for peer in run_sdctable(frame, args.sdctable_methods.split(","), args.sdctable_cap):
                if peer.get("ok"):
                    print(f"    sdcTable {peer['method']}: {peer['primary']} primaries, {peer['secondary']} "
                          f"secondaries, cost {peer['cost']:.6g}, {peer['seconds']:.1f} s (process {peer['wall_s']:.1f} s)")
                else:
                    print(f"    sdcTable {peer['method']}: no result ({peer.get('message', '')[:200]}) after "
                          f"{peer['wall_s']:.1f} s")
    if len(rows) >= 2:
        cells = np.log([r["cells"] for r in rows])
        seconds = np.log([r["protect_s"] for r in rows])
        slope = float(np.polyfit(cells, seconds, 1)[0])
        print(f"growth: protect time ~ cells^{slope:.2f} over {len(rows)} sizes")


if __name__ == "__main__":
    main()
