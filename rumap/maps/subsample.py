"""Empirical R-U maps of a large file estimated on random subsamples, with a stated standard error.

With ``SimulationConfig(subsample=m, subsamples=B)`` the engine
(:func:`rumap.maps.simulation.simulate`) does not mask the whole file: it
draws B independent simple random subsamples of m records (without
replacement within a subsample, each from the seed and its number), runs the
map on each, and reports per parameter value the mean of the B subsamples'
values with the between-subsample standard error ``sd_B / sqrt(B)``.

What the stated error covers
----------------------------
The spread of the B subsample estimates holds both the sampling error (which
m of the n records were drawn) and the Monte-Carlo error (the M masked
replicates of each subsample), so ``risk_se`` and ``utility_se`` cover both.
They do not cover a bias of order 1/m of the estimators that are not means of
records (``R = 1 / MSE``, and with ``relative`` noise the variance that scales
the noise, computed on m records), which is small next to the error for m in
the hundreds and more. The targets (``max``, ``p99``, ``row:I``) are found in
the whole file and kept in every subsample, so the error of a target's risk is
Monte-Carlo error alone.

What is allowed
---------------
A subsample's value estimates the whole file's value only when each record is
masked by its own draws and the measure is an average over records (or a
ratio of such averages) whose value does not depend on how many records the
file has. :data:`VALID` lists, per registry, what passes and :data:`REFUSED`
why the rest is refused; a name in neither is refused as not known to be valid.
A masking method's record says it (``on_subsample``: None, or why not).
Utilities that are ``1 / MSE`` of a mean (``mean``, ``mean-error``) scale with
the number of records and are multiplied by ``n / m`` (their MSE is the
per-record error divided by the records). The common measures of
:mod:`rumap.maps.common` use record linkage, so a subsampled run has none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.maps.method_records import LiveTable

__all__ = ["SubsampleError", "VALID", "REFUSED", "UTILITY_SCALED", "SUGGESTED_RECORDS", "allowed",
           "check_subsample_size", "error_sentence", "subsample_rows"]

#: From this many records a map of the whole file is slow enough that subsampling is worth suggesting.
SUGGESTED_RECORDS = 1_000_000

#: How the stated standard error is estimated.
ERROR_METHOD = "between-subsample"

class _Registries(LiveTable):
    """Per registry, a table of names; the masking methods' read from their records when asked
    (:attr:`rumap.maps.method_records.MaskingMethod.on_subsample`)."""

    def __init__(self, methods: Callable[[], Any], others: dict[str, Any]) -> None:
        self._methods, self._others = methods, others

    def table(self) -> dict[str, Any]:
        """``method``: the masking methods' entry as their records say now; then the other registries'."""
        return {"method": self._methods(), **self._others}


def _valid_methods() -> tuple[str, ...]:
    from rumap.maps.methods import METHODS

    return tuple(name for name, record in METHODS.items() if record.on_subsample is None)


def _refused_methods() -> dict[str, str]:
    from rumap.maps.methods import METHODS

    return {name: record.on_subsample for name, record in METHODS.items() if record.on_subsample is not None}


#: Per registry, the names whose subsample estimate is an estimate of the whole file's value.
VALID: Mapping[str, tuple[str, ...]] = _Registries(_valid_methods, {
    "knowledge": ("index",),
    "utility": ("mean", "mean-error", "sse"),
    "risk_measure": ("sdid",),
})

#: Utilities multiplied by n / m: 1 / MSE of a mean, whose MSE is the per-record error over the records.
UTILITY_SCALED: tuple[str, ...] = ("mean", "mean-error")

_CROWDING = "the share of records linked to their own original falls as the records crowd, so it depends on n"
_BIAS_AND_NOISE = ("its MSE adds a bias that does not depend on n to a sampling noise of order 1/n: no factor "
                   "makes the subsample's value the file's")

#: Per registry, why a name is refused under subsampling.
REFUSED: Mapping[str, dict[str, str]] = _Registries(_refused_methods, {
    "knowledge": {
        "position": "the order statistic Y_(r) of the masked file depends on the number of records",
        "corrected": "it uses the order statistic Y_(r), which depends on the number of records",
        "mean": "the error of mean(Y) as a guess shrinks with the number of records",
    },
    "utility": {name: _BIAS_AND_NOISE for name in ("variance", "quantiles", "correlation", "regression")},
    "risk_measure": {"record-linkage": _CROWDING, "record-linkage-shared-ties": _CROWDING,
                     "probabilistic-linkage": _CROWDING,
                     "interval-disclosure": "its interval spans p% of the records' ranks, a whole number of ranks "
                                            "that for m records is narrower than for n (a bias of order 1/m that "
                                            "the error does not cover)"},
})

_WHAT = {"method": "method", "knowledge": "knowledge", "utility": "utility", "risk_measure": "risk measure"}


def _refusal(kind: str, name: str) -> str | None:
    """Why ``name`` of registry ``kind`` cannot be estimated on a subsample, or None when it can."""
    if name in VALID[kind]:
        return None
    return REFUSED[kind].get(name, "it is not known to be estimated without bias on a subsample")


@assumes_valid
def allowed(kind: str, names: list[str] | tuple[str, ...]) -> list[str]:
    """The names of registry ``kind`` that a subsample can estimate, in their order.

    Parameters
    ----------
    kind : {"method", "knowledge", "utility", "risk_measure"}
        The registry (a key of :data:`VALID`).
    names : sequence of str
        The registry's names on offer.

    Returns
    -------
    list of str
        Those :func:`rumap.maps.simulation_config.check_subsampling` does not refuse.

    Examples
    --------
    >>> allowed("knowledge", ["index", "position", "mean"])
    ['index']
    >>> allowed("utility", ["mean", "variance", "sse"])
    ['mean', 'sse']
    """
    return [name for name in names if _refusal(kind, name) is None]


@assumes_valid
def error_sentence(info: dict[str, Any]) -> str:
    """What a subsampled map was computed on and what its bands cover, from ``SubsampleError.to_dict()``.

    Parameters
    ----------
    info : dict
        The fields of a :class:`SubsampleError` (``m``, ``n``, ``subsamples``, ``method``, ``covers``).

    Returns
    -------
    str

    Examples
    --------
    >>> error_sentence(SubsampleError(m=200, n=5000, subsamples=8).to_dict())  # doctest: +NORMALIZE_WHITESPACE
    'Computed on 8 subsamples of 200 records of 5,000; bands are ± 1.96 between-subsample standard errors,
    covering sampling error (which m of the n records) and Monte-Carlo error (the replicates), not a bias of
    order 1/m.'
    """
    return (f"Computed on {info['subsamples']:,} subsamples of {info['m']:,} records of {info['n']:,}; bands are "
            f"± 1.96 {info['method']} standard errors, covering {info['covers']}.")


@assumes_valid
def check_subsample_size(m: int, n: int) -> None:
    """Refuse subsamples of m records of data of n records unless m < n.

    Parameters
    ----------
    m : int
        Records of each subsample.
    n : int
        Records of the data.

    Raises
    ------
    InputError
        When m is not fewer than n.

    Examples
    --------
    >>> check_subsample_size(100, 1000)
    >>> check_subsample_size(1000, 1000)
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: subsample: 1000 records is not fewer than the data's 1000: map the whole data instead
    """
    if m >= n:
        raise InputError(f"subsample: {m} records is not fewer than the data's {n}: map the whole data instead")


@dataclass(frozen=True)
class SubsampleError:
    """How a subsampled map was estimated and what its standard errors cover.

    Attributes
    ----------
    m : int
        Records of each subsample.
    n : int
        Records of the whole file.
    subsamples : int
        B, the independent subsamples averaged.
    method : str
        ``"between-subsample"``: ``SE = sd over the B subsamples / sqrt(B)``.
    covers : str
        What the standard error covers, in words.
    utility_scale : float
        The factor applied to the utility (``n / m`` for a ``1 / MSE`` of a mean, else 1).
    """

    m: int
    n: int
    subsamples: int
    method: str = ERROR_METHOD
    covers: str = ("sampling error (which m of the n records) and Monte-Carlo error (the replicates), "
                   "not a bias of order 1/m")
    utility_scale: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain data."""
        return dataclasses.asdict(self)


@assumes_valid
def subsample_rows(n: int, m: int, kept: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The rows of one subsample: ``kept`` first, then m - len(kept) others drawn without replacement, in order.

    Parameters
    ----------
    n : int
        Records of the file.
    m : int
        Records of the subsample (more than ``len(kept)``, fewer than n).
    kept : ndarray of int
        Distinct rows every subsample holds (the targets' records).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> rows = subsample_rows(10, 4, np.array([7]), np.random.default_rng(0))
    >>> rows[0], len(set(rows.tolist())), bool(np.all(np.diff(rows[1:]) > 0))
    (np.int64(7), 4, True)
    """
    kept = np.sort(np.asarray(kept, dtype=np.int64))
    drawn = np.sort(rng.choice(n - kept.size, size=m - kept.size, replace=False))
    # the j-th row that is not kept: j plus the kept rows at or before it
    drawn = drawn + np.searchsorted(kept - np.arange(kept.size), drawn, side="right")
    return np.concatenate([np.asarray(kept, dtype=np.int64), drawn])
