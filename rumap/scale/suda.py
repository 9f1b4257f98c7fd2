"""SUDA2 of a file larger than memory: the search on the distinct key rows, the scores written chunk by chunk.

Every result of SUDA2 (:mod:`rumap.risk.suda`) depends on a record's key
values only: only a record whose whole key (a missing value a value of its
own) no other record shares can have a minimal sample unique, and the search
already runs on the distinct key rows with their numbers of records. Here the
distinct rows and their counts come from one streaming group-by
(:func:`rumap.scale.key_frequencies`), the search and the scores run on them,
and each record takes its row's values in a chunked pass
(:func:`rumap.scale.apply_chunks`) that writes them to a file: memory
follows the number of distinct key rows, not the number of records.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.risk.suda import (
    DEFAULT_DIS_FRACTION,
    DEFAULT_MAX_SIZE,
    _row_msus,
    _row_scores,
    searched_size,
    smallest_msu,
    variable_table,
)
from rumap.scale.frequencies import key_frequencies
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Progress, Source, _example_file, apply_chunks, polars_module, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FileSuda", "suda_file"]


@dataclass(frozen=True)
class FileSuda:
    """SUDA2 of a file: the totals of :class:`rumap.risk.suda.SudaResult` (each record's values went to a file).

    Attributes
    ----------
    keys : tuple of str
    max_size : int
        Largest MSU size searched.
    dis_fraction : float
    n : int
        Records.
    distinct_rows : int
        Distinct key rows searched.
    msus_by_size : tuple of int
        MSUs of each size, 1 to ``max_size``, over the file.
    special_uniques : int
        Records with at least one MSU.
    sample_uniques : int
    dis : float
        The file's DIS risk.
    variables : tuple of (str, int)
        Per key variable, the MSUs that include it, most first.
    max_score, max_dis_score : float
        The highest SUDA and DIS scores.
    out : str or None
        The file of each record's ``msus``, ``smallest_msu``, ``score`` and ``dis_score``.
    """

    keys: tuple[str, ...]
    max_size: int
    dis_fraction: float
    n: int
    distinct_rows: int
    msus_by_size: tuple[int, ...]
    special_uniques: int
    sample_uniques: int
    dis: float
    variables: tuple[tuple[str, int], ...]
    max_score: float
    max_dis_score: float
    out: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The totals of :meth:`rumap.risk.suda.SudaResult.to_dict`, the highest scores and the file written
        (``records_out``), as :meth:`rumap.scale.ScaleRisk.to_dict` names it."""
        return {"n": self.n, "keys": list(self.keys), "max_size": self.max_size, "dis_fraction": self.dis_fraction,
                "msus_by_size": {str(k + 1): int(c) for k, c in enumerate(self.msus_by_size)},
                "special_uniques": self.special_uniques, "sample_uniques": self.sample_uniques, "dis": self.dis,
                "variables": [{"variable": v, "msus": int(c)} for v, c in self.variables],
                "max_score": self.max_score, "max_dis_score": self.max_dis_score,
                "distinct_rows": self.distinct_rows, "engine": "scale", "records_out": self.out}

    def to_frame(self) -> Any:
        """MSUs per key variable, most first."""
        import pandas as pd

        return pd.DataFrame(list(self.variables), columns=["variable", "msus"])


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "max_size": [None, "max_size"], "dis_fraction": "dis_fraction",
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk",
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"source": scan(_example_file()), "keys": ["sex", "region"], "out": None,
                                  "progress": False})
def suda_file(source: Source, keys: Sequence[str], out: str | os.PathLike | None = None,
              max_size: int | None = DEFAULT_MAX_SIZE, dis_fraction: float = DEFAULT_DIS_FRACTION,
              chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True,
              budget: WorkBudget = DEFAULT_BUDGET) -> FileSuda:
    """SUDA2's minimal sample uniques, SUDA and DIS scores of a file, out of core.

    The same values as :func:`rumap.risk.suda.suda2` on a file both can hold.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
        The key variables.
    out : str or path-like or None
        The ``.parquet`` or ``.csv`` file of each record's ``msus``,
        ``smallest_msu``, ``score`` and ``dis_score``, in file order (None:
        the totals only).
    max_size : int, optional
        Largest MSU size searched (default: the number of keys).
    dis_fraction : float, default 0.01
        The sampling fraction of the DIS score.
    chunk_size : int
        Records per chunk written.
    progress : bool
        Report the passes on stderr.
    budget : WorkBudget
        Distinct key rows x variables x subsets of up to ``max_size`` variables, checked first.

    Returns
    -------
    FileSuda

    References
    ----------
    Manning, Haglin & Keane (2008), SUDA2; Skinner & Elliot (2002), DIS;
    sdcMicro's ``suda2``.

    Examples
    --------
    >>> result = suda_file(scan(_example_file()), ["sex", "region"], progress=False)
    >>> result.sample_uniques, result.special_uniques, result.msus_by_size
    (2, 1, (1, 0))
    """
    frequencies = key_frequencies(source, keys)
    names = list(frequencies.keys)
    p = len(names)
    size = searched_size(max_size, p)
    count = frequencies.count
    subsets = sum(comb(p, k) * k for k in range(1, size + 1))
    budget.check_work(float(subsets) * count.size, f"{count.size} distinct key rows x {subsets} variables over the "
                                                   f"subsets of up to {size} keys")
    meter = Progress("SUDA2 on the distinct key rows", enabled=progress)
    distinct = frequencies.codes.astype(np.int64) - 1  # -1 missing, as rumap.risk.cells.key_codes
    found, per_variable = _row_msus(distinct, count, size)
    del distinct
    score, dis_score, dis, uniques = _row_scores(found, count, p, float(dis_fraction))
    meter.update(frequencies.n, final=True)
    total = found.sum(axis=1)
    smallest = smallest_msu(found)
    if out is not None:
        pl = polars_module()

        def per_record(chunk: pl.DataFrame, start: int) -> pl.DataFrame:
            rows = frequencies.rows(chunk)
            return pl.DataFrame({"msus": total[rows], "smallest_msu": smallest[rows], "score": score[rows],
                                 "dis_score": dis_score[rows]})

        apply_chunks(source, per_record, out=out, chunk_size=chunk_size, columns=names, progress=progress,
                     label=f"writing {out}")
    return FileSuda(keys=tuple(names), max_size=size, dis_fraction=float(dis_fraction), n=frequencies.n,
                    distinct_rows=int(count.size),
                    msus_by_size=tuple(int(c) for c in (found * count[:, None]).sum(axis=0)),
                    special_uniques=int(count[total > 0].sum()), sample_uniques=uniques, dis=dis,
                    variables=tuple((str(v), int(c)) for v, c in variable_table(names, per_variable).itertuples(
                        index=False)),
                    max_score=float(score.max()), max_dis_score=float(dis_score.max()),
                    out=None if out is None else str(out))
