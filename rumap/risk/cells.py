"""Cells of categorical key variables: integer codes, the cell of each record, matches with missing values.

The kernels under the categorical risk measures and protections
(:mod:`rumap.risk.individual`, :mod:`rumap.risk.keys`,
:mod:`rumap.masking.categorical`, :mod:`rumap.masking.optimal_suppression`).
They assume valid input: the callers check the file and its columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid

__all__ = ["key_codes", "cell_groups", "cell_frequencies", "wildcard_matches"]


@assumes_valid
def key_codes(frame: pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """Integer codes of the key variables, shape (n, len(names)); -1 marks a missing value.

    Parameters
    ----------
    frame : DataFrame
    names : sequence of str
        Columns of ``frame``.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> import pandas as pd
    >>> key_codes(pd.DataFrame({"a": ["x", None, "x"]}), ["a"]).ravel().tolist()
    [0, -1, 0]
    """
    codes = np.empty((frame.shape[0], len(names)), dtype=np.int64)
    for j, name in enumerate(names):
        codes[:, j] = pd.factorize(frame[name], use_na_sentinel=True)[0]
    return codes


@assumes_valid
def cell_groups(codes: np.ndarray) -> np.ndarray:
    """One group number per row of non-negative codes: rows in the same cell share it.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        Non-negative codes (no missing value).

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> cell_groups(np.array([[0, 1], [2, 0], [0, 1]])).tolist()
    [0, 1, 0]
    """
    radix = codes.max(axis=0).astype(np.int64) + 1 if codes.size else np.ones(codes.shape[1], dtype=np.int64)
    if float(np.prod(radix.astype(float))) < 2.0**62:  # one integer per cell, then a hash table
        combined = np.zeros(codes.shape[0], dtype=np.int64)
        for j in range(codes.shape[1]):
            combined = combined * radix[j] + codes[:, j]
        return pd.factorize(combined)[0]
    return np.unique(codes, axis=0, return_inverse=True)[1].reshape(-1)


@assumes_valid
def cell_frequencies(codes: np.ndarray, columns: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cell of each record in the combination of ``columns``, and the cell's number of records.

    A record with a missing value in the combination is in no cell.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`key_codes`.
    columns : sequence of int
        The combination's columns.

    Returns
    -------
    group : ndarray of int, shape (n,)
        The record's cell (-1 when a value is missing).
    frequency : ndarray of int, shape (n,)
        Records in the record's cell (0 when a value is missing).
    known : ndarray of bool, shape (n,)
        Records with every value of the combination.

    Examples
    --------
    >>> import numpy as np
    >>> group, frequency, known = cell_frequencies(np.array([[0, 1], [0, -1], [0, 1]]), [0, 1])
    >>> group.tolist(), frequency.tolist(), known.tolist()
    ([0, -1, 0], [2, 0, 2], [True, False, True])
    """
    sub = codes[:, list(columns)]
    known = (sub >= 0).all(axis=1)
    group = np.full(codes.shape[0], -1, dtype=np.int64)
    frequency = np.zeros(codes.shape[0], dtype=np.int64)
    if known.any():
        group[known] = cell_groups(sub[known])
        frequency[known] = np.bincount(group[known])[group[known]]
    return group, frequency, known


@assumes_valid
def wildcard_matches(codes: np.ndarray, record: int) -> np.ndarray:
    """The records that share ``record``'s key value when a missing value matches any category.

    Parameters
    ----------
    codes : ndarray of int, shape (n, p)
        From :func:`key_codes` (-1 for missing).
    record : int

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> wildcard_matches(np.array([[0, 1], [0, -1], [1, 1]]), 1).tolist()
    [True, True, False]
    """
    missing = codes < 0
    return ((codes == codes[record]) | missing | missing[record]).all(axis=1)
