"""Special uniques: SUDA2's minimal sample uniques, SUDA scores and DIS scores of every record.

A *minimal sample unique* (MSU) of a record is a set of its key values that no
other record of the file shares, while every proper subset of it is shared
by another record. A record with small MSUs, or many of them, is a *special
unique*: an intruder needs to know little about the person to single the
record out, and it is likely unique in the population too (Elliot, Manning,
Mayes, Gurd & Bane, "SUDA: a program for detecting special uniques";
Manning, Haglin & Keane 2008, SUDA2).

With ``p`` key variables and MSUs searched up to size ``M``, an MSU of size
``k`` scores ``prod_{i=k}^{min(M, p - 1)} (p - i)`` (so ``(p - k)!`` when
``M = p``, sdcMicro's ``suda2`` default), and a record's SUDA score is the sum
over its MSUs. The DIS score turns scores into a probability of a correct
match (Skinner & Elliot 2002; Elliot, Manning & Ford 2002): with ``U`` the
sample uniques, ``P`` the records in key values met exactly twice, ``F`` the
sampling fraction,

- ``DIS = U F / (U F + P (1 - F))`` (the file's data intrusion simulation risk),
- ``Q = 1 + (8 - p) / 20`` and ``A = sum over scored records of score^(-Q)``,
- ``dis_score = 1 / (1 + (U / DIS - U) / (score^Q A))`` for a scored record, 0 otherwise,

as sdcMicro's ``suda2`` computes them. A missing key value is no item of its
record: the record cannot use that variable in an MSU, and it matches no
other record's value of the variable (as in sdcMicro).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.risk.cells import distinct_rows, key_codes, safe_cells
from rumap.risk.paired import as_frame, select_columns

__all__ = ["DEFAULT_DIS_FRACTION", "DEFAULT_MAX_SIZE", "SudaResult", "minimal_sample_uniques", "searched_size",
           "max_size_choices", "smallest_msu", "suda2", "suda_weights", "variable_table"]

#: Default sampling fraction of the DIS score (sdcMicro's ``DisFraction``).
DEFAULT_DIS_FRACTION = 0.01
#: Default largest MSU size: ``None``, every key variable (sdcMicro's ``suda2``); see :func:`searched_size`.
DEFAULT_MAX_SIZE: int | None = None


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "b"],
                                  "age": ["young", "old", "old", "old", "young", "young"]}),
            "keys": ["sex", "region", "age"]}


@dataclass(frozen=True)
class SudaResult:
    """SUDA2's special uniques of a file: MSUs per record, SUDA and DIS scores.

    Attributes
    ----------
    keys : tuple of str
        The key variables.
    max_size : int
        Largest MSU size searched.
    dis_fraction : float
        The sampling fraction of the DIS score.
    msu_counts : ndarray of int, shape (n, max_size)
        Column ``k - 1``: the record's MSUs of size ``k``.
    score : ndarray, shape (n,)
        SUDA score of each record, in file order.
    dis_score : ndarray, shape (n,)
        DIS score of each record.
    dis : float
        The file's DIS risk ``U F / (U F + P (1 - F))``.
    sample_uniques : int
        Records whose whole key is unique in the file (``U``).
    variable_msus : DataFrame
        Per key variable: ``msus`` (MSUs that include it), most first.
    """

    keys: tuple[str, ...]
    max_size: int
    dis_fraction: float
    msu_counts: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    dis_score: np.ndarray = field(repr=False)
    dis: float
    sample_uniques: int
    variable_msus: pd.DataFrame = field(repr=False)

    @property
    def n(self) -> int:
        return int(self.score.size)

    @property
    def special_uniques(self) -> int:
        """Records with at least one MSU."""
        return int((self.msu_counts.sum(axis=1) > 0).sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per record: ``msus`` (all sizes), ``smallest_msu`` (0 when none), ``score``, ``dis_score``."""
        total = self.msu_counts.sum(axis=1)
        return pd.DataFrame({"msus": total, "smallest_msu": smallest_msu(self.msu_counts), "score": self.score,
                             "dis_score": self.dis_score})

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data: per-record lists in file order and the totals (``risk suda --json`` prints it)."""
        return {"n": self.n, "keys": list(self.keys), "max_size": self.max_size, "dis_fraction": self.dis_fraction,
                "score": self.score.tolist(), "dis_score": self.dis_score.tolist(),
                "msus": self.msu_counts.sum(axis=1).tolist(),
                "msus_by_size": {str(k + 1): int(c) for k, c in enumerate(self.msu_counts.sum(axis=0))},
                "special_uniques": self.special_uniques, "sample_uniques": self.sample_uniques, "dis": self.dis,
                "variables": self.variable_msus.to_dict(orient="records")}


@validate_params({"variables": "key_variables",
                  "max_size": "max_size"},
                 example=lambda: {"variables": 4, "max_size": 4})
def suda_weights(variables: int, max_size: int) -> np.ndarray:
    """The score of one MSU of each size: ``prod_{i=k}^{min(M, p - 1)} (p - i)`` for ``k = 1..M``.

    Parameters
    ----------
    variables : int
        The number ``p`` of key variables.
    max_size : int
        The largest MSU size ``M`` (at most ``p``).

    Returns
    -------
    ndarray, shape (max_size,)
        Entry ``k - 1`` scores an MSU of size ``k``; ``(p - k)!`` when ``M = p``.

    References
    ----------
    Elliot, Manning, Mayes, Gurd & Bane, "SUDA: a program for detecting special
    uniques" (the score of an MSU); sdcMicro's ``suda2`` (``original_scores =
    TRUE``).

    Examples
    --------
    >>> suda_weights(4, 4).tolist()
    [6.0, 2.0, 1.0, 1.0]
    >>> suda_weights(5, 2).tolist()
    [12.0, 3.0]
    """
    if max_size > variables:
        raise InputError(f"max_size ({max_size}) cannot exceed the number of key variables ({variables})")
    top = min(max_size, variables - 1)
    return np.array([float(np.prod([variables - i for i in range(k, top + 1)])) for k in range(1, max_size + 1)])


@assumes_valid
def searched_size(max_size: int | None, variables: int) -> int:
    """The largest MSU size searched: ``max_size``, or every key when it is ``None`` (the default).

    Parameters
    ----------
    max_size : int or None
        The size asked for (:data:`DEFAULT_MAX_SIZE` when not given).
    variables : int
        The number of key variables.

    Returns
    -------
    int

    Examples
    --------
    >>> searched_size(DEFAULT_MAX_SIZE, 5), searched_size(2, 5)
    (5, 2)
    """
    if max_size is None:
        return variables
    if max_size > variables:
        raise InputError(f"max_size ({max_size}) cannot exceed the number of key variables ({variables})")
    return max_size


@assumes_valid
def max_size_choices(variables: int) -> list[int | None]:
    """The largest MSU sizes a search of ``variables`` keys can take: the default first, then 1 to ``variables``.

    Parameters
    ----------
    variables : int
        The number of key variables.

    Returns
    -------
    list
        :data:`DEFAULT_MAX_SIZE` (every key), then each size from 1 to
        ``variables`` that it is not.

    Examples
    --------
    >>> max_size_choices(3)
    [None, 1, 2, 3]
    """
    return [DEFAULT_MAX_SIZE, *(m for m in range(1, variables + 1) if m != DEFAULT_MAX_SIZE)]


@assumes_valid
def minimal_sample_uniques(codes: np.ndarray, max_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Count each record's minimal sample uniques by size, level by level over the subsets of variables.

    A record is unique on a subset of variables when it has every value of
    the subset and no other record shares them; the subset is minimal when
    the record is unique on none of its subsets one variable smaller (if it
    were unique on a smaller subset, it would be on one of those). Only
    records unique on the whole key can have one; a subset's cells are
    counted over the classes of records with the same values that lie, in
    every subset one variable smaller, in a cell of two records or more
    holding such a record (:func:`rumap.risk.cells.safe_cells`), so the work
    follows the records still searched, not records x subsets.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`rumap.risk.cells.key_codes` (-1 for missing).
    max_size : int
        Largest MSU size searched.

    Returns
    -------
    counts : ndarray of int, shape (n, max_size)
        The record's MSUs of each size.
    per_variable : ndarray of int, shape (p,)
        MSUs (over all records) that include each variable.

    Examples
    --------
    >>> import numpy as np
    >>> counts, per_variable = minimal_sample_uniques(np.array([[0, 0], [0, 1], [1, 1]]), 2)
    >>> counts.tolist(), per_variable.tolist()
    ([[1, 0], [0, 1], [1, 0]], [2, 2])
    """
    distinct, row = distinct_rows(codes)
    found, per_variable = row_msus(distinct, np.bincount(row), max_size)
    return found[row], per_variable


