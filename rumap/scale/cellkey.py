"""The cell key method on a file larger than memory: one streaming group-by, then the table of its leaf cells.

The records of a CSV or Parquet file are counted and their record keys
summed per combination of the dimensions' codes in Polars' streaming engine;
the table with every subtotal is then built from those leaf cells (a few
rows per cell, not per record), so memory follows the table, not the file.
Keys with at most 8 digits are summed as integers, so the cells' keys equal
those of :func:`rumap.tables.cellkey.cellkey_table` on the same file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from rumap._validation import InstanceOf, validate_params
from rumap.errors import InputError
from rumap.examples import example_file
from rumap.scale.source import polars_module, scan
from rumap.tables.cellkey import CellKeyTable, perturbed_table
from rumap.tables.ndtable import build_table
from rumap.tables.ptable import PTable, create_ptable

__all__ = ["cellkey_table_file"]

_SCALE = 10.0**8


def _example() -> dict[str, Any]:
    path = example_file("cellkey_persons.csv", "sex,rk\nf,0.25\nf,0.5\nm,0.125\n")
    return {"path": str(path), "dims": ["sex"], "ptable": create_ptable(3, 1.08, 1), "record_key": "rk"}


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"),
                  "ptable": InstanceOf(PTable, "a PTable (see rumap.tables.ptable.create_ptable)")},
                 example=_example)
def cellkey_table_file(path: str | os.PathLike, dims: Sequence[str], ptable: PTable,
                       hierarchies: Mapping[str, Any] | None = None, *, record_key: str,
                       weight: str | None = None) -> CellKeyTable:
    """The cell key method on a CSV or Parquet file of any size (record keys read from a column).

    Parameters
    ----------
    path : str or path-like
    dims : sequence of str
        The spanning variables.
    ptable : PTable
    hierarchies : mapping, optional
        ``{dimension: Hierarchy}``.
    record_key : str
        The column of record keys in [0, 1].
    weight : str, optional
        A column of sampling weights.

    Returns
    -------
    CellKeyTable
        As :func:`rumap.tables.cellkey.cellkey_table` makes it of the same records.

    Raises
    ------
    InputError
        A missing column or code, a record key outside [0, 1], a negative weight.
    """
    pl = polars_module()
    names = [str(d) for d in dims]
    used = list(dict.fromkeys([*names, record_key, *([weight] if weight else [])]))
    source = scan(path, columns=used)
    frame = source.lazy()
    key = pl.col(record_key).cast(pl.Float64)
    scaled = (key * _SCALE).round(0)
    checks = source.collect(frame.select(
        *(pl.col(d).null_count().alias(f"null_{d}") for d in names),
        key.is_null().sum().alias("key_null"), ((key < 0) | (key > 1)).sum().alias("key_out"),
        (scaled / _SCALE != key).sum().alias("inexact"),
        *(([(pl.col(weight).cast(pl.Float64) < 0).sum().alias("weight_negative")]) if weight else [])))
    row = checks.row(0, named=True)
    for d in names:
        if row[f"null_{d}"]:
            raise InputError(f"dims {d!r} is missing in {row[f'null_{d}']} records of {path}: spanning variables "
                             "need a code in every record")
    if row["key_null"] or row["key_out"]:
        raise InputError(f"record_key {record_key!r}: {row['key_null'] + row['key_out']} records of {path} have no "
                         "record key in [0, 1]")
    if weight and row["weight_negative"]:
        raise InputError(f"weight {weight!r}: {row['weight_negative']} records of {path} have a negative weight")
    integer = row["inexact"] == 0
    sums = [pl.len().cast(pl.Float64).alias("__count"),
            (scaled.cast(pl.Int64).sum().cast(pl.Float64) if integer else key.sum()).alias("__key")]
    if weight:
        sums.append(pl.col(weight).cast(pl.Float64).sum().alias("__weight"))
    leaves = source.collect(frame.group_by(names).agg(sums)).to_pandas()
    if integer and leaves["__key"].sum() >= 2.0**53:
        integer = False
        leaves = source.collect(frame.group_by(names).agg([sums[0], key.sum().alias("__key"), *sums[2:]])).to_pandas()
    counts = build_table(leaves, names, hierarchies, "__count", top=2)
    key_sums = build_table(leaves, names, hierarchies, "__key", top=2).values
    weighted = build_table(leaves, names, hierarchies, "__weight", top=2).values if weight else None
    config = {"record_key": record_key, "seed": None, "weight": weight, "engine": "scale"}
    return perturbed_table(counts, counts.values, key_sums, integer, ptable, weighted, config)
