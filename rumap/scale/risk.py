"""Individual, household and global risk, k-anonymity and l-diversity of a file larger than memory.

The measures of :mod:`rumap.risk.individual` (the mu-Argus individual risk,
``1 - prod(1 - r_i)`` over a household, distinct l-diversity, with a missing
key value matching any category), computed from the file's distinct key rows
(:func:`rumap.scale.key_frequencies`) and, for what needs each record,
chunk by chunk (:func:`rumap.scale.apply_chunks`): memory holds the distinct
key rows, the households' sums and one chunk, never the file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.risk.identity import IdentityResult
from rumap.risk.poisson_gamma import BETA_ESTIMATORS
from rumap.scale.frequencies import KeyFrequencies, _by_pattern, _folded, _grouped, key_frequencies
from rumap.scale.source import DEFAULT_CHUNK_SIZE, Progress, Source, _example_file, apply_chunks, polars_module, scan

if TYPE_CHECKING:
    import polars as pl

__all__ = ["ScaleRisk", "individual_risk", "row_risk", "l_diversity_rows", "identity_risk"]



@dataclass(frozen=True)
class ScaleRisk:
    """Totals of the individual risk of a file (its per-record values go to a file, not to memory).

    Attributes
    ----------
    keys : tuple of str
    n : int
        Records.
    weighted : bool
    expected_reidentifications : float
        Sum of the individual risks.
    global_risk : float
        Their mean.
    max_risk : float
        The highest individual risk.
    records_at_max : int
        Records with it.
    distinct_rows : int
        Distinct key rows (a missing value counted as a value of its own).
    household_expected_reidentifications : float or None
        Sum over records of their household's risk.
    households : int or None
    k : int or None
    k_anonymity_violations : int or None
        Records with ``f_k < k``.
    sensitive : str or None
    l_diversity_min : int or None
        The least distinct l-diversity of a record.
    l_diversity_one : int or None
        Records whose key group shows one value of the sensitive variable.
    records_out : str or None
        The file the per-record values were written to.
    """

    keys: tuple[str, ...]
    n: int
    weighted: bool
    expected_reidentifications: float
    global_risk: float
    max_risk: float
    records_at_max: int
    distinct_rows: int
    household_expected_reidentifications: float | None = None
    households: int | None = None
    k: int | None = None
    k_anonymity_violations: int | None = None
    sensitive: str | None = None
    l_diversity_min: int | None = None
    l_diversity_one: int | None = None
    records_out: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The totals under the keys of :meth:`rumap.risk.individual.IndividualRisk.to_dict`, and the engine's own.

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {"n": self.n, "keys": list(self.keys),
                               "expected_reidentifications": self.expected_reidentifications,
                               "global_risk": self.global_risk, "max_risk": self.max_risk,
                               "records_at_max": self.records_at_max, "distinct_rows": self.distinct_rows,
                               "weighted": self.weighted, "engine": "scale", "records_out": self.records_out}
        if self.household_expected_reidentifications is not None:
            out["household_expected_reidentifications"] = self.household_expected_reidentifications
            out["households"] = self.households
        if self.k is not None:
            out["k"] = self.k
            out["k_anonymity_violations"] = self.k_anonymity_violations
        if self.sensitive is not None:
            out["l_diversity_min"] = self.l_diversity_min
            out["l_diversity_one"] = self.l_diversity_one
        return json_safe(out)

    def to_frame(self):
        """Two columns, quantity and value.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        d = self.to_dict()
        d["keys"] = " x ".join(self.keys)
        return pd.DataFrame({"quantity": list(d), "value": list(d.values())})


@assumes_valid
def row_risk(frequencies: KeyFrequencies) -> np.ndarray:
    """The individual risk of each distinct key row: ``1 / f_k`` without weights, else the mu-Argus formula.

    Parameters
    ----------
    frequencies : KeyFrequencies

    Returns
    -------
    ndarray of float, shape (m,)

    Examples
    --------
    >>> row_risk(key_frequencies(scan(_example_file()), ["sex"])).tolist()
    [0.5, 0.5]
    """
    from rumap.risk.individual import _risk

    if not frequencies.weighted:
        return 1.0 / frequencies.fk
    return _risk(frequencies.fk, np.maximum(frequencies.Fk, frequencies.fk))


