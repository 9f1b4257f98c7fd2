"""Microaggregation: replace each record by the mean of a group of at least k similar records.

Seven algorithms, chosen by name from :data:`ALGORITHMS`:

``"mdav"``
    Maximum Distance to Average Vector (Domingo-Ferrer & Mateo-Sanz 2002), the
    default of sdcMicro and mu-Argus: fixed groups of k formed around the
    records farthest from the centroid of what remains.
``"mwa"``
    The Modified Ward's Algorithm (Domingo-Ferrer & Mateo-Sanz 1997; Mas,
    section "Modified Ward's Algorithm"): variable group sizes k .. 2k-1.
``"fixed"``
    Fixed-size groups of k consecutive records on a sorting criterion (first
    principal component, one variable, or sum of z-scores).
``"individual"``
    Individual ranking: every variable sorted and aggregated on its own.
``"optimal"``
    Optimal univariate microaggregation (Hansen & Mukherjee 2003): the
    partition of least SSE, a shortest path over the sorted values in O(k n).
``"mdav_partitioned"``
    MDAV within parts of at most 1,000 records, the cells of a k-d tree on
    principal axes (:mod:`~rumap.masking.microaggregation.partitioned`): linear
    in n, for files too large for MDAV (10^7 records), at a few per cent more
    information loss.
``"optimal_pc1"``
    Records sorted on their first principal component, cut into runs of
    k .. 2k-1 of least SSE in all variables
    (:mod:`~rumap.masking.microaggregation.projected`): O(n k p) after a radix
    sort; never more loss than "fixed" on "pc1", more than MDAV.

Every group has at least k records. Information loss is ``L = SSE / SST``
(Mas, Eq 1), on the standardized data when ``standardize=True``.
Microaggregation preserves the mean of every variable exactly, so a utility
measure based on the mean cannot tell its parameter values apart.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rumap._validation import Boolean, InstanceOf, StrOptions, check_magnitude, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.masking.microaggregation.mdav import _mdav
from rumap.masking.microaggregation.mwa import _mwa
from rumap.masking.microaggregation.optimal import _optimal
from rumap.masking.microaggregation.partition import (
    MicroaggregationResult,
    _group_means,
    _standardize,
    _sum_of_squares,
    standardize_columns,
    sum_of_squares,
)
from rumap.masking.microaggregation.partitioned import PART_SIZE, _mdav_partitioned
from rumap.masking.microaggregation.projected import _optimal_pc1
from rumap.masking.microaggregation.ranking import CRITERIA, _fixed, _individual

__all__ = ["ALGORITHMS", "CRITERIA", "Algorithm", "MicroaggregationResult", "microaggregate", "standardize_columns",
           "sum_of_squares"]


@dataclass(frozen=True)
class Algorithm:
    """A microaggregation algorithm: its kernel, and whether it sorts on a criterion of :data:`CRITERIA`.

    Parameters
    ----------
    kernel : callable
        ``kernel(space, k) -> labels``, or ``kernel(space, k, criterion)`` when
        ``uses_criterion``; labels of shape (n,), or (n, p) for one partition per
        variable. It assumes valid input: a finite (n, p) array and 1 <= k <= n.
    uses_criterion : bool
        Whether the kernel takes the sorting criterion.
    cost : callable
        ``cost(n, p, k)``: the elementary steps of one run, checked against the
        work budget (:mod:`rumap.budget`) before it starts.
    reports_progress : bool
        Whether the kernel takes ``progress=callable(done, total)`` (records grouped so far).
    """

    kernel: Callable[..., np.ndarray]
    uses_criterion: bool = False
    cost: Callable[[int, int, int], float] = lambda n, p, k: float(n) * p * max(math.log2(n), 1.0)
    reports_progress: bool = False

    def labels(self, space: np.ndarray, k: int, criterion: str,
               progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """Group labels of the records of ``space`` (the criterion only where the algorithm uses one)."""
        args = (space, k, criterion) if self.uses_criterion else (space, k)
        if self.reports_progress and progress is not None:
            return self.kernel(*args, progress=progress)
        return self.kernel(*args)


def _quadratic_cost(n: int, p: int, k: int) -> float:
    """MDAV and MWA: a pass over the remaining records for every group, about n^2 p / k steps."""
    return float(n) * n * p / k


def _partitioned_cost(n: int, p: int, k: int) -> float:
    """MDAV within parts of at most ``max(PART_SIZE, 2k)`` records: about ``n * part * p / k`` steps,
    plus the splits."""
    part = min(n, max(PART_SIZE, 2 * k))
    return float(n) * part * p / k + float(n) * p * max(math.log2(max(n / part, 1.0)), 1.0)


#: Microaggregation algorithms by name.
ALGORITHMS: dict[str, Algorithm] = {
    "mdav": Algorithm(_mdav, cost=_quadratic_cost),
    "mwa": Algorithm(_mwa, cost=_quadratic_cost),
    "fixed": Algorithm(_fixed, uses_criterion=True),
    "individual": Algorithm(_individual),
    "optimal": Algorithm(_optimal),
    "mdav_partitioned": Algorithm(_mdav_partitioned, cost=_partitioned_cost, reports_progress=True),
    "optimal_pc1": Algorithm(_optimal_pc1),
}


def _compact_labels(labels: np.ndarray) -> np.ndarray:
    """Renumber labels 0..g-1 keeping their order (labels from recursion may have gaps)."""
    labels = labels.reshape(-1)
    if labels.size and labels.min() == 0 and np.all(np.bincount(labels) > 0):  # already 0..g-1, no gap
        return labels
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


@validate_params({"k": "k", "algorithm": StrOptions(ALGORITHMS), "standardize": Boolean(),
                  "criterion": StrOptions(CRITERIA), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"data": [[1.0, 2.0], [2.0, 1.0], [8.0, 9.0], [9.0, 7.0]], "k": 2})
def microaggregate(data: Any, k: int, algorithm: str = "mdav", *, standardize: bool = False,
                   criterion: str = "pc1", columns: Sequence[str] | None = None,
                   budget: WorkBudget = DEFAULT_BUDGET,
                   progress: Callable[[int, int], None] | None = None) -> MicroaggregationResult:
    """Microaggregate numeric data: every record replaced by the mean of its group of >= k records.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, p), or DataFrame
        The original values; no missing or non-finite values. With a DataFrame,
        ``columns`` selects its columns (default: every numeric column).
    k : int
        Minimum group size, ``1 <= k <= n``.
    algorithm : {"mdav", "mwa", "fixed", "individual", "optimal", "mdav_partitioned", "optimal_pc1"}, default "mdav"
        Key of :data:`ALGORITHMS`. ``"optimal"`` needs a single variable.
    standardize : bool, default False
        Form the groups on z-scores (sample sd), and measure SSE, SST and the
        information loss on them. The masked values are still group means of
        the original values.
    criterion : {"pc1", "variable", "zsum"}, default "pc1"
        Sorting criterion of ``"fixed"``: first principal component, the first
        variable, or the sum of z-scores. Other algorithms ignore it.
    columns : sequence of str, optional
        Names of the variables (for an array: labels of its columns).
    budget : WorkBudget, default DEFAULT_BUDGET
        The run is refused before it starts when the algorithm's cost exceeds it.
    progress : callable(done, total), optional
        Called with the records grouped so far and n, by the algorithms that
        report it (``"mdav_partitioned"``: after each part).

    Returns
    -------
    MicroaggregationResult
        The masked data ``(n, p)``, group labels, sizes, SSE, SST and
        ``information_loss = SSE / SST``.

    Raises
    ------
    InputError
        Bad ``k`` (not an integer >= 1, or larger than n), unknown algorithm
        or criterion, missing values, ``"optimal"`` with several variables.

    Notes
    -----
    ``SSE = sum_i sum_j ||x_ij - xbar_i||^2``, ``SSA = sum_i n_i ||xbar_i - xbar||^2``,
    ``SST = SSE + SSA`` and ``L = SSE / SST`` (Mas, Eq 1). Every algorithm
    keeps each variable's overall mean. MDAV and fixed-size groups have k
    records each except one group of k .. 2k-1; MWA and the optimal partition
    have groups of k .. 2k-1 (Mas, Proposition 4).

    References
    ----------
    Domingo-Ferrer, J. & Mateo-Sanz, J. M. (2002). Practical data-oriented
    microaggregation for statistical disclosure control. IEEE TKDE 14(1), 189-201.
    Mas, M. Statistical Data Protection Techniques. EUSTAT: "Microaggregation",
    Eq 1, Proposition 4, "Modified Ward's Algorithm".
    Hansen, S. L. & Mukherjee, S. (2003). A polynomial algorithm for optimal
    univariate microaggregation. IEEE TKDE 15(4), 1043-1044.

    Examples
    --------
    >>> from rumap.masking.microaggregation import microaggregate
    >>> result = microaggregate([1.0, 2.0, 3.0, 10.0, 11.0, 12.0], k=3)
    >>> result.masked[:, 0].tolist(), result.groups.tolist()
    ([2.0, 2.0, 2.0, 11.0, 11.0, 11.0], [0, 0, 0, 1, 1, 1])
    >>> round(result.information_loss, 4)
    0.0319
    """
    values, names = _as_matrix(data, columns)
    n = values.shape[0]
    if k > n:
        raise InputError(f"k must be at most the number of records n = {n}, got k = {k}")
    budget.check_work(ALGORITHMS[algorithm].cost(n, values.shape[1], k),
                      f"{algorithm} of {n} records x {values.shape[1]} variables, k = {k}")
    return microaggregate_kernel(values, k, algorithm, standardize, criterion, names, progress)


def microaggregate_kernel(values: np.ndarray, k: int, algorithm: str, standardize: bool, criterion: str,
                          names: Sequence[str] = (),
                          progress: Callable[[int, int], None] | None = None) -> MicroaggregationResult:
    """:func:`microaggregate` of checked input: a finite (n, p) float array, ``1 <= k <= n``, known names."""
    n = values.shape[0]
    space = _standardize(values) if standardize else values
    labels = ALGORITHMS[algorithm].labels(space, k, criterion, progress)
    if labels.ndim == 1:
        labels = _compact_labels(labels)
    sse, sst = _sum_of_squares(space, labels)
    del space  # before the masked copy is made: at most three arrays of the data's size at a time
    if labels.ndim == 1:
        group_sizes = np.bincount(labels)
        masked = _group_means(values, labels, group_sizes.size)[labels]
    else:
        group_sizes = np.bincount(labels[:, 0])
        masked = np.column_stack([_group_means(values[:, j:j + 1], labels[:, j], group_sizes.size)[labels[:, j], 0]
                                  for j in range(values.shape[1])])
    return MicroaggregationResult(
        masked=masked, groups=labels, group_sizes=group_sizes, k=k, algorithm=algorithm, n=n, sse=sse, sst=sst,
        information_loss=min(sse / sst, 1.0) if sst > 0 else 0.0, columns=tuple(names), standardized=bool(standardize),
        criterion=criterion,
    )


def _as_matrix(data: Any, columns: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    """Validated float matrix (n, p) and the variables' names."""
    pandas = sys.modules.get("pandas")  # a DataFrame means pandas is loaded; the package itself does not load it
    if pandas is not None and isinstance(data, pandas.DataFrame):
        from rumap.io.data import numeric_column_names, numeric_columns

        chosen = list(columns) if columns is not None else numeric_column_names(data)
        # row-major, as the maps' engine holds data: the same numbers give the same groups whatever the layout
        return np.ascontiguousarray(numeric_columns(data, chosen, source="data")), [str(c) for c in chosen]
    try:
        values = np.array(data, dtype=float, order="C")
    except (TypeError, ValueError) as exc:
        raise InputError(f"data must be numeric: {exc}") from None
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[1] == 0:
        raise InputError(f"data must have shape (n,) or (n, p), got {np.shape(data)}")
    if values.shape[0] == 0:
        raise InputError("data has no records")
    finite = np.isfinite(values)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise InputError(f"data has {int((~finite).any(axis=1).sum())} record(s) with missing or non-finite "
                         f"values, first in row {row + 1}, column {col + 1}")
    check_magnitude(values, "data")
    if columns is None:
        names = [f"x{j + 1}" for j in range(values.shape[1])]
    else:
        names = [str(c) for c in columns]
        if len(names) != values.shape[1]:
            raise InputError(f"columns has {len(names)} names but data has {values.shape[1]} columns")
    return values, names
