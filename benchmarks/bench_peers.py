"""rumap beside its peers, in one run: medians of 3, the same data, the peer run right after rumap.

Peers (see the shared PEERS notes): the C++ package ``microaggregation`` and splink 5 from PyPI, installed in
a separate virtual environment (``--peers-python``, default ``../peers-venv/bin/python`` beside the project); sdcMicro in R
(``Rscript``); a naive numpy loop for the empirical map. A peer that is not installed prints "not installed".
Each line gives rumap's median, the peer's median and peer / rumap (above 1: rumap is faster).

Run: .venv/bin/python benchmarks/bench_peers.py [--only NAME ...] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rumap.maps.simulation import SimulationConfig, simulate  # noqa: E402
from rumap.masking.microaggregation import microaggregate  # noqa: E402
from rumap.masking.microaggregation.optimal import _optimal_sorted  # noqa: E402
from rumap.masking.noise import NoiseSpec, add_noise  # noqa: E402
from rumap.masking.swapping import rank_swap  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from naive_map import naive_map  # noqa: E402

TARGETS = ("max", "min", "p01", "p10", "p90", "p99")


def median_time(fn: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    """Median wall and CPU seconds of ``repeats`` calls, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return float(np.median(walls)), float(np.median(cpus)), result


def report(name: str, ours: float, peer_name: str, peer: float | None, extra: str = "") -> None:
    if peer is None:
        print(f"{name}: rumap {ours:.3f} s | {peer_name}: not installed {extra}", flush=True)
        return
    print(f"{name}: rumap {ours:.3f} s | {peer_name} {peer:.3f} s | peer/rumap {peer / ours:.2f}x {extra}", flush=True)


