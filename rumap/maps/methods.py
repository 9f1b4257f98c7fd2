"""The masking methods of the simulation engine: one record per method, and the engine's random streams.

A :class:`MaskingMethod` says everything the layers need to know about a
method: its grid parameters, whether the grid is of integers, whether it keeps
every column's mean, its options and their defaults, how its grid is checked,
and how it masks a chunk of replicates. Adding a method is one entry in
:data:`METHODS` (and its flag in :mod:`rumap.maps.method_flags`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import assumes_valid, check_array
from rumap.errors import InputError
from rumap.maps.moments import mask_with_moments, moments
from rumap.masking.noise import NoiseSpec, size_parameter, standard_noise

if TYPE_CHECKING:
    from rumap.maps.simulation import _Plan

__all__ = ["MaskingMethod", "METHODS", "replicate_generator"]

#: What a masker gives for one grid value: the masked replicates (r, n, p) and their column (means, variances).
Masked = tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]


@assumes_valid
def replicate_generator(seed: int, replicate: int) -> np.random.Generator:
    """The generator of replicate ``replicate``: ``SeedSequence(seed, spawn_key=(replicate,))``.

    The same as child ``replicate`` of ``SeedSequence(seed).spawn(M)``.

    Parameters
    ----------
    seed : int
        The run's seed.
    replicate : int
        The replicate's number, >= 0.

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(replicate),)))


@dataclass(frozen=True)
class MaskingMethod:
    """A masking method of the engine: everything the layers need to know about it, in one record.

    Parameters
    ----------
    parameters : tuple of str
        The names its grid can be given in (noise: a variance, or a fraction
        of each variable's variance); the first is the default.
    parameter : callable
        ``parameter(method_options) -> str``: which of ``parameters`` a run uses.
    integer_grid : bool
        Whether the grid values are integers (group sizes).
    preserves_mean : bool
        Whether it keeps every column's mean exactly (then a mean-based utility
        cannot tell its parameter values apart).
    defaults : mapping
        Its options and their default values.
    check_values : callable
        ``check_values(grid) -> tuple``: the checked grid.
    deterministic : bool
        Whether the masked data are a function of the data alone (one replicate).
    make_masker : callable
        ``make_masker(plan, replicates) -> masked(j)``: the masked data of each
        replicate at grid value ``j``, shape (replicates, n, p), and their
        column means and variances (:func:`rumap.maps.moments.moments`).
    published_lambda2 : callable
        ``published_lambda2(plan, j)``: the noise variance of the attacked
        column that the agency publishes, or None.
    """

    parameters: tuple[str, ...]
    parameter: Callable[[Mapping[str, Any]], str]
    integer_grid: bool
    preserves_mean: bool
    defaults: Mapping[str, Any]
    check_values: Callable[[Sequence[float]], tuple]
    deterministic: bool
    make_masker: Callable[[_Plan, np.ndarray], Callable[[int], Masked]]
    published_lambda2: Callable[[_Plan, int], float | None]


def _noise_spec(options: Mapping[str, Any]) -> NoiseSpec:
    return NoiseSpec(**{k: options[k] for k in (f.name for f in fields(NoiseSpec))})


def _noise_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    spec = _noise_spec(plan.config.method_options)
    noise = np.stack([standard_noise(replicate_generator(plan.config.seed, m), plan.x, spec,
                                     plan.noise_shape, plan.variance_factor) for m in reps])
    scales = np.sqrt(np.asarray(plan.config.values, dtype=float))
    lower = -np.inf if spec.truncate_below is None else float(spec.truncate_below)
    upper = np.inf if spec.truncate_above is None else float(spec.truncate_above)
    buffer = np.empty_like(noise)  # each grid value's masked data is used up before the next is made

    def masked(j: int) -> Masked:
        found = mask_with_moments(plan.x, noise, float(scales[j]), lower, upper, buffer)  # one pass: values and sums
        return buffer, found

    return masked


def _noise_lambda2(plan: _Plan, j: int) -> float:
    c = plan.config.target_column
    shape = plan.noise_shape
    return float(plan.config.values[j]) * float(shape[c] @ shape[c])


def _microaggregation_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.budget import WorkBudget
    from rumap.masking.microaggregation import microaggregate

    # the simulation's budget, which counts every k's microaggregation, was checked before the run
    CHECKED_BEFORE = WorkBudget(work=float("inf"), grid=2**62, cells=float("inf"))  # noqa: N806
    opts = plan.config.method_options

    def masked(j: int) -> Masked:
        result = microaggregate(plan.x, int(plan.config.values[j]), opts["algorithm"],
                                standardize=bool(opts["standardize"]), criterion=opts["criterion"],
                                budget=CHECKED_BEFORE)
        data = np.asarray(result.masked, dtype=float).reshape(plan.x.shape)[None]
        return data, moments(data)

    return masked


def _rankswap_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.swapping import rank_swap

    seeds = [int(np.random.SeedSequence(plan.config.seed, spawn_key=(int(m),)).generate_state(1)[0]) for m in reps]

    def masked(j: int) -> Masked:
        percent = float(plan.config.values[j])
        data = np.stack([np.asarray(rank_swap(plan.x, percent, seed=s), dtype=float).reshape(plan.x.shape)
                         for s in seeds])
        return data, moments(data)

    return masked


def _check_lambda2(values: Sequence[float]) -> tuple:
    return tuple(float(v) for v in check_array("lambda2", values))


def _check_k(values: Sequence[float]) -> tuple:
    arr = check_array("k", values)
    if np.any(arr != np.round(arr)):
        raise InputError(f"every k must be an integer >= 1, got {arr[np.argmax(arr != np.round(arr))]!r}")
    return tuple(int(v) for v in arr)


def _check_swap(values: Sequence[float]) -> tuple:
    return tuple(float(v) for v in check_array("swap_percent", values))


_NOISE_DEFAULTS = {f.name: f.default for f in fields(NoiseSpec)}

def _no_published_lambda2(plan: _Plan, j: int) -> None:
    return None


#: Masking methods of the engine, by name: adding one is one entry.
METHODS: dict[str, MaskingMethod] = {
    "noise": MaskingMethod(("lambda2", "lambda2_frac"), lambda o: size_parameter(bool(o.get("relative"))),
                           False, False, _NOISE_DEFAULTS, _check_lambda2, False, _noise_masker, _noise_lambda2),
    "microaggregation": MaskingMethod(("k",), lambda o: "k", True, True,
                                      {"algorithm": "mdav", "standardize": False, "criterion": "pc1"}, _check_k, True,
                                      _microaggregation_masker, _no_published_lambda2),
    "rankswap": MaskingMethod(("swap_percent",), lambda o: "swap_percent", False, True, {}, _check_swap, False,
                              _rankswap_masker, _no_published_lambda2),
}
