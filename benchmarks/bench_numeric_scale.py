"""Numeric masking at scale: time and peak memory of noise, rank swapping and microaggregation, 10^5 .. 10^7 x 5.

Each run is a fresh process: it generates the file (correlated log-normal variables, like incomes, a fixed
seed, in chunks so that generating costs no more memory than the file), resets the peak of its resident memory
(Linux ``/proc/self/clear_refs``), runs the method once and reports the wall time and the peak resident memory
(``VmHWM``) with the file's own size beside it, and the CPU time (on a busy machine the wall time grows, the
CPU time much less). sdcMicro (R, ``Rscript``) runs the same methods on a file of
the same distribution, generated in R, where it is installed and finishes within ``--peer-timeout``. The
growth of the time with n is printed for every method (time at 10n / time at n: 10 is linear).

``--loss`` compares the information loss (SSE/SST, standardized variables, k = 3 and 5) of the algorithms made
for large files (``mdav_partitioned``, ``optimal_pc1``; ``fixed`` on ``pc1`` for reference) with exact MDAV on
files where MDAV runs (10^4 .. 10^5 records).

Run: .venv/bin/python benchmarks/bench_numeric_scale.py [--sizes 100000 1000000 10000000] [--only METHOD ...]
     .venv/bin/python benchmarks/bench_numeric_scale.py --loss [--loss-sizes 10000 50000 100000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rumap.budget import DEFAULT_BUDGET  # noqa: E402
from rumap.masking.microaggregation import microaggregate  # noqa: E402
from rumap.masking.noise import NoiseSpec, add_noise  # noqa: E402
from rumap.masking.swapping import rank_swap  # noqa: E402

#: Rows generated at a time.
_BLOCK = 1_000_000
#: No work limit: the benchmark asks for runs the default limit refuses (exact MDAV on 10^5 records).
_UNLIMITED = dataclasses.replace(DEFAULT_BUDGET, work=float("inf"))


def numeric_file(n: int, p: int = 5, seed: int = 0) -> np.ndarray:
    """Correlated log-normal variables ``exp(0.8 c + 0.6 z_j)``, generated a block of rows at a time."""
    rng = np.random.default_rng(seed)
    x = np.empty((n, p))
    for start in range(0, n, _BLOCK):
        block = x[start:start + _BLOCK]
        block[:] = 0.6 * rng.normal(size=block.shape)
        block += 0.8 * rng.normal(size=(block.shape[0], 1))
        np.exp(block, out=block)
    return x


def _microaggregation(algorithm: str) -> Callable[[np.ndarray], dict]:
    def run(x: np.ndarray) -> dict:
        result = microaggregate(x, 3, algorithm, standardize=True, budget=_UNLIMITED)
        return {"loss": result.information_loss}
    return run


#: rumap's methods: a function of the file, returning what to print beside the time.
METHODS: dict[str, Callable[[np.ndarray], dict]] = {
    "noise": lambda x: (add_noise(x, 1.5, NoiseSpec(relative=True), seed=1), {})[1],
    "noise_correlated": lambda x: (add_noise(x, 1.5, NoiseSpec(relative=True, correlated=True), seed=1), {})[1],
    "rankswap": lambda x: (rank_swap(x, 5.0, seed=1), {})[1],
    "mdav_partitioned": _microaggregation("mdav_partitioned"),
    "optimal_pc1": _microaggregation("optimal_pc1"),
    "mdav": _microaggregation("mdav"),
}
#: Methods whose work grows with n^2: run only up to this many records.
QUADRATIC_LIMIT = {"mdav": 100_000}

#: sdcMicro's call for each method (x: a data.frame of 5 numeric columns).
R_CALLS = {
    "noise": 'y <- addNoise(x, noise = 150, method = "additive")',
    "rankswap": "y <- argus_rankswap(x, 5)",
    "mdav": 'y <- microaggregation(x, variables = names(x), aggr = 3, method = "mdav")',
}
R_PEER_NAMES = {"noise": "sdcMicro addNoise", "rankswap": "mu-Argus routine (sdcMicro argus_rankswap)",
                "mdav": "sdcMicro microaggregation mdav"}
R_SCRIPT = """
suppressMessages(library(sdcMicro))
hwm <- function() {{ s <- readLines("/proc/self/status"); as.numeric(gsub("[^0-9]", "", s[grepl("^VmHWM", s)])) / 1024 }}
set.seed(1)
n <- {n}
x <- as.data.frame(exp(0.8 * rnorm(n) + 0.6 * matrix(rnorm(n * 5), n)))
names(x) <- c("a", "b", "c", "d", "e")
data_mb <- hwm()
invisible(tryCatch(cat("5", file = "/proc/self/clear_refs"), error = function(e) NULL))
s <- proc.time()
{call}
d <- proc.time() - s
cat(sprintf('{{"seconds": %f, "cpu": %f, "data_mb": %f, "peak_mb": %f}}\\n', d[["elapsed"]],
            d[["user.self"]] + d[["sys.self"]], data_mb, hwm()))