def row_msus(distinct: np.ndarray, multiplicity: np.ndarray, max_size: int, dtype: type = np.int64
             ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`minimal_sample_uniques` of distinct key rows (-1 missing) with the records of each.

    Returns each row's MSUs by size (0 for a row of two records or more: no
    sample unique), of type ``dtype`` (a row has at most ``comb(p, k)`` MSUs
    of size ``k``), and the MSUs that include each variable. ``multiplicity``
    may stop counting at 2: only whether a cell holds two records matters.
    """
    found = np.zeros((distinct.shape[0], max_size), dtype=dtype)
    per_variable = np.zeros(distinct.shape[1], dtype=np.int64)
    # records with the same values are no sample uniques; a record unique on the whole key is a class of its own
    candidates = np.flatnonzero(multiplicity == 1)  # missing as a value of its own here
    if candidates.size == 0:
        return found, per_variable
    # a candidate's MSU: a subset it is unique on (fewer than 2 records) while not unique on any smaller one
    for subset, followed, shared in safe_cells(distinct, multiplicity, candidates, 2, max_size):
        msu = followed[~shared]
        found[msu, len(subset) - 1] += 1
        per_variable[list(subset)] += msu.size
    return found, per_variable


def row_scores(score: np.ndarray, multiplicity: np.ndarray, variables: int, dis_fraction: float
               ) -> tuple[np.ndarray, np.ndarray, float, int]:
    """DIS scores of distinct key rows from their SUDA scores (``found @ suda_weights``, :func:`row_msus`) and records.

    Returns each row's SUDA score and DIS score, the file's DIS risk and its
    sample uniques. Only a row of one record has a score, so the sum ``A``
    runs over rows; its terms are added in sorted order, so that the result
    does not depend on the order of the rows. ``multiplicity`` may stop
    counting at 3 (a row of 1, 2 or more records).
    """
    uniques = int((multiplicity == 1).sum())
    pairs = 2 * int((multiplicity == 2).sum())
    fraction = dis_fraction
    dis = uniques * fraction / (uniques * fraction + pairs * (1.0 - fraction)) if uniques else 0.0
    dis_score = np.zeros(score.size)
    scored = score > 0
    if scored.any():
        q = 1.0 + (8.0 - variables) / 20.0
        adjust = float(np.sort(score[scored] ** -q).sum())
        dis_score[scored] = 1.0 / (1.0 + (uniques / dis - uniques) / (score[scored] ** q * adjust))
    return score, dis_score, float(dis), uniques


@assumes_valid
def variable_table(names: Sequence[str], per_variable: np.ndarray) -> pd.DataFrame:
    """Per key variable, the MSUs that include it, most first (ties in key order).

    Parameters
    ----------
    names : sequence of str
        The key variables.
    per_variable : ndarray of int
        MSUs that include each.

    Returns
    -------
    DataFrame
        Columns ``variable`` and ``msus``.

    Examples
    --------
    >>> import numpy as np
    >>> variable_table(["a", "b", "c"], np.array([1, 4, 1])).to_dict(orient="list")
    {'variable': ['b', 'a', 'c'], 'msus': [4, 1, 1]}
    """
    return pd.DataFrame({"variable": list(names), "msus": per_variable}).sort_values(
        "msus", ascending=False, kind="stable").reset_index(drop=True)


@assumes_valid
def smallest_msu(counts: np.ndarray) -> np.ndarray:
    """The size of each record's smallest MSU, 0 for a record with none.

    Parameters
    ----------
    counts : ndarray of int, shape (n, max_size)
        MSUs by size (:func:`minimal_sample_uniques`).

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> smallest_msu(np.array([[0, 2], [1, 1], [0, 0]])).tolist()
    [2, 1, 0]
    """
    has = counts > 0
    return np.where(has.any(axis=1), has.argmax(axis=1) + 1, 0)


@validate_params({"max_size": [None, "max_size"], "dis_fraction": "dis_fraction",
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def suda2(data: Any, keys: Sequence[str | int], max_size: int | None = DEFAULT_MAX_SIZE,
          dis_fraction: float = DEFAULT_DIS_FRACTION, source: str = "the data",
          budget: WorkBudget = DEFAULT_BUDGET) -> SudaResult:
    """SUDA2: every record's minimal sample uniques, SUDA score and DIS score.

    Parameters
    ----------
    data : DataFrame or array_like
        The microdata file.
    keys : sequence of str or int
        The key variables (categorical).
    max_size : int, optional
        Largest MSU size searched (default: the number of keys, as sdcMicro).
    dis_fraction : float, default 0.01
        The sampling fraction ``F`` of the DIS score (sdcMicro's ``DisFraction``).
    source : str
        The file's name, for messages.
    budget : WorkBudget
        Records x variables x subsets of up to ``max_size`` variables, checked first.

    Returns
    -------
    SudaResult

    References
    ----------
    Elliot, Manning, Mayes, Gurd & Bane, "SUDA: a program for detecting special
    uniques"; Manning, Haglin & Keane (2008), A recursive search algorithm for
    statistical disclosure assessment (SUDA2); Skinner & Elliot (2002), A
    measure of disclosure risk for microdata (DIS); sdcMicro's ``suda2``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [1, 1, 2, 2, 3], "b": [1, 2, 1, 2, 1], "c": [1, 1, 1, 1, 1]})
    >>> result = suda2(frame, ["a", "b", "c"])
    >>> result.msu_counts[:, :2].tolist(), result.score.tolist()
    ([[0, 1], [0, 1], [0, 1], [0, 1], [1, 0]], [1.0, 1.0, 1.0, 1.0, 2.0])
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    n, p = frame.shape[0], len(names)
    if n < 1:
        raise InputError(f"{source} has no records")
    size = searched_size(max_size, p)
    subsets = sum(comb(p, k) * k for k in range(1, size + 1))
    budget.check_work(float(subsets) * n, f"{n} records x {subsets} variables over the subsets of up to {size} keys")
    distinct, row = distinct_rows(key_codes(frame, names))
    multiplicity = np.bincount(row)
    found, per_variable = row_msus(distinct, multiplicity, size)
    score, dis_score, dis, uniques = row_scores(found @ suda_weights(p, size), multiplicity, p, dis_fraction)
    counts, score, dis_score = found[row], score[row], dis_score[row]
    variables = variable_table(names, per_variable)
    return SudaResult(keys=tuple(names), max_size=size, dis_fraction=float(dis_fraction), msu_counts=counts,
                      score=score, dis_score=dis_score, dis=float(dis), sample_uniques=uniques,
                      variable_msus=variables)