@assumes_valid
def l_diversity_rows(source: Source, frequencies: KeyFrequencies, sensitive: str) -> np.ndarray:
    """Distinct l-diversity of each distinct key row: values of ``sensitive`` among the records matching it.

    A missing key value matches any category and missing sensitive values are
    not counted, as in :func:`rumap.risk.individual.l_diversity`. The file is
    reduced to its distinct (key row, sensitive value) pairs; for each pair of
    missing-value patterns the pairs are joined on the keys both know.

    Parameters
    ----------
    source : Source
    frequencies : KeyFrequencies
        Of ``source`` on its keys.
    sensitive : str
        The sensitive column (not a key).

    Returns
    -------
    ndarray of int64, shape (m,)

    Examples
    --------
    >>> source = scan(_example_file())
    >>> l_diversity_rows(source, key_frequencies(source, ["sex"]), "region").tolist()
    [1, 1]
    """
    pl = polars_module()
    keys = list(frequencies.keys)
    frame = source.lazy([*keys, sensitive])
    schema = frame.collect_schema()
    frame = frame.with_columns([pl.col(c).fill_nan(None) for c in [*keys, sensitive] if schema[c].is_float()])
    # the distinct (key row, sensitive value) pairs, grouped as one integer per record like the key rows
    _, seen, both = _grouped(source, frame.filter(pl.col(sensitive).is_not_null()), [*keys, sensitive], [pl.len()])
    m = frequencies.codes.shape[0]
    if both.shape[0] == 0:
        return np.zeros(m, dtype=np.int64)
    for j in range(len(keys)):  # the pairs' codes of a key's values, as the whole file codes them
        if seen[j].len():
            recode = np.concatenate([[0], frequencies.values[j].search_sorted(seen[j]).to_numpy() + 1])
            both[:, j] = recode[both[:, j]]
    row = frequencies.rows_of_codes(both[:, :-1])
    value = both[:, -1].astype(np.int64)
    del both
    import pandas as pd

    codes = frequencies.codes
    order, patterns, bounds = _by_pattern(codes)
    pattern = np.empty(m, dtype=np.int64)
    for q in range(patterns.size):
        pattern[order[bounds[q]:bounds[q + 1]]] = q
    radix = codes.max(axis=0).astype(np.int64) + 1
    rows_of = [np.sort(order[bounds[q]:bounds[q + 1]]) for q in range(patterns.size)]
    pairs_of = _members(pattern[row], patterns.size)
    values = int(value.max()) + 1
    found = [row * values + value]  # one number per (key row, sensitive value) a row's group holds
    for q, mask_q in enumerate(patterns):
        mine = pairs_of[q]
        for r, mask_r in enumerate(patterns):
            lookers = rows_of[r]
            if q == r or mine.size == 0 or lookers.size == 0:
                continue
            shared = int(mask_q & mask_r)
            if shared == 0:
                seen = np.unique(value[mine])
                found.append((lookers[:, None] * values + seen[None, :]).reshape(-1))
                continue
            columns = [j for j in range(codes.shape[1]) if shared >> j & 1]
            block = np.empty((rows_of[q].size + lookers.size, len(columns)), dtype=np.int64, order="F")
            for i, j in enumerate(columns):
                block[:, i] = np.concatenate([codes[rows_of[q], j], codes[lookers, j]])
            key = _folded(block, radix[columns])[0]
            del block
            theirs = key[: rows_of[q].size][np.searchsorted(rows_of[q], row[mine])]  # each pair's row's number
            ours = key[rows_of[q].size:]
            meeting = pd.Series(ours).isin(theirs).to_numpy()  # only the lookers some pair matches
            table = pl.DataFrame({"key": theirs, "value": value[mine]}).unique()
            joined = pl.DataFrame({"row": lookers[meeting], "key": ours[meeting]}).join(table, on="key")
            found.append(joined["row"].to_numpy().astype(np.int64) * values + joined["value"].to_numpy())
    numbers = np.unique(np.concatenate(found))
    del found
    return np.bincount(numbers // values, minlength=m).astype(np.int64)


def _members(group: np.ndarray, groups: int) -> list[np.ndarray]:
    """The indices of each group's members, for groups numbered ``0 .. groups - 1``."""
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(groups + 1))
    return [order[starts[g]:starts[g + 1]] for g in range(groups)]