def run_peer_python(python: str, code: str, payload: dict) -> dict | None:
    """Run ``code`` in the peers' interpreter; it reads JSON on stdin and prints JSON (times in seconds)."""
    if not Path(python).exists():
        return None
    done = subprocess.run([python, "-c", code], input=json.dumps(payload), capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        print(f"  peer failed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_r(script: str) -> dict | None:
    """Run an R script that prints one JSON-like line ``{"key": seconds, ...}``."""
    if shutil.which("Rscript") is None:
        return None
    done = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"  R failed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


PEER_OPTIMAL = """
import json, sys, time, numpy as np
from microaggregation import calculate_sse_dynamic
a = json.load(sys.stdin)
x = np.sort(np.load(a["path"]))
times = []
for _ in range(a["repeats"]):
    t = time.perf_counter(); sse = calculate_sse_dynamic(x[:, None], a["k"]); times.append(time.perf_counter() - t)
print(json.dumps({"seconds": float(np.median(times)), "sse": float(np.asarray(sse).ravel()[0])}))
"""


def optimal_univariate(args: argparse.Namespace, tmp: Path) -> None:
    n, k = 1_000_000, 3
    x = np.random.default_rng(0).lognormal(size=n)
    path = tmp / "optimal.npy"
    np.save(path, x)
    xs = np.sort(x)
    _optimal_sorted(xs[:100], k)  # compile (or load the cached kernel)
    ours, _, runs = median_time(lambda: _optimal_sorted(xs, k), args.repeats)
    bounds = np.concatenate(([0], np.cumsum(runs)))
    sums = np.add.reduceat(xs, bounds[:-1])
    sse = float(np.sum(xs * xs) - np.sum(sums * sums / runs))
    full, _, result = median_time(lambda: microaggregate(x, k, "optimal"), args.repeats)
    peer = run_peer_python(args.peers_python, PEER_OPTIMAL, {"path": str(path), "k": k, "repeats": args.repeats})
    report("optimal univariate microaggregation, n = 10^6, k = 3 (sorted values)", ours, "microaggregation",
           None if peer is None else peer["seconds"],
           f"(SSE rumap {sse:.6f}" + ("" if peer is None else f", peer {peer['sse']:.6f}") + ")")
    print(f"  rumap microaggregate(x, 3, 'optimal') with sorting, labels and SSE: {full:.3f} s "
          f"(SSE {result.sse:.6f})", flush=True)


R_SWAP = """
suppressMessages(library(sdcMicro))
x <- read.csv("{path}")
t1 <- c(); t2 <- c()
for (i in 1:{repeats}) {{
  s <- proc.time()[["elapsed"]]; y <- argus_rankswap(x, 5); t1 <- c(t1, proc.time()[["elapsed"]] - s)
  s <- proc.time()[["elapsed"]]; y <- rankSwap(x, P = 5);
  t2 <- c(t2, proc.time()[["elapsed"]] - s)
}}
cat(sprintf('{{"argus": %f, "rankSwap": %f}}\\n', median(t1), median(t2)))
"""


def rank_swapping(args: argparse.Namespace, tmp: Path) -> None:
    rng = np.random.default_rng(0)
    x = np.exp(0.8 * rng.normal(size=(100_000, 1)) + 0.6 * rng.normal(size=(100_000, 5)))
    path = tmp / "swap.csv"
    np.savetxt(path, x, delimiter=",", header="a,b,c,d,e", comments="")
    rank_swap(x[:100], 5.0, seed=1)  # compile (or load the cached kernel)
    ours, _, _ = median_time(lambda: rank_swap(x, 5.0, seed=1), args.repeats)
    peer = run_r(R_SWAP.format(path=path, repeats=args.repeats))
    report("rank swapping, 100,000 x 5, 5% window", ours, "mu-Argus routine (sdcMicro argus_rankswap)",
           None if peer is None else peer["argus"])
    report("rank swapping, 100,000 x 5, 5% window", ours, "sdcMicro rankSwap", None if peer is None else peer["rankSwap"])


R_NOISE = """
suppressMessages(library(sdcMicro))
x <- read.csv("{path}")
t <- c()
for (i in 1:{repeats}) {{
  s <- proc.time()[["elapsed"]]; y <- addNoise(x, noise = 150, method = "additive"); t <- c(t, proc.time()[["elapsed"]] - s)
}}
cat(sprintf('{{"seconds": %f}}\\n', median(t)))
"""


def additive_noise(args: argparse.Namespace, tmp: Path) -> None:
    x = np.random.default_rng(0).lognormal(size=(200_000, 5))
    path = tmp / "noise.csv"
    np.savetxt(path, x, delimiter=",", header="a,b,c,d,e", comments="")
    spec = NoiseSpec(relative=True)
    ours, _, _ = median_time(lambda: add_noise(x, 1.5, spec, seed=1), args.repeats)
    peer = run_r(R_NOISE.format(path=path, repeats=args.repeats))
    report("additive noise, 200,000 x 5, uncorrelated, relative", ours, "sdcMicro addNoise",
           None if peer is None else peer["seconds"])


def empirical_map(args: argparse.Namespace, tmp: Path) -> None:
    n, replicates = 100_000, 200
    values = np.linspace(0.05, 1.0, 20)
    x = np.random.default_rng(7).lognormal(10, 0.6, size=n)
    config = SimulationConfig(values=tuple(values), targets=TARGETS, knowledge=("index", "position"),
                              method_options={"relative": True}, replicates=replicates, seed=1)
    simulate(x[:5000], config)  # compile (or load the cached kernels)
    ours, ours_cpu, _ = median_time(lambda: simulate(x, config), args.repeats)
    naive, naive_cpu, _ = median_time(lambda: naive_map(x, values, replicates, 1), args.repeats)
    print(f"empirical map, n = 100,000, M = 200, 20 values, 6 targets x index/position: rumap {ours:.2f} s "
          f"(CPU {ours_cpu:.2f} s) | naive loop {naive:.2f} s (CPU {naive_cpu:.2f} s) | rumap/naive "
          f"{ours / naive:.2f}x wall, {ours_cpu / naive_cpu:.2f}x CPU", flush=True)
    whole = {name: whole_process(code, args.repeats) for name, code in WHOLE_PROCESS.items()}
    print(f"  as whole processes (a fresh interpreter: imports, data, the map): rumap {whole['rumap'][0]:.2f} s "
          f"(CPU {whole['rumap'][1]:.2f} s) | naive loop {whole['naive'][0]:.2f} s (CPU {whole['naive'][1]:.2f} s) | "
          f"rumap/naive {whole['rumap'][0] / whole['naive'][0]:.2f}x wall, "
          f"{whole['rumap'][1] / whole['naive'][1]:.2f}x CPU", flush=True)


def whole_process(code: str, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds (user + system, of the child) of ``repeats`` fresh interpreters running ``code``."""
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        walls.append(time.perf_counter() - wall)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return float(np.median(walls)), float(np.median(cpus))


_WHOLE_DATA = ("import sys, numpy as np; sys.path[:0] = ['.', 'benchmarks']; "
               "x = np.random.default_rng(7).lognormal(10, 0.6, size=100_000); values = np.linspace(0.05, 1.0, 20); ")
#: The empirical map as two whole processes, each in a fresh interpreter (run from the project's root).
WHOLE_PROCESS = {
    "rumap": _WHOLE_DATA + ("from rumap.maps.simulation import SimulationConfig, simulate; "
                            f"simulate(x, SimulationConfig(values=tuple(values), targets={TARGETS!r}, "
                            "knowledge=('index', 'position'), method_options={'relative': True}, replicates=200, "
                            "seed=1))"),
    "naive": _WHOLE_DATA + "from naive_map import naive_map; naive_map(x, values, 200, 1)",
}


PEER_SPLINK = """
import json, sys, time, numpy as np, pandas as pd
import splink.comparison_library as cl
from splink import Linker, SettingsCreator, block_on
from splink.internals.duckdb.database_api import DuckDBAPI
a = json.load(sys.stdin)
x, y = np.load(a["original"]), np.load(a["masked"])
def frame(v):
    f = pd.DataFrame(np.round(v / a["tolerance"]).astype(int), columns=[f"k{j}" for j in range(v.shape[1])])
    f["unique_id"] = np.arange(len(f)); return f
left, right = frame(x), frame(y)
left["block"] = np.argsort(np.argsort(x[:, 0], kind="stable"), kind="stable") // a["block_size"]
right["block"] = np.argsort(np.argsort(y[:, 0], kind="stable"), kind="stable") // a["block_size"]
times = []
for _ in range(a["repeats"]):
    t = time.perf_counter()
    db = DuckDBAPI()
    settings = SettingsCreator(link_type="link_only", comparisons=[cl.ExactMatch(f"k{j}") for j in range(x.shape[1])],
                               blocking_rules_to_generate_predictions=[block_on("block")])
    linker = Linker([db.register(left), db.register(right)], settings)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("block"))
    linker.inference.predict(threshold_match_probability=0.5)
    times.append(time.perf_counter() - t)
print(json.dumps({"seconds": float(np.median(times))}))
"""


def linkage(args: argparse.Namespace, tmp: Path) -> None:
    from rumap.risk.linkage import probabilistic_linkage

    n = 100_000
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 5))
    y = x + rng.normal(scale=0.3, size=x.shape)
    np.save(tmp / "original.npy", x)
    np.save(tmp / "masked.npy", y)
    ours, _, result = median_time(lambda: probabilistic_linkage(x, y, block_size=1000), args.repeats)
    peer = run_peer_python(args.peers_python, PEER_SPLINK,
                           {"original": str(tmp / "original.npy"), "masked": str(tmp / "masked.npy"),
                            "tolerance": 0.1, "block_size": 1000, "repeats": args.peer_linkage_repeats})
    report("Fellegi-Sunter linkage, 100,000 x 5 keys, blocks of 1,000", ours, "splink 5",
           None if peer is None else peer["seconds"],
           f"(rumap EM: {result.settings['em_iterations']} steps, converged {result.settings['em_converged']})")


CASES = {"optimal": optimal_univariate, "swap": rank_swapping, "noise": additive_noise, "map": empirical_map,
         "linkage": linkage}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-linkage-repeats", type=int, default=1, help="splink runs (about a minute each)")
    parser.add_argument("--peers-python", default=str(ROOT.parent / "peers-venv" / "bin" / "python"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only:
            CASES[name](args, Path(tmp))


if __name__ == "__main__":
    main()
