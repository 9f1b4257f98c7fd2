"""Timing of the database protections: camouflage answers, the auditor, their maps, and granularity.

Targets: 1,000 SUM queries over 1,000 records answered by camouflage in under 1 s; an audit of 40 random SUM
queries over 30 records in under 1 s; the page's maps (3 levels, 10 queries, 12 records) in under 2 s; the
granularity of the persons file's tables of 2 and 3 of 4 key variables in under 2 s. No peer implements these
(sdcMicro and tau-Argus have neither camouflage nor query auditing).

Run: .venv/bin/python benchmarks/bench_databases.py
"""

from __future__ import annotations

import time

import numpy as np

from rumap.databases.audit import audit_queries
from rumap.databases.camouflage import answer_queries, camouflage_vectors
from rumap.io.data import BUNDLED_DATA, read_table
from rumap.maps.databases import audit_map, camouflage_map, random_workload
from rumap.tables.granularity import granularity_analysis


def _timed(label: str, target: float, run) -> None:
    start = time.perf_counter()
    run()
    elapsed = time.perf_counter() - start
    print(f"{label}: {elapsed:.3f} s (target < {target:g} s)")


def main() -> None:
    rng = np.random.default_rng(0)
    big = np.round(np.exp(rng.normal(9.7, 0.6, 1000)), 2)
    workload = random_workload(1000, 1000, np.random.default_rng(1))
    vectors = camouflage_vectors(big, protection=10, k=5, seed=1)
    _timed("camouflage: 1,000 SUM queries over 1,000 records, k = 5", 1.0,
           lambda: answer_queries(vectors, workload))
    _timed("camouflage: 100 MIN queries (one LP each)", 1.0,
           lambda: answer_queries(vectors, [f"MIN:{q.text.split(':')[1]}" for q in workload[:100]]))
    small = big[:30]
    queries = random_workload(30, 40, np.random.default_rng(2))
    _timed("audit: 40 random SUM queries over 30 records, protection 10%", 1.0,
           lambda: audit_queries(small, queries, protection=10))
    _timed("maps: camouflage and audit, 3 levels x 10 queries x 12 records", 2.0,
           lambda: (camouflage_map(big, [5, 20, 50], queries=10, records=12),
                    audit_map(big, [5, 20, 50], queries=10, records=12)))
    persons = read_table(BUNDLED_DATA["persons (synthetic, categorical keys)"])
    _timed("granularity: persons (2,000 records), tables of 2 and 3 of age, sex, marital, region", 2.0,
           lambda: granularity_analysis(persons, ["age", "sex", "marital", "region"]))


if __name__ == "__main__":
    main()
