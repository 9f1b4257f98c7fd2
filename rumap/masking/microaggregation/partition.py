"""The result of microaggregation, and the sums of squares of a partition (Mas, Eq 1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import PARAMETERS, DataMatrix, NumberArray, validate_params
from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MicroaggregationResult", "standardize_columns", "sum_of_squares"]


@dataclass(frozen=True, eq=False)
class MicroaggregationResult:
    """The outcome of :func:`microaggregate`.

    Attributes
    ----------
    masked : ndarray, shape (n, p)
        The microaggregated data in the original units: every value replaced by
        its group's mean of the original values.
    groups : ndarray of int, shape (n,), or (n, p) for individual ranking
        Group label of every record (numbered 0, 1, ... in the order the
        algorithm formed them); individual ranking has one partition per variable.
    group_sizes : ndarray of int, shape (g,)
        Number of records in each group, indexed by label. Individual ranking
        forms the same sizes for every variable; they are given once.
    k : int
        Minimum group size.
    algorithm : str
        Key of :data:`ALGORITHMS`.
    n : int
        Number of records.
    sse, sst : float
        Within-group and total sum of squares, summed over the variables, on
        the standardized data when ``standardized`` is true.
    information_loss : float
        ``sse / sst`` as a fraction (0 when ``sst`` is 0).
    columns : tuple of str
        Names of the variables.
    standardized : bool
        Whether groups were formed (and SSE, SST measured) on z-scores.
    criterion : str
        The sorting criterion (used by ``"fixed"`` only).
    """

    masked: np.ndarray
    groups: np.ndarray
    group_sizes: np.ndarray
    k: int
    algorithm: str
    n: int
    sse: float
    sst: float
    information_loss: float
    columns: tuple[str, ...] = field(default=())
    standardized: bool = False
    criterion: str = ""

    def __post_init__(self) -> None:
        for name in ("masked", "groups", "group_sizes"):
            value = np.array(getattr(self, name), copy=True)
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def n_groups(self) -> int:
        """Number of groups (per variable, for individual ranking)."""
        return int(self.group_sizes.size)

    @property
    def ssa(self) -> float:
        """Between-group sum of squares, ``SST - SSE``."""
        return self.sst - self.sse

    def to_frame(self) -> pd.DataFrame:
        """The masked data with the group labels, one row per record.

        Columns are the variables, then ``group`` (or ``group[<variable>]`` for
        each variable under individual ranking).
        """
        import pandas as pd

        frame = pd.DataFrame(self.masked, columns=list(self.columns))
        if self.groups.ndim == 1:
            frame["group"] = self.groups
        else:
            for j, name in enumerate(self.columns):
                frame[f"group[{name}]"] = self.groups[:, j]
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain data (``python -m rumap microaggregate --json`` prints it)."""
        return {
            "algorithm": self.algorithm,
            "k": self.k,
            "n": self.n,
            "groups": self.n_groups,
            "min_group_size": int(self.group_sizes.min()),
            "max_group_size": int(self.group_sizes.max()),
            "sse": float(self.sse),
            "sst": float(self.sst),
            "information_loss": float(self.information_loss),
            "standardized": self.standardized,
            "columns": list(self.columns),
        }


@validate_params({"values": DataMatrix(min_rows=1, ndim=(2,))},
                 example=lambda: {"values": [[1.0, 10.0], [2.0, 30.0], [4.0, 20.0]]})
def standardize_columns(values: np.ndarray) -> np.ndarray:
    """z-scores of every column, with the sample standard deviation (ddof = 1).

    A constant column becomes all zeros.

    Parameters
    ----------
    values : ndarray, shape (n, p)

    Returns
    -------
    ndarray, shape (n, p)
    """
    return _standardize(values)


def _standardize(values: np.ndarray) -> np.ndarray:
    shifted = values - values[:1]  # exact zeros for a constant column
    mean = shifted.mean(axis=0)
    sd = shifted.std(axis=0, ddof=1) if values.shape[0] > 1 else np.zeros(values.shape[1])
    shifted -= mean  # in place: one array of the data's size
    shifted /= np.where(sd > 0, sd, 1.0)
    return shifted


def _group_means(values: np.ndarray, labels: np.ndarray, n_groups: int) -> np.ndarray:
    """Mean of every column within every group: shape (n_groups, p)."""
    sizes = np.bincount(labels, minlength=n_groups).astype(float)
    sums = np.stack([np.bincount(labels, weights=values[:, j], minlength=n_groups) for j in range(values.shape[1])],
                    axis=1)
    return sums / sizes[:, None]


@validate_params({"values": DataMatrix(min_rows=1),
                  "labels": NumberArray(PARAMETERS["group_label"], ndim=(1, 2))},
                 example=lambda: {"values": [[1.0], [2.0], [9.0], [10.0]], "labels": [0, 0, 1, 1]})
def sum_of_squares(values: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Within-group and total sums of squares of a partition (Mas, SSE and SST).

    Parameters
    ----------
    values : ndarray, shape (n, p)
    labels : ndarray of int, shape (n,) or (n, p)
        Group labels ``0 .. g-1``; one column of labels per variable means a
        separate partition of every variable (individual ranking).

    Returns
    -------
    sse, sst : float
        ``SSE = sum_i sum_j ||x_ij - xbar_i||^2`` and ``SST = sum ||x - xbar||^2``.
    """
    if labels.shape[0] != values.shape[0] or (labels.ndim == 2 and labels.shape != values.reshape(len(values), -1).shape):
        raise InputError(f"labels has shape {labels.shape} but values has {values.shape[0]} rows")
    return _sum_of_squares(values, labels.astype(np.int64))


def _sum_of_squares(values: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    sse = sst = 0.0
    for j in range(values.shape[1]):  # a column at a time: temporaries of n values, not n x p
        column = values[:, j] - values[0, j]  # shifting changes nothing but rounding; a constant column gives zeros
        sst += float(((column - column.mean()) ** 2).sum())
        column_labels = labels if labels.ndim == 1 else labels[:, j]
        n_groups = int(column_labels.max()) + 1
        means = np.bincount(column_labels, weights=column, minlength=n_groups) / np.bincount(column_labels,
                                                                                              minlength=n_groups)
        sse += float(((column - means[column_labels]) ** 2).sum())
    return sse, sst


def _consecutive_labels(n: int, k: int) -> np.ndarray:
    """Labels of positions 0..n-1 cut into groups of k; the last group takes the remainder."""
    return np.minimum(np.arange(n) // k, n // k - 1)


def _labels_from_runs(order: np.ndarray, runs: np.ndarray) -> np.ndarray:
    labels = np.empty(order.size, dtype=np.int64)
    labels[order] = np.repeat(np.arange(runs.size), runs)
    return labels
