"""Key frequencies and individual risk of a file on a Dask cluster (Dask DataFrame).

The workers read the file's partitions and count each distinct key row (a
missing value a value of its own) with its total weight, in one group-by;
the client joins the missing-value patterns of those rows
(:func:`rumap.risk.cells.class_wildcard_frequencies`, a missing value matching
any category) and adds each row's risk times its records. The frequencies
are those of one machine (:func:`rumap.risk.individual.key_frequencies_with_missing`)
and the totals equal its sums, added in another order. The scheduler is an
address (the command line's ``--scheduler``), a ``distributed.Client``, or
None for Dask's threads on this machine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, validate_params
from rumap.errors import InputError, optional_module
from rumap.examples import persons_file
from rumap.io.formats import dask_frame
from rumap.risk.cells import class_wildcard_frequencies
from rumap.risk.individual import individual_risk_kernel

__all__ = ["ClusterFrequencies", "cluster_key_frequencies", "cluster_individual_risk", "cluster_scale_risk"]

_ONE = "__rumap_one"
#: Seconds to wait for a scheduler before giving up.
_CONNECT_TIMEOUT = 10




@dataclass(frozen=True)
class ClusterFrequencies:
    """The distinct key rows of a file with their records, weights and frequencies.

    Attributes
    ----------
    keys : tuple of str
    rows : DataFrame
        One row per distinct key row: the keys' values (missing where missing),
        ``count``, ``weight`` (their total weight, their number without
        weights), ``fk`` and ``Fk`` (a missing value matching any category).
    n : int
        Records.
    weighted : bool
    """

    keys: tuple[str, ...]
    rows: pd.DataFrame = field(repr=False)
    n: int
    weighted: bool

    def to_frame(self) -> pd.DataFrame:
        """The distinct key rows."""
        return self.rows.copy()


def cluster_client(scheduler: Any) -> tuple[Any, bool]:
    """A Dask client for ``scheduler`` (an address or a client; None for none) and whether it is ours to close."""
    if scheduler is None or not isinstance(scheduler, str):
        return scheduler, False
    distributed = optional_module("distributed", "working on a Dask cluster", "dask")
    try:
        return distributed.Client(scheduler, timeout=_CONNECT_TIMEOUT), True
    except Exception as exc:  # noqa: BLE001 - unreachable, not an address, or a client whose loop failed to start
        raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {exc}") from None


def _read(path: str, columns: list[str]) -> Any:
    frame = dask_frame(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: no column {missing[0]!r}; columns are {', '.join(map(str, frame.columns))}")
    return frame[columns]


@validate_params({"path": InstanceOf((str, os.PathLike), "a file path"),
                  "keys": InstanceOf((list, tuple), "a list of key columns"),
                  "weight": [None, InstanceOf(str, "a column name")]},
                 example=lambda: {"path": persons_file(), "keys": ["sex", "region"], "weight": "w"})
def cluster_key_frequencies(path: str | os.PathLike, keys: Sequence[str], weight: str | None = None,
                            scheduler: Any = None) -> ClusterFrequencies:
    """Sample and weighted frequencies of every distinct key row of a file, counted on a Dask cluster.

    Parameters
    ----------
    path : str or path-like
        A ``.parquet`` or ``.csv`` file the workers can read.
    keys : sequence of str
    weight : str, optional
        Sampling weights (each >= 1).
    scheduler : str or distributed.Client, optional
        The scheduler's address or a client (default: Dask's threads here).

    Returns
    -------
    ClusterFrequencies

    Examples
    --------
    >>> result = cluster_key_frequencies(persons_file(), ["sex", "region"], weight="w")
    >>> result.rows[["sex", "count", "fk", "Fk"]].values.tolist()
    [['f', 2, 2, 30.0], ['m', 1, 2, 13.0], ['m', 1, 2, 13.0]]
    """
    names = [str(k) for k in keys]
    if not names or len(set(names)) != len(names) or (weight is not None and weight in names):
        raise InputError("give distinct key columns (and a weight column that is not a key)")
    frame = _read(str(path), names + ([weight] if weight else []))
    entry = PARAMETERS["sampling_weight"]
    work = []
    if weight is not None:
        frame[weight] = frame[weight].astype(float)
        w = frame[weight]
        work.append((~(w >= entry.low) | (w == np.inf)).sum())  # records whose weight is not one (NaN fails >=)
    frame = frame.assign(**{_ONE: 1})
    grouped = frame.groupby(names, dropna=False)[[_ONE] + ([weight] if weight else [])].sum()
    client, own = cluster_client(scheduler)
    try:
        if client is not None:
            computed = client.gather(client.compute([grouped, *work]))
        else:
            computed = optional_module("dask", "working on a Dask cluster", "dask").compute(grouped, *work)
    finally:
        if own:
            client.close()
    if work and int(computed[1]):
        raise InputError(f"{path}: weight {weight!r} must be {entry.describe()} in every record, "
                         f"{int(computed[1])} record(s) are not")
    table = computed[0].reset_index()
    table = table.sort_values(names, kind="stable", na_position="first").reset_index(drop=True)
    count = table[_ONE].to_numpy(dtype=float)
    total = table[weight].to_numpy(dtype=float) if weight else count
    codes = np.column_stack([pd.factorize(table[name], use_na_sentinel=True)[0] for name in names]).astype(np.int64)
    fk, Fk = class_wildcard_frequencies(codes, count, total)
    rows = table[names].assign(count=count.astype(np.int64), weight=total, fk=np.rint(fk).astype(np.int64), Fk=Fk)
    return ClusterFrequencies(tuple(names), rows, int(count.sum()), weight is not None)


#: The checks of the cluster's risk functions' arguments.
_RISK_ARGUMENTS = {"path": InstanceOf((str, os.PathLike), "a file path"),
                   "keys": InstanceOf((list, tuple), "a list of key columns"),
                   "weight": [None, InstanceOf(str, "a column name")], "k": [None, "k"],
                   "household": [None, InstanceOf(str, "a column name")],
                   "sensitive": [None, InstanceOf(str, "a column name")],
                   "chunk_size": [None, "record_chunk"]}


@validate_params(_RISK_ARGUMENTS, example=lambda: {"path": persons_file(), "keys": ["sex", "region"], "k": 2})
def cluster_individual_risk(path: str | os.PathLike, keys: Sequence[str], weight: str | None = None,
                            k: int | None = None, scheduler: Any = None, household: str | None = None,
                            sensitive: str | None = None, chunk_size: int | None = None) -> dict[str, Any]:
    """Individual, household and global risk, k-anonymity and l-diversity of a file, counted on a Dask cluster.

    With ``household`` or ``sensitive`` the workers read record ranges of
    the file as one machine's engine does (:mod:`rumap.scale.cluster_parts`):
    they count the distinct (key row, sensitive value) pairs, from which the
    client finds each key row's distinct l-diversity (a missing key value
    matching any category, :func:`rumap.scale.partitioned.diversity_pairs`);
    given each key row's risk, they sum ``log(1 - r)`` over each household's
    members in their range, and the client adds the ranges' sums up per
    household: the risk of a household is ``1 - prod(1 - r_i)``.

    Parameters
    ----------
    path : str or path-like
    keys : sequence of str
    weight : str, optional
        Sampling weights (default: the file is a census, risk ``1 / f_k``).
    k : int, optional
        Count the records violating k-anonymity.
    scheduler : str or distributed.Client, optional
    household : str, optional
        Household identifier: adds the household risk.
    sensitive : str, optional
        Adds distinct l-diversity of this variable.
    chunk_size : int, optional
        With ``household`` or ``sensitive``: records per partition (default:
        two partitions per worker thread, at most 10^6 records each).

    Returns
    -------
    dict
        ``n``, ``distinct_rows``, ``expected_reidentifications``,
        ``global_risk``, ``max_risk``, ``k_anonymity_violations``: the totals of
        :func:`rumap.risk.individual.individual_risk`; with ``household``,
        ``household_expected_reidentifications`` and ``households``; with
        ``sensitive``, ``l_diversity_min`` and ``l_diversity_one``, as
        :func:`rumap.scale.individual_risk` gives them.

    Examples
    --------
    >>> result = cluster_individual_risk(persons_file(), ["sex", "region"], k=2)
    >>> result["expected_reidentifications"], result["k_anonymity_violations"]
    (2.0, 0)
    >>> cluster_individual_risk(persons_file(), ["sex"], sensitive="region")["l_diversity_min"]
    1
    """
    if household is not None or sensitive is not None:
        return cluster_scale_risk(path, keys, weight, k, scheduler, household, sensitive, chunk_size)
    frequencies = cluster_key_frequencies(path, keys, weight, scheduler)
    rows = frequencies.rows
    fk, Fk, count = rows["fk"].to_numpy(), rows["Fk"].to_numpy(), rows["count"].to_numpy()
    risk = 1.0 / fk if not frequencies.weighted else individual_risk_kernel(fk, np.maximum(Fk, fk))
    expected = float((risk * count).sum())
    return {"keys": list(frequencies.keys), "n": frequencies.n, "distinct_rows": int(len(rows)),
            "weighted": frequencies.weighted, "expected_reidentifications": expected,
            "global_risk": expected / frequencies.n, "max_risk": float(risk.max()), "k": k,
            "k_anonymity_violations": None if k is None else int(count[fk < k].sum())}


def _household_chunk(path: str, household: str, frequencies: Any, risk: np.ndarray, chunk: Any, start: int
                     ) -> tuple[None, tuple[np.ndarray, ...]]:
    """The kernel of the households' pass: a range's households, their ids, sums of ``log(1 - r)``, members
    surely identified, and sizes."""
    from rumap.scale.risk import _household_sums

    ids = chunk.get_column(household)
    if ids.null_count():
        row = start + int(np.argmax(ids.is_null().to_numpy())) + 1
        raise InputError(f"{path}: household {household!r} is missing in row {row}")
    return None, tuple(_household_sums(chunk, household, risk[frequencies.rows(chunk)])[:4])


@validate_params(_RISK_ARGUMENTS, example=lambda: {"path": persons_file(), "keys": ["sex", "region"], "k": 2})
def cluster_scale_risk(path: str | os.PathLike, keys: Sequence[str], weight: str | None = None, k: int | None = None,
                       scheduler: Any = None, household: str | None = None, sensitive: str | None = None,
                       chunk_size: int | None = None) -> dict[str, Any]:
    """:func:`cluster_individual_risk`, the workers reading record ranges as :func:`rumap.scale.scan` reads them.

    The path :func:`cluster_individual_risk` takes with ``household`` or
    ``sensitive``; its values equal :func:`rumap.scale.individual_risk`'s
    (sums added in another order), a CSV file's types and missing values
    read as one machine's engine reads them.

    Parameters
    ----------
    path, keys, weight, k, scheduler, household, sensitive, chunk_size
        As in :func:`cluster_individual_risk`.

    Returns
    -------
    dict
        The keys of :func:`cluster_individual_risk`.

    Examples
    --------
    >>> cluster_scale_risk(persons_file(), ["sex", "region"], k=2)["k_anonymity_violations"]
    0
    """
    from rumap.engine import run_chunks
    from rumap.scale.cluster_parts import Ranges, cluster_frequencies, partitions
    from rumap.scale.partitioned import diversity_pairs
    from rumap.scale.risk import _combined, _Totals, row_risk
    from rumap.scale.source import scan

    source = scan(path)
    for name, what in ((household, "household"), (sensitive, "sensitive variable")):
        if name is not None and name in [str(key) for key in keys]:
            raise InputError(f"{source.path}: the {what} {name!r} is also a key")
        if name is not None and name not in source.columns:
            raise InputError(f"{source.path}: no column {name!r}; columns are {', '.join(source.columns)}")
    client, own = cluster_client(scheduler)
    try:
        frequencies, pairs = cluster_frequencies(source, keys, weight, sensitive, client, chunk_size)
        risk = row_risk(frequencies)
        diversity = None
        if pairs is not None:
            diversity = diversity_pairs(source, pairs.lazy(), frequencies, sensitive).counts(frequencies.codes.shape[0])
        totals = _Totals(k)
        totals.add(frequencies, risk, diversity)
        out: dict[str, Any] = {"keys": list(frequencies.keys), "n": frequencies.n,
                               "distinct_rows": int(frequencies.codes.shape[0]), "weighted": frequencies.weighted,
                               "expected_reidentifications": totals.expected,
                               "global_risk": totals.expected / frequencies.n, "max_risk": totals.top, "k": k,
                               "k_anonymity_violations": None if k is None else totals.violations}
        if household is not None:
            frequencies._numbers()  # the rows' look-up made once, here, and sent with them
            workers = sum(client.nthreads().values()) if client is not None else 1
            found: list[tuple[np.ndarray, ...]] = []
            run_chunks(Ranges(client, source.path, (*frequencies.keys, household),
                              tuple(partitions(frequencies.n, chunk_size, workers))),
                       partial(_household_chunk, source.path, household, frequencies, risk), gather=found.append)
            _, household_risk, size = _combined(found)
            out["household_expected_reidentifications"] = float(np.dot(size, household_risk))
            out["households"] = int(household_risk.size)
    finally:
        if own:
            client.close()
    if sensitive is not None:
        out["l_diversity_min"], out["l_diversity_one"] = totals.l_min, totals.l_one
    return out