"""

CHILD = """
import json, sys, time
sys.path[:0] = [{root!r}, {benchmarks!r}]
from bench_numeric_scale import METHODS, numeric_file, reset_peak, peak_mb
a = json.loads(sys.argv[1])
run = METHODS[a["method"]]
run(numeric_file(3000, seed=1))  # load the compiled kernels
x = numeric_file(a["n"])
data_mb = peak_mb()
reset_peak()
start, cpu = time.perf_counter(), time.process_time()
info = run(x)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({{"seconds": seconds, "cpu": cpu, "data_mb": data_mb, "peak_mb": peak_mb(), **info}}))
"""


def peak_mb() -> float:
    """Peak resident memory of this process (since the last :func:`reset_peak`), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    """Start the peak of resident memory again from the current resident memory (Linux 4.0 and later)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _run(command: list[str], timeout: float) -> dict | str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return f"did not finish within {timeout:.0f} s"
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["(no message)"])[-1][:200]
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_rumap(method: str, n: int, timeout: float) -> dict | str:
    """One run of a rumap method in a fresh interpreter."""
    code = CHILD.format(root=str(ROOT), benchmarks=str(ROOT / "benchmarks"))
    return _run([sys.executable, "-c", code, json.dumps({"method": method, "n": n})], timeout)


def sdcmicro_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(["Rscript", "-e", "suppressMessages(library(sdcMicro))"], capture_output=True, check=False)
    return done.returncode == 0


def run_sdcmicro(method: str, n: int, timeout: float) -> dict | str:
    """One run of sdcMicro's counterpart in a fresh R process."""
    return _run(["Rscript", "-e", R_SCRIPT.format(n=n, call=R_CALLS[method])], timeout)


def _line(who: str, outcome: dict | str) -> str:
    if isinstance(outcome, str):
        return f"{who}: {outcome}"
    extra = f", SSE/SST {outcome['loss']:.4f}" if "loss" in outcome else ""
    return (f"{who}: {outcome['seconds']:8.2f} s (CPU {outcome['cpu']:.2f} s), peak {outcome['peak_mb']:7.0f} MB "
            f"(file and interpreter before: {outcome['data_mb']:.0f} MB){extra}")


def scale(args: argparse.Namespace) -> None:
    peer = sdcmicro_available() and not args.no_peer
    if not peer:
        print("sdcMicro: not installed (Rscript with library(sdcMicro)) or --no-peer", flush=True)
    for method in args.only:
        times: dict[int, tuple[float, float]] = {}  # n -> (wall, CPU) seconds
        peer_times: dict[int, tuple[float, float]] = {}
        for n in args.sizes:
            label = f"{method:>17}, n = {n:>10,} x 5"
            if n > QUADRATIC_LIMIT.get(method, n):
                print(f"{label}: rumap skipped (quadratic: exact MDAV above {QUADRATIC_LIMIT[method]:,} records)",
                      flush=True)
            else:
                outcome = run_rumap(method, n, args.timeout)
                print(f"{label}: " + _line("rumap", outcome), flush=True)
                if isinstance(outcome, dict):
                    times[n] = (outcome["seconds"], outcome["cpu"])
            peer_method = "mdav" if method in ("mdav", "mdav_partitioned") else method
            if peer and peer_method in R_CALLS and method != "mdav_partitioned":
                previous = [m for m in peer_times if m < n]
                expected = peer_times[max(previous)][0] * (n / max(previous)) ** 2 if previous else 0.0
                if peer_method == "mdav" and expected > args.peer_timeout:
                    print(f"{'':>17}  {R_PEER_NAMES[peer_method]}: skipped (quadratic: about {expected:.0f} s "
                          "expected)", flush=True)
                    continue
                outcome = run_sdcmicro(peer_method, n, args.peer_timeout)
                print(f"{'':>17}  " + _line(R_PEER_NAMES[peer_method], outcome), flush=True)
                if isinstance(outcome, dict):
                    peer_times[n] = (outcome["seconds"], outcome["cpu"])
        for name, measured in (("rumap", times), ("sdcMicro", peer_times)):
            sizes = sorted(measured)
            if len(sizes) > 1:
                growth = ", ".join(f"{b / a:.0f}x n: {measured[b][0] / measured[a][0]:.1f}x wall, "
                                   f"{measured[b][1] / measured[a][1]:.1f}x CPU"
                                   for a, b in zip(sizes, sizes[1:], strict=False))
                print(f"{method:>17}  growth ({name}): {growth}", flush=True)


def loss(args: argparse.Namespace) -> None:
    for n in args.loss_sizes:
        x = numeric_file(n)
        for k in (3, 5):
            start = time.perf_counter()
            exact = microaggregate(x, k, "mdav", standardize=True, budget=_UNLIMITED)
            line = [f"n = {n:>7,}, k = {k}: mdav SSE/SST {exact.information_loss:.5f} "
                    f"({time.perf_counter() - start:.2f} s)"]
            for algorithm, options in (("mdav_partitioned", {}), ("optimal_pc1", {}),
                                       ("fixed", {"criterion": "pc1"})):
                start = time.perf_counter()
                result = microaggregate(x, k, algorithm, standardize=True, budget=_UNLIMITED, **options)
                line.append(f"{algorithm} {result.information_loss:.5f} = {result.sse / exact.sse:.3f}x "
                            f"({time.perf_counter() - start:.2f} s)")
            print(" | ".join(line), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--only", nargs="*", choices=list(METHODS), default=list(METHODS))
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed to one rumap run")
    parser.add_argument("--peer-timeout", type=float, default=600.0, help="seconds allowed to one sdcMicro run")
    parser.add_argument("--no-peer", action="store_true", help="do not run sdcMicro")
    parser.add_argument("--loss", action="store_true", help="information loss against exact MDAV instead")
    parser.add_argument("--loss-sizes", type=int, nargs="*", default=[10_000, 50_000, 100_000])
    args = parser.parse_args()
    (loss if args.loss else scale)(args)


if __name__ == "__main__":
    main()
