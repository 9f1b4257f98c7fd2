"""Timing of the categorical-key measures beside sdcMicro (when R and sdcMicro are installed).

- individual risk and k-anonymity of 10^6 records on 7 keys, with weights
  (target under 2 s);
- every combination of up to 3 of 10 keys on 10^5 records (target under 5 s);
- local suppression to 3-anonymity of the bundled survey (sdcMicro's
  ``localSuppression`` beside it);
- SUDA2 special uniques of the survey (5 keys) and of 10^5 records on 7 keys
  (sdcMicro's ``suda2`` beside it, and whether its scores agree).

The sdcMicro figures come from one ``Rscript`` run on the same data written to
a temporary CSV; they are skipped (and said so) where R or sdcMicro is missing.

Run: .venv/bin/python benchmarks/bench_categorical.py
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rumap.masking.categorical import local_suppression
from rumap.masking.optimal_suppression import optimal_suppression
from rumap.risk.individual import individual_risk
from rumap.risk.keys import key_analysis
from rumap.risk.suda import suda2

ROOT = Path(__file__).resolve().parent.parent
SURVEY = ROOT / "data" / "survey.csv"
SURVEY_KEYS = ["age_band", "sex", "region", "marital", "occupation"]


def timed(fn) -> tuple[float, object]:
    fn()  # warm-up
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def sdcmicro_seconds(script: str) -> float | None:
    """Seconds one R expression took (printed by the script), or None without R and sdcMicro."""
    if shutil.which("Rscript") is None:
        return None
    proc = subprocess.run(["Rscript", "-e", "suppressPackageStartupMessages(library(sdcMicro));" + script],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        return None
    return float(proc.stdout.strip().splitlines()[-1].split()[-1])


def sdcmicro_suda2(path: Path, keys: list[str]) -> tuple[float, np.ndarray] | None:
    """sdcMicro's suda2 on a CSV: its seconds and its SUDA scores, or None without R and sdcMicro."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "scores.txt"
        script = (f"suppressPackageStartupMessages(library(sdcMicro)); d <- read.csv('{path}', na.strings = '');"
                  f"keys <- c({', '.join(repr(k) for k in keys)}); for (k in keys) d[[k]] <- as.factor(d[[k]]);"
                  "t <- system.time(s <- suda2(d, variables = keys));"
                  f"writeLines(format(s$score, digits = 15), '{out}'); cat(t[['elapsed']], '\\n')")
        proc = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            return None
        return float(proc.stdout.strip().splitlines()[-1].split()[-1]), np.loadtxt(out)


def bench_suda(rng: np.random.Generator) -> None:
    """SUDA2 on the survey and on 10^5 records x 7 keys, beside sdcMicro's suda2."""
    wide = pd.DataFrame({f"k{i}": rng.integers(0, 3 + 2 * i, 100_000) for i in range(7)})
    cases = [("survey (2,329 records, 5 keys)", SURVEY, pd.read_csv(SURVEY), SURVEY_KEYS),
             ("10^5 records x 7 keys", None, wide, list(wide.columns))]
    with tempfile.TemporaryDirectory() as tmp:
        for label, path, data, keys in cases:
            seconds, result = timed(lambda data=data, keys=keys: suda2(data, keys))
            if path is None:
                path = Path(tmp) / "suda.csv"
                data.to_csv(path, index=False)
            peer = sdcmicro_suda2(path, keys)
            if peer is None:
                peer_text = "sdcMicro not installed"
            else:
                agree = np.array_equal(peer[1], result.score)
                peer_text = (f"sdcMicro suda2 {peer[0]:.2f} s ({peer[0] / seconds:.1f}x), scores "
                             f"{'equal' if agree else 'DIFFERENT'}")
            print(f"SUDA2, {label}: rumap {seconds:.2f} s, {result.special_uniques:,} special uniques; {peer_text}")


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    frame = pd.DataFrame({f"k{i}": rng.integers(0, 4 + 3 * i, n) for i in range(7)})
    frame["w"] = rng.uniform(1, 100, n).round(1)
    keys = [f"k{i}" for i in range(7)]
    seconds, result = timed(lambda: individual_risk(frame, keys, weight="w", k=3))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        frame.to_csv(path, index=False)
        peer = sdcmicro_seconds(f"d <- read.csv('{path}'); for (k in paste0('k', 0:6)) d[[k]] <- as.factor(d[[k]]);"
                                "t <- system.time(measure_risk(d, keyVars = paste0('k', 0:6), w = 'w'));"
                                "cat(t[['elapsed']], '\\n')")
    peer_text = f"sdcMicro measure_risk {peer:.2f} s ({peer / seconds:.1f}x)" if peer else "sdcMicro not installed"
    print(f"individual risk + k-anonymity, 10^6 records x 7 keys, weighted: rumap {seconds:.2f} s (target < 2 s); "
          f"{peer_text}; expected re-identifications {result.expected_reidentifications:.1f}")

    wide = pd.DataFrame({f"k{i}": rng.integers(0, 5 + 3 * i, 100_000) for i in range(10)})
    seconds, result = timed(lambda: key_analysis(wide, list(wide.columns), dimension=3, threshold=3))
    print(f"every combination of up to 3 of 10 keys (175), 10^5 records: rumap {seconds:.2f} s (target < 5 s); "
          f"records in an unsafe cell {int(result.records_at_risk.sum()):,}")

    survey = pd.read_csv(SURVEY)
    seconds, result = timed(lambda: local_suppression(survey, SURVEY_KEYS, k=3))
    peer = sdcmicro_seconds(f"d <- read.csv('{SURVEY}', na.strings = ''); "
                            f"keys <- c({', '.join(repr(k) for k in SURVEY_KEYS)});"
                            "for (k in keys) d[[k]] <- as.factor(d[[k]]);"
                            "t <- system.time(localSuppression(d, keyVars = keys, k = 3)); cat(t[['elapsed']], '\\n')")
    peer_text = f"sdcMicro localSuppression {peer:.2f} s ({peer / seconds:.1f}x)" if peer else "sdcMicro not installed"
    print(f"local suppression to 3-anonymity, survey ({len(survey):,} records, 5 keys): rumap {seconds:.2f} s, "
          f"{int(result.suppressed.sum())} values suppressed; {peer_text} (1,633 values suppressed)")
    seconds, result = timed(lambda: optimal_suppression(survey, SURVEY_KEYS, k=3))
    print(f"optimal local suppression (MILP, HiGHS), same file: rumap {seconds:.2f} s, "
          f"{int(result.suppressed.sum())} values suppressed (optimal for mu-Argus's model of unsafe combinations)")


    bench_suda(rng)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["suda"]:  # the SUDA2 figures alone
        bench_suda(np.random.default_rng(0))
    else:
        main()