def _household_sums(chunk: pl.DataFrame, start: int, household: str, risk: np.ndarray, path: str
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per household of a chunk: its id, the sum of ``log(1 - r)``, whether a member is surely identified, its size."""
    import pandas as pd

    ids = chunk.get_column(household)
    if ids.null_count():
        row = start + int(np.argmax(ids.is_null().to_numpy())) + 1
        raise InputError(f"{path}: household {household!r} is missing in row {row}")
    group, uniques = pd.factorize(ids.to_numpy())
    return (np.asarray(uniques), np.bincount(group, weights=np.log1p(-np.minimum(risk, 1.0 - 1e-16))),
            np.bincount(group, weights=(risk >= 1.0).astype(float)), np.bincount(group).astype(float))


def _combined(partial: list[tuple[np.ndarray, ...]]) -> tuple[Any, np.ndarray, np.ndarray]:
    """The households of every chunk's sums (a hash index of their ids), their risk and their sizes."""
    import pandas as pd

    group, uniques = pd.factorize(np.concatenate([p[0] for p in partial]))
    log, certain, size = (np.bincount(group, weights=np.concatenate([p[i] for p in partial])) for i in (1, 2, 3))
    return pd.Index(uniques), np.where(certain > 0, 1.0, -np.expm1(log)), size


@validate_params({"source": InstanceOf(Source), "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "weight": [None, InstanceOf(str, "a column name")],
                  "household": [None, InstanceOf(str, "a column name")], "k": [None, "k"],
                  "sensitive": [None, InstanceOf(str, "a column name")],
                  "out": [None, InstanceOf((str, os.PathLike), "a file path")],
                  "chunk_size": "record_chunk",
                  "progress": InstanceOf(bool, "True or False")},
                 example=lambda: {"source": scan(_example_file()), "keys": ["sex", "region"], "weight": "w", "k": 2})
def individual_risk(source: Source, keys: Sequence[str], weight: str | None = None, household: str | None = None,
                    k: int | None = None, sensitive: str | None = None, out: str | os.PathLike | None = None,
                    chunk_size: int = DEFAULT_CHUNK_SIZE, progress: bool = True) -> ScaleRisk:
    """Individual, household and global risk, k-anonymity and l-diversity of a file, out of core.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    keys : sequence of str
        The intruder's key variables.
    weight : str, optional
        Sampling weights (default: the file is a census, risk ``1 / f_k``).
    household : str, optional
        Household identifier: adds the household risk.
    k : int, optional
        Count the records violating k-anonymity.
    sensitive : str, optional
        Adds distinct l-diversity of this variable.
    out : str or path-like, optional
        A ``.parquet`` or ``.csv`` file for the per-record values, in file
        order: ``fk``, ``Fk``, ``risk`` (and ``household_risk``, ``l_diversity``).
    chunk_size : int
        Records per chunk of the record-wise passes.
    progress : bool
        Report the passes on stderr.

    Returns
    -------
    ScaleRisk
        Totals equal to those of :func:`rumap.risk.individual.individual_risk`
        (sums added in another order).

    Examples
    --------
    >>> result = individual_risk(scan(_example_file()), ["sex", "region"], k=2, progress=False)
    >>> result.expected_reidentifications, result.k_anonymity_violations
    (2.0, 0)
    """
    pl = polars_module()
    for name, what in ((household, "household"), (sensitive, "sensitive variable")):
        if name is not None and name in keys:
            raise InputError(f"{source.path}: the {what} {name!r} is also a key")
    meter = Progress("key frequencies (one streaming pass)", enabled=progress)
    frequencies = key_frequencies(source, keys, weight)
    meter.update(frequencies.n, final=True)
    names = list(frequencies.keys)
    risk = row_risk(frequencies)
    count = frequencies.count
    expected = float(np.dot(count, risk))
    top = float(risk.max())
    diversity = None
    if sensitive is not None:
        if sensitive not in scan(source.path).columns:
            raise InputError(f"{source.path}: no column {sensitive!r}; columns are {', '.join(scan(source.path).columns)}")
        meter = Progress(f"l-diversity of {sensitive}", enabled=progress)
        diversity = l_diversity_rows(source, frequencies, sensitive)
        meter.update(frequencies.n, final=True)
    household_er = households = None
    household_table = None
    if household is not None:
        if household not in scan(source.path).columns:
            raise InputError(f"{source.path}: no column {household!r}; columns are "
                             f"{', '.join(scan(source.path).columns)}")
        partial: list[tuple[np.ndarray, ...]] = []
        apply_chunks(source, lambda chunk, start: partial.append(
            _household_sums(chunk, start, household, risk[frequencies.rows(chunk)], source.path)),
            chunk_size=chunk_size, columns=[*names, household], progress=progress, label="household risk")
        household_table = _combined(partial)
        partial.clear()
        household_er = float(np.dot(household_table[2], household_table[1]))
        households = int(household_table[1].size)
    if out is not None:
        def per_record(chunk: pl.DataFrame, start: int) -> pl.DataFrame:
            rows = frequencies.rows(chunk)
            frame = pl.DataFrame({"fk": frequencies.fk[rows], "Fk": frequencies.Fk[rows], "risk": risk[rows]})
            if household_table is not None:
                at = household_table[0].get_indexer(chunk.get_column(household).to_numpy())
                frame = frame.with_columns(pl.Series("household_risk", household_table[1][at]))
            if diversity is not None:
                frame = frame.with_columns(pl.Series("l_diversity", diversity[rows]))
            return frame

        apply_chunks(source, per_record, out=out, chunk_size=chunk_size,
                     columns=[*names, *([household] if household is not None else [])], progress=progress,
                     label=f"writing {out}")
    n = frequencies.n
    return ScaleRisk(keys=tuple(names), n=n, weighted=frequencies.weighted, expected_reidentifications=expected,
                     global_risk=expected / n, max_risk=top, records_at_max=int(count[risk >= top].sum()),
                     distinct_rows=int(count.size), household_expected_reidentifications=household_er,
                     households=households, k=k,
                     k_anonymity_violations=None if k is None else int(count[frequencies.fk < k].sum()),
                     sensitive=sensitive,
                     l_diversity_min=None if diversity is None else int(diversity.min()),
                     l_diversity_one=None if diversity is None else int(count[diversity == 1].sum()),
                     records_out=None if out is None else str(out))



@validate_params({"source": InstanceOf(Source), "key": InstanceOf((list, tuple), "a list of key columns"),
                  "N": "N", "a": "a", "max_risk": [None, "risk_bound"], "cells": [None, "cells"],
                  "method": StrOptions(BETA_ESTIMATORS)},
                 example=lambda: {"source": scan(_example_file()), "key": ["sex"], "N": 1000.0, "a": 10.0})
def identity_risk(source: Source, key: Sequence[str], N: float, a: float, max_risk: float | None = None,
                  cells: int | None = None, method: str = "ml") -> IdentityResult:
    """Population uniques and identification risk of a file's key (Mokken et al. 1992), out of core.

    Parameters
    ----------
    source : Source
        From :func:`rumap.scale.scan`.
    key : sequence of str
        The key variables (no missing value).
    N, a, max_risk, cells, method
        As in :func:`rumap.risk.identity.identity_risk_from_data`.

    Returns
    -------
    IdentityResult
        Equal to :func:`rumap.risk.identity.identity_risk_from_data` on the file.

    Examples
    --------
    >>> identity_risk(scan(_example_file()), ["sex"], N=1000.0, a=10.0).observed_cells
    2
    """
    from rumap.risk.identity import identity_from_frequencies

    frequencies = key_frequencies(source, key)
    names = list(frequencies.keys)
    if frequencies.rows_with_missing:
        pl = polars_module()
        frame = source.lazy(names)
        schema = frame.collect_schema()
        gone = [(pl.col(c).is_null() | pl.col(c).is_nan()) if schema[c].is_float() else pl.col(c).is_null()
                for c in names]
        first = source.collect(frame.with_row_index("row").filter(pl.any_horizontal(gone)).head(1)
                               .select("row", *[g.alias(c) for g, c in zip(gone, names, strict=True)]))
        column = next(c for c in names if first[c].item())
        raise InputError(f"{source.path}: key column {column!r} has a missing value in row {first['row'].item() + 1}")
    k = int(np.prod([float(v.len()) for v in frequencies.values])) if cells is None else cells
    return identity_from_frequencies(frequencies.count, names, k, N, a, max_risk, method, source.path)
