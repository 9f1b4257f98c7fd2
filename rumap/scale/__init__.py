"""Categorical-key work on files larger than memory, out of core in Polars' streaming engine.

:func:`scan` opens a CSV or Parquet file lazily, :func:`key_frequencies`
counts its key values (sample and weighted, a missing value matching any
category) and :func:`apply_chunks` runs a record-wise pass a chunk at a time
with progress on stderr. The results equal the in-memory path's
(:mod:`rumap.risk.individual`) on files both can hold. Needs ``polars``
(``pip install 'rumap[scale]'``).
"""

from rumap.scale.frequencies import KeyFrequencies, key_frequencies, row_codes, wildcard_join
from rumap.scale.passes import apply_chunks
from rumap.scale.risk import (
    FileFrequencies,
    ScaleRisk,
    frequencies_file,
    identity_risk,
    individual_risk,
    l_diversity_rows,
    row_risk,
)
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Progress, Source, progress_to, scan

__all__ = ["Source", "scan", "apply_chunks", "Progress", "progress_to", "DEFAULT_CHUNK_SIZE", "KeyFrequencies", "key_frequencies",
           "wildcard_join", "row_codes", "ScaleRisk", "individual_risk", "row_risk", "l_diversity_rows",
           "identity_risk", "FileFrequencies", "frequencies_file"]
