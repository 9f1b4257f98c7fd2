"""Measures of risk and utility shared by every masking method, so that any two empirical maps overlay.

Each empirical map measures R and U its own way (the snooper's error on a
target, Eq 14's utility of the mean, ``1 - SSE/SST``, ...), and additive
noise, microaggregation and rank swapping are best described by different
ones. Every simulated map therefore also measures each masked replicate on one
footing:

- **risk**: the share of records re-identified by distance-based record linkage
  on all the chosen columns (standardised; a tie among t originals counts
  1/t, the chance of an intruder who picks one of them), Domingo-Ferrer &
  Torra (2004), Section 2.1;
- **utility**: ``U = 1 - IL``, with ``IL`` the mean over the statistics' groups
  (column means, column variances and, with two columns or more, the pairwise
  correlations) of the mean relative change ``min(1, |s' - s| / |s|)`` of the
  group's statistics (a statistic that is 0 in the original counts 0 if it
  stays 0, else 1). The relative changes of means, variances and correlations
  are the information-loss measures of Domingo-Ferrer & Torra (2001); capped
  at 1, each group weighs the same and ``U`` lies in [0, 1], 1 for unchanged
  statistics.

Both are averaged over the first :data:`COMMON_REPLICATES` replicates (a
deterministic method has one), with Monte-Carlo standard errors.

References
----------
Domingo-Ferrer & Torra (2001), "A quantitative comparison of disclosure control
methods for microdata", Section 3 (information loss); Domingo-Ferrer & Torra
(2004), "Disclosure risk assessment in statistical data protection", Section 2.1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from rumap._compile import compiled
from rumap._validation import DataMatrix, assumes_valid, validate_params
from rumap.result import RUMap
from rumap.risk.information_loss import information_loss_batch
from rumap.risk.ties import TIE_RTOL

__all__ = ["COMMON_REPLICATES", "COMMON_RISK", "COMMON_RISK_LABEL", "COMMON_UTILITY_LABEL", "COMMON_KNOWLEDGE",
           "information_loss", "common_stats", "common_map"]

#: Replicates measured on the common footing (the first ones of the run).
COMMON_REPLICATES = 10
#: The dataset risk measure the common risk equals (:data:`rumap.risk.measures.DATASET_RISK_MEASURES`).
COMMON_RISK = "record-linkage-shared-ties"
COMMON_RISK_LABEL = "R = share of records re-identified (distance linkage)"
COMMON_UTILITY_LABEL = "U = 1 − relative change of means, variances, correlations"
#: The ``knowledge`` of a common curve (the intruder links records on every chosen column).
COMMON_KNOWLEDGE = "common measures"


def _common_keys(original: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """What the common risk needs of (n, p) ``original``, made once for many masked copies.

    The columns' means and sds (1 for a constant column), the standardised
    originals and, for one variable, their stable order (radix sort).
    """
    mean, sd = original.mean(axis=0), original.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    z_original = (original - mean) / sd
    if original.shape[1] > 1:
        return mean, sd, z_original, None
    from rumap.masking.ranks import stable_order

    return mean, sd, z_original, stable_order(z_original[:, 0])


def _linked_shares(original: np.ndarray, masked: np.ndarray,
                   keys: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None = None) -> np.ndarray:
    """The share re-identified of each of (r, n, p) masked copies: :data:`COMMON_RISK`, one KD-tree for all copies.

    The same links as :func:`rumap.risk.linkage.linkage_risk_distance_shared_ties` (keys standardised by
    the original's mean and sd, squared Euclidean distance, a tie within :data:`TIE_RTOL` among t
    originals counting 1/t), without building the tree and checking the files again for every copy.
    ``keys`` is :func:`_common_keys` of ``original``, when already made.
    """
    mean, sd, z_original, order = _common_keys(original) if keys is None else keys
    if original.shape[1] == 1:
        return _linked_shares_sorted(z_original[:, 0], masked[:, :, 0], mean[0], sd[0], order)
    from rumap.risk.linkage.neighbours import OriginalsTree  # here: scipy's KD-tree; a map of one variable needs none

    tree = OriginalsTree(z_original)  # each distinct point once: whole numbers repeat points many times
    shares = np.empty(masked.shape[0])
    for i in range(masked.shape[0]):
        z = (masked[i] - mean) / sd
        own = ((z - z_original) ** 2).sum(axis=1)
        other = tree.nearest_other(z) ** 2
        correct = own < other * (1.0 - TIE_RTOL)
        tied = np.flatnonzero(~correct & (own <= other * (1.0 + TIE_RTOL)))
        sizes = tree.count_within(z[tied], np.sqrt(own[tied] * (1.0 + TIE_RTOL)) * (1 + 1e-12) + 1e-300) \
            if tied.size else np.zeros(0)
        shares[i] = (correct.sum() + np.sum(1.0 / np.maximum(np.asarray(sizes, dtype=float), 1.0))) / z.shape[0]
    return shares


def _linked_shares_sorted(z_original: np.ndarray, masked: np.ndarray, mean: float, sd: float,
                          order: np.ndarray | None = None) -> np.ndarray:
    """:func:`_linked_shares` of one variable, by the sorted originals instead of a KD-tree.

    On a line, a masked value is nearer its own original than any other
    exactly when it lies between the originals next to its own in sorted order
    and nearer its own than either of them; it is a tie only when the nearer
    of them is as near as its own (within :data:`TIE_RTOL`). So each record is
    decided from its two neighbours in the sorted originals, in constant time;
    only a near tie searches the sorted originals (the nearest other original
    and the originals within a radius are those between two places). Compiled
    :func:`_linked_share_kernel`; ``masked`` has shape (r, n), standardised
    there as ``(masked - mean) / sd``; ``order`` is the stable order of ``z_original``, when already known.
    """
    if order is None:
        from rumap.masking.ranks import stable_order

        order = stable_order(z_original)
    ordered = np.ascontiguousarray(z_original[order])
    return compiled(_linked_share_kernel)(ordered, order, np.ascontiguousarray(masked), float(mean), float(sd),
                                          TIE_RTOL)


def _linked_share_kernel(ordered: np.ndarray, order: np.ndarray, masked: np.ndarray, mean: float, sd: float,
                         tie_rtol: float) -> np.ndarray:
    """The share re-identified of each masked copy of one variable (compiled; see :func:`_linked_shares_sorted`).

    ``ordered`` are the sorted standardised originals and ``order`` their records; row i of ``masked``
    is masked copy i in the records' order. A record's share is 1, 1/t for a tie among t originals, or 0;
    the shares are summed in the order of the originals.
    """
    n = ordered.size

    def place_of(value: float, start: int, right: bool) -> int:
        """``numpy.searchsorted(ordered, value, side)``, galloping from position ``start``."""
        lo, hi, step = start, start, 1
        if right:  # the first position with ordered > value
            while lo > 0 and ordered[lo - 1] > value:
                lo = max(lo - step, 0)
                step *= 2
            step = 1
            while hi < n and ordered[hi] <= value:
                hi = min(hi + step, n)
                step *= 2
            while lo < hi:
                mid = (lo + hi) // 2
                if ordered[mid] <= value:
                    lo = mid + 1
                else:
                    hi = mid
            return lo
        while lo > 0 and ordered[lo - 1] >= value:
            lo = max(lo - step, 0)
            step *= 2
        step = 1
        while hi < n and ordered[hi] < value:
            hi = min(hi + step, n)
            step *= 2
        while lo < hi:
            mid = (lo + hi) // 2
            if ordered[mid] < value:
                lo = mid + 1
            else:
                hi = mid
        return lo

    shares = np.empty(masked.shape[0])
    for i in range(masked.shape[0]):
        row = masked[i]
        total = 0.0
        for rank in range(n):
            zi = (row[order[rank]] - mean) / sd
            d = zi - ordered[rank]
            own = d * d
            near = np.inf  # the nearer of the two originals beside the record's own in sorted order
            if rank > 0:
                d = zi - ordered[rank - 1]
                near = d * d
            if rank + 1 < n:
                d = zi - ordered[rank + 1]
                near = min(near, d * d)
            if own > near * (1.0 + tie_rtol):  # another original is nearer: not linked (nor a tie)
                continue
            if own < near * (1.0 - tie_rtol):  # between its neighbours and nearer its own: linked
                total += 1.0
                continue
            place = place_of(zi, 0, False)  # a near tie: the nearest other original beside zi's place
            other = np.inf
            for at in range(place - 2, place + 2):
                if 0 <= at < n and at != rank:
                    d = zi - ordered[at]
                    if d * d < other:
                        other = d * d
            if own < other * (1.0 - tie_rtol):
                total += 1.0
            elif own <= other * (1.0 + tie_rtol):
                radius = np.sqrt(own * (1.0 + tie_rtol)) * (1 + 1e-12) + 1e-300
                size = place_of(zi + radius, place, True) - place_of(zi - radius, place, False)
                total += 1.0 / max(size, 1)
        shares[i] = total / n
    return shares


@assumes_valid
def common_stats(original: np.ndarray, masked: np.ndarray, keys: tuple | None = None) -> np.ndarray:
    """The common risk and utility of each of (r, n, p) masked copies of (n, p) ``original``, shape (r, 2).

    Parameters
    ----------
    original : ndarray, shape (n, p)
    masked : ndarray, shape (r, n, p)
    keys : tuple, optional
        What the risk needs of ``original`` (``_common_keys(original)``), made
        once when many copies are measured in several calls.

    Returns
    -------
    ndarray, shape (r, 2)
        Column 0 the share re-identified, column 1 ``U = 1 - IL``.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.common import common_stats
    >>> x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])
    >>> common_stats(x, np.stack([x, x[::-1]]))  # unmasked: all re-identified; reversed: none, nothing lost
    array([[1., 1.],
           [0., 1.]])
    """
    return np.column_stack([_linked_shares(original, masked, keys), 1.0 - information_loss_batch(original, masked)])


def _loss_example() -> dict[str, Any]:
    x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])
    return {"original": x, "masked": x * [1.0, 2.0]}


@validate_params({"original": DataMatrix(min_rows=2, ndim=(2,)),
                  "masked": DataMatrix(min_rows=2, ndim=(2,), masked_of="original")}, example=_loss_example)
def information_loss(original: np.ndarray, masked: np.ndarray) -> float:
    """The information loss ``IL`` of a masked file: the mean relative change of means, variances, correlations.

    Each group of statistics (column means; column variances, ddof 1; with two
    columns or more, the pairwise correlations) contributes the mean of
    ``min(1, |s' - s| / |s|)`` over its statistics, and ``IL`` is the mean over
    the groups; the common utility of :func:`common_map` is ``1 - IL``.

    Parameters
    ----------
    original, masked : ndarray, shape (n, p)
        Row i of ``masked`` is the masked version of row i of ``original``.

    Returns
    -------
    float
        In [0, 1]; 0 when every statistic is unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.common import information_loss
    >>> x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])
    >>> information_loss(x, x[::-1])  # the same records in another order: nothing lost
    0.0
    >>> information_loss(x, x + [0.0, 0.25])  # column 2's mean 2.5 -> 2.75: (0 + 0.1) / 2 for means, / 3 groups
    0.016666666666666666
    """
    return float(information_loss_batch(np.asarray(original, dtype=float), np.asarray(masked, dtype=float)[None])[0])


@assumes_valid
def common_map(method: str, parameter: str, values: np.ndarray, stats: np.ndarray,
               config: Mapping[str, Any] | None = None) -> RUMap:
    """The common curve of a simulated map from its replicates' common measures (:func:`common_stats`).

    Parameters
    ----------
    method : str
        The masking method.
    parameter : str
        Its parameter.
    values : ndarray, shape (g,)
        The parameter's values.
    stats : ndarray, shape (m, g, 2)
        Each measured replicate's share re-identified and ``1 - IL`` at each value.
    config : mapping, optional
        The run's configuration.

    Returns
    -------
    RUMap
        Risk and utility the replicates' means, with their Monte-Carlo standard errors
        (0 for a single replicate); ``knowledge`` is :data:`COMMON_KNOWLEDGE`. The efficiency is
        the utility itself: the unmasked data lose nothing, so their utility is 1.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.common import common_map
    >>> stats = np.array([[[1.0, 1.0], [0.5, 0.9]], [[1.0, 1.0], [0.3, 0.7]]])  # 2 replicates x 2 values
    >>> m = common_map("noise", "lambda2", np.array([0.0, 1.0]), stats)
    >>> m.risk.tolist(), m.utility.tolist(), m.risk_se.round(3).tolist()
    ([1.0, 0.4], [1.0, 0.8], [0.0, 0.1])
    """
    m = stats.shape[0]
    mean = stats.mean(axis=0)
    se = stats.std(axis=0, ddof=1) / math.sqrt(m) if m > 1 else np.zeros_like(mean)
    return RUMap(parameter=parameter, values=values, risk=mean[:, 0], utility=mean[:, 1], risk_se=se[:, 0],
                 utility_se=se[:, 1], efficiency=mean[:, 1], risk_label=COMMON_RISK_LABEL,
                 utility_label=COMMON_UTILITY_LABEL,
                 method=method, knowledge=COMMON_KNOWLEDGE, config=dict(config or {}))
