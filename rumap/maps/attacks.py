"""The data snooper's attacks on masked data: targets, knowledge states and the empirical risk.

A *target* is one original record of the attacked variable: the sample maximum,
the minimum, the p-th sample percentile ``x_(ceil(np))`` or a chosen row. Its
value ``tau`` is what the snooper wants. A *knowledge state* says how the
snooper estimates it from one masked data set ``Y`` (:data:`KNOWLEDGE`):

- ``index``: it can link the target to its masked record, ``tau_hat = Y_t``;
- ``position``: it knows the target's rank r in the original data and takes
  the same order statistic of the masked data, ``tau_hat = Y_(r)`` (the max,
  the min, ``Y_(np)``);
- ``corrected``: position knowledge plus the published noise variance
  ``lambda2``: it removes the order statistic's spread from the noise by
  shrinking it toward the mean, ``tau_hat = mean(Y) + (Y_(r) - mean(Y))
  sqrt((s_Y^2 - lambda2) / s_Y^2)`` (section 3.2 warns that publishing
  ``lambda`` raises the risk; :func:`publication_effect` says by how much);
- ``mean``: only that the target is in the data, ``tau_hat = mean(Y)``.

Over M masked replicates the risk is ``R = 1 / MSE`` with
``MSE = (1/M) sum_m (tau - tau_hat_m)^2`` (Eq 12).

References
----------
Duncan, Keller-McNulty & Stokes (2001), section 3.2 (bias correction by a
snooper who knows lambda), section 4 (index and position knowledge, Eq 12).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from rumap._validation import PARAMETERS, InstanceOf, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.maps.optimum import envelope
from rumap.maps.selection import MIN_SAMPLED_ROW, select_ranks
from rumap.result import RUMap

__all__ = ["Target", "parse_target", "resolve_target", "resolve_targets", "KNOWLEDGE", "attack_squared_errors", "risk_estimate",
           "rational_envelope", "publication_effect", "TARGET_FORMS", "rounding_resolution"]

#: The written forms of a target, for messages and help.
TARGET_FORMS = "max, min, pXX (e.g. p99, p01, p10, p99.5) or row:I (I the 1-based row number)"

_PERCENTILE = re.compile(r"^p(\d+(?:\.\d+)?)$")
_ROW = re.compile(r"^row:(\d+)$")


@dataclass(frozen=True)
class Target:
    """A resolved target: which record, its rank among the originals and its value.

    Attributes
    ----------
    name : str
        As written: ``"max"``, ``"p99"``, ``"row:12"``.
    record : int
        0-based index t of the target record.
    rank : int
        1-based rank r of the record in the sorted original column (ties
        broken by record order).
    value : float
        The target value ``tau = x_t``.
    """

    name: str
    record: int
    rank: int
    value: float


@validate_params({"text": InstanceOf(str, "a target name such as max, min, p99 or row:12")},
                 example=lambda: {"text": "p99"})
def parse_target(text: str) -> tuple[str, float]:
    """Parse a target name into ``(kind, argument)``.

    ``"max"`` -> ``("max", 0)``, ``"min"`` -> ``("min", 0)``, ``"p99"`` ->
    ``("percentile", 0.99)``, ``"row:12"`` -> ``("row", 12)``.

    Parameters
    ----------
    text : str
        ``max``, ``min``, ``p<percent>`` or ``row:<index>``.

    Returns
    -------
    (str, float)

    Raises
    ------
    InputError
        For any other text, or a percentile outside (0, 100).
    """
    text = str(text).strip()
    if text in ("max", "min"):
        return text, 0.0
    match = _PERCENTILE.match(text)
    if match:
        fraction, entry = float(match.group(1)) / 100, PARAMETERS["p"]  # the percentile state's p, in percent
        if not entry.contains(fraction):
            raise InputError(f"target {text!r}: the percentile must be in ({entry.low * 100:g}, {entry.high * 100:g})")
        return "percentile", fraction
    match = _ROW.match(text)
    if match:
        row = int(match.group(1))
        if row < 1:
            raise InputError(f"target {text!r}: rows are numbered from 1")
        return "row", float(row)
    raise InputError(f"unknown target {text!r}; use {TARGET_FORMS}")


#: Records from which the targets' column is ordered by radix sort (a compiled kernel) rather than numpy's argsort.
_RADIX_FROM = 100_000


@assumes_valid
def resolve_targets(texts: Sequence[str], column: np.ndarray) -> tuple[Target, ...]:
    """:func:`resolve_target` for several targets, sorting the column once.

    Parameters
    ----------
    texts : sequence of str
        Target names (:func:`parse_target`).
    column : ndarray, shape (n,)
        The attacked column of the original data.

    Returns
    -------
    tuple of Target
    """
    if column.size > _RADIX_FROM:  # the same order in a quarter of the time, once numba's kernel is loaded
        from rumap.masking.ranks import stable_order

        order = stable_order(column)
    else:
        order = np.argsort(column, kind="stable")
    return tuple(resolve_target(t, column, order) for t in texts)


@assumes_valid
def resolve_target(text: str, column: np.ndarray, order: np.ndarray | None = None) -> Target:
    """The record, rank and value of a target in an original column of shape (n,).

    Parameters
    ----------
    text : str
        A target name (:func:`parse_target`).
    column : ndarray, shape (n,)
        The attacked column of the original data.
    order : ndarray of int, optional
        ``argsort`` of the column (stable), when already known.

    Returns
    -------
    Target

    Notes
    -----
    The p-th sample percentile is the order statistic ``x_(r)``, ``r =
    ceil(n p)`` (numpy's ``method="inverted_cdf"``), so it is a record that the
    snooper can target; for n = 177 and p = 0.99 it is the 176th smallest.
    """
    kind, arg = parse_target(text)
    n = column.shape[0]
    order = np.argsort(column, kind="stable") if order is None else order
    if kind == "max":
        rank = n
    elif kind == "min":
        rank = 1
    elif kind == "percentile":
        rank = min(n, max(1, math.ceil(n * arg - 1e-9)))
    else:
        row = int(arg)
        if row > n:
            raise InputError(f"target {text!r}: the data have only {n} rows")
        record = row - 1
        rank = int(np.flatnonzero(order == record)[0]) + 1
        return Target(text, record, rank, float(column[record]))
    record = int(order[rank - 1])
    return Target(text, record, rank, float(column[record]))


@dataclass(frozen=True)
class AttackInputs:
    """What the estimators read from a chunk of masked replicates of the target column.

    ``masked`` has shape (r, n); ``order_stats`` maps a 1-based rank to the
    (r,) order statistics; ``mean`` and ``var`` are (r,); ``lambda2`` is the
    published noise variance of the column (``None`` when there is none).
    """

    masked: np.ndarray
    order_stats: dict[int, np.ndarray]
    mean: np.ndarray
    var: np.ndarray
    lambda2: float | None


def _index(target: Target, a: AttackInputs) -> np.ndarray:
    return a.masked[:, target.record]


def _position(target: Target, a: AttackInputs) -> np.ndarray:
    return a.order_stats[target.rank]


def _corrected(target: Target, a: AttackInputs) -> np.ndarray:
    if a.lambda2 is None:
        raise InputError("knowledge 'corrected' needs a published noise variance: it applies to additive noise only")
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.sqrt(np.clip(a.var - a.lambda2, 0.0, None) / a.var)
    shrink = np.where(a.var > 0, shrink, 1.0)
    return a.mean + (a.order_stats[target.rank] - a.mean) * shrink


def _mean(target: Target, a: AttackInputs) -> np.ndarray:
    return a.mean


@dataclass(frozen=True)
class Knowledge:
    """A snooper's knowledge state: its estimator, whether it needs order statistics, and how to state it.

    ``latex`` is the estimator as a formula; ``noun`` names the state in a sentence.
    """

    estimator: Callable[[Target, AttackInputs], np.ndarray]
    needs_rank: bool
    description: str
    latex: str = ""
    noun: str = ""


#: Knowledge states of the empirical map, by name.
KNOWLEDGE: dict[str, Knowledge] = {
    "index": Knowledge(_index, False, "links the target to its masked record: Y_t", r"\hat\tau = Y_t",
                       "index knowledge"),
    "position": Knowledge(_position, True, "knows the target's rank r: the order statistic Y_(r)",
                          r"\hat\tau = Y_{(r)}", "position knowledge"),
    "corrected": Knowledge(_corrected, True, "knows the rank and the published lambda2: Y_(r) shrunk toward "
                                             "mean(Y) by sqrt((s_Y^2 - lambda2) / s_Y^2)",
                           r"\hat\tau = \bar Y + \left(Y_{(r)} - \bar Y\right)\sqrt{\frac{s_Y^2 - \lambda^2}{s_Y^2}}",
                           "bias-corrected position knowledge"),
    "mean": Knowledge(_mean, False, "knows only that the target is in the data: mean(Y)", r"\hat\tau = \bar Y",
                      "knowledge that the target is in the data"),
}


def check_knowledge(names: Sequence[str]) -> tuple[str, ...]:
    """Validate knowledge names (unique, in order)."""
    for name in names:
        if name not in KNOWLEDGE:
            raise InputError(f"unknown knowledge {name!r}; choose from {', '.join(KNOWLEDGE)}")
    if not names:
        raise InputError("give at least one knowledge state")
    return tuple(dict.fromkeys(names))


def order_statistics(masked: np.ndarray, ranks: Sequence[int]) -> dict[int, np.ndarray]:
    """Order statistics of each row of ``masked`` (r, n) at 1-based ``ranks``, by selection (no full sort).

    Ranks in the lower half are selected from the largest down, each inside the
    part left of the previous one; ranks in the upper half from the smallest up,
    inside the part to its right. So two selections scan the whole array and
    the others only a tail, whatever the number of ranks. Long rows select the
    inner ranks from a candidate subset bounded by a sample
    (:func:`rumap.maps.selection.select_ranks`); min and max are one pass each.
    """
    n = masked.shape[1]
    ranks = sorted(set(int(r) for r in ranks))
    if set(ranks) <= {1, n}:
        return {r: (masked.min(axis=1) if r == 1 else masked.max(axis=1)) for r in ranks}
    if n >= MIN_SAMPLED_ROW:
        inner = [r for r in ranks if 1 < r < n]
        out = {r: (masked.min(axis=1) if r == 1 else masked.max(axis=1)) for r in ranks if r in (1, n)}
        if inner:
            selected = select_ranks(masked, np.array(inner))
            out.update({r: selected[:, i].copy() for i, r in enumerate(inner)})
        return out
    out = {}
    work = masked.copy()
    low = [r for r in ranks if r <= n // 2]
    high = [r for r in ranks if r > n // 2]
    end = n  # the low ranks are selected inside work[:, :end]
    for r in reversed(low):
        work[:, :end].partition(r - 1, axis=1)
        out[r] = work[:, r - 1].copy()
        end = r - 1
    start = low[-1] if low else 0  # the high ranks are selected inside work[:, start:]
    for r in high:
        work[:, start:].partition(r - 1 - start, axis=1)
        out[r] = work[:, r - 1].copy()
        start = r
    return out


@assumes_valid
def rounding_resolution(column: np.ndarray) -> float:
    """The smallest error of the snooper that is not rounding: ``n * eps * max |x|``.

    A masked value computed from the originals (a group mean of microaggregation,
    a mean of the masked data) carries a rounding error of at most ``(n - 1) eps
    max |x|`` (Higham 2002, Section 4.2, for a sum of at most n values); an
    estimate that close to the target recovers it exactly. So a squared error
    below this resolution squared is an exact disclosure (error 0, risk +inf),
    and a finite risk over M replicates is at most ``M / resolution^2``.

    Parameters
    ----------
    column : ndarray, shape (n,)
        The attacked column of the original data.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.attacks import rounding_resolution
    >>> group = [0.1] * 7
    >>> error = abs(sum(group) / 7 - 0.1)  # the rounding of a group's mean
    >>> bool(0 < error <= rounding_resolution(np.array(group)))
    True
    """
    scale = float(np.max(np.abs(column))) if column.size else 0.0
    return column.size * float(np.finfo(float).eps) * scale


@assumes_valid
def attack_squared_errors(masked: np.ndarray, targets: Sequence[Target], knowledge: Sequence[str],
                          lambda2: float | None = None, mean: np.ndarray | None = None,
                          var: np.ndarray | None = None, resolution: float = 0.0) -> np.ndarray:
    """Squared errors ``(tau - tau_hat)^2`` of every (target, knowledge) pair.

    Parameters
    ----------
    masked : ndarray, shape (r, n)
        r masked replicates of the target column.
    targets : sequence of Target
    knowledge : sequence of str
        Keys of :data:`KNOWLEDGE`.
    lambda2 : float, optional
        The published noise variance of the column (for ``corrected``).
    mean, var : ndarray, shape (r,), optional
        Mean and sample variance (ddof 1) of each replicate, if already known.
    resolution : float, default 0
        Errors at most this large are rounding (:func:`rounding_resolution`): they count as exactly 0.

    Returns
    -------
    ndarray, shape (r, len(targets) * len(knowledge))
        Column ``i * len(knowledge) + j`` holds target i under knowledge j; exactly 0 where the
        snooper recovers the target (an exact disclosure).
    """
    masked = np.atleast_2d(masked)
    knowledge = check_knowledge(knowledge)
    ranks = [t.rank for t in targets] if any(KNOWLEDGE[k].needs_rank for k in knowledge) else []
    inputs = AttackInputs(
        masked=masked,
        order_stats=order_statistics(masked, ranks),
        mean=masked.mean(axis=1) if mean is None else mean,
        var=masked.var(axis=1, ddof=1) if var is None else var,
        lambda2=lambda2,
    )
    out = np.empty((masked.shape[0], len(targets) * len(knowledge)))
    for i, target in enumerate(targets):
        for j, name in enumerate(knowledge):
            error = target.value - KNOWLEDGE[name].estimator(target, inputs)
            out[:, i * len(knowledge) + j] = np.where(np.abs(error) <= resolution, 0.0, error**2)
    return out


@assumes_valid
def risk_estimate(squared_errors: np.ndarray, deterministic: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Risk ``R = 1 / mean(squared errors)`` (Eq 12) and its Monte-Carlo standard error.

    Parameters
    ----------
    squared_errors : ndarray, shape (M, ...)
        Squared errors of M replicates.
    deterministic : bool
        The masking has no randomness (one replicate): the standard error is 0.

    Returns
    -------
    risk, risk_se : ndarray, shape (...)
        ``R`` is infinite where every error is 0 (its SE is then NaN, or 0
        for deterministic masking).

    Notes
    -----
    Delta method: ``SE(R) = SE(MSE) / MSE^2`` with ``SE(MSE) = sd / sqrt(M)``.
    """
    m = squared_errors.shape[0]
    mse = squared_errors.mean(axis=0)
    if deterministic or m < 2:
        se_mse = np.zeros_like(mse)
    else:
        se_mse = squared_errors.std(axis=0, ddof=1) / math.sqrt(m)
    positive = mse > 0
    safe_mse = np.where(positive, mse, 1.0)
    risk = np.where(positive, 1.0 / safe_mse, np.inf)
    # an exact snooper (MSE 0) has infinite risk; its standard error is undefined unless nothing is random
    risk_se = np.where(positive, se_mse / safe_mse**2, 0.0 if deterministic else np.nan)
    return risk, risk_se


@assumes_valid
def rational_envelope(maps: Sequence[RUMap]) -> RUMap:
    """The rational snooper: at each parameter value the strategy with the largest risk.

    A wrapper of :func:`rumap.maps.optimum.envelope` that keeps the target and the
    Monte-Carlo standard errors of the chosen strategy. (The largest of noisy
    estimates is biased upward by a fraction of a standard error where two
    strategies are close.)

    Parameters
    ----------
    maps : sequence of RUMap
        The maps of one target, over the same parameter values.

    Returns
    -------
    RUMap
        ``knowledge = "rational"``.
    """
    best = envelope(maps)
    index = {m.knowledge or m.label: i for i, m in enumerate(maps)}
    chosen = [index[s] for s in best.config["best_state"]]
    columns = np.arange(best.values.shape[0])
    risk_se = None
    if all(m.risk_se is not None for m in maps):
        risk_se = np.vstack([m.risk_se for m in maps])[chosen, columns]
    return replace(best, target=maps[0].target, risk_se=risk_se, utility_se=maps[0].utility_se,
                   config={**dict(maps[0].config), **best.config})


@assumes_valid
def publication_effect(position: RUMap, corrected: RUMap) -> tuple[np.ndarray, np.ndarray]:
    """How much publishing lambda raises the risk: ``R(corrected) / R(position)`` and its standard error.

    The standard error treats the two estimates as independent, which is
    conservative: they share the replicates (common random numbers), so their
    errors are positively correlated.

    Parameters
    ----------
    position, corrected : RUMap
        The maps of one target under ``position`` and ``corrected`` knowledge.

    Returns
    -------
    ratio, se : ndarray, shape (m,)
    """
    ratio = corrected.risk / position.risk
    if corrected.risk_se is None or position.risk_se is None:
        return ratio, np.full_like(ratio, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.abs(ratio) * np.sqrt((corrected.risk_se / corrected.risk) ** 2 + (position.risk_se / position.risk) ** 2)
    return ratio, se
