"""Additive noise as a step of a release plan: its parameters, its released values, and its run on a file.

In memory the step masks the file's columns at once (:data:`NOISE_STEP`,
the ``release`` of the noise record in :mod:`rumap.maps.methods`); on a file
too large for memory (:func:`noise_stream`) one pass sums the columns'
moments when the noise needs their covariance, then each chunk is masked as
it comes, the draws record after record, with what the release's
:class:`rumap.release.chunked.FilePass` gives it (the chunk's values, the
columns put back, a refusal that names the step).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import JsonBoolean, StepName, assumes_valid, check_parameter
from rumap.errors import InputError
from rumap.maps.method_records import ReleaseStep
from rumap.masking.noise import (
    SIZE_PARAMETERS,
    NoiseSpec,
    add_noise,
    mask_with,
    noise_shape,
    noise_shape_of_covariance,
    size_parameter,
    standard_noise,
)

if TYPE_CHECKING:
    from rumap.budget import WorkBudget

__all__ = ["NOISE_STEP", "noise_step_spec", "noise_released", "refuse_noise_past_magnitude", "noise_stream"]


# its step of a release plan: one size parameter (a variance or a fraction of each column's), the options by name

_NOISE_STEP_OPTIONS = ("correlated", "truncate_below", "truncate_above", "unequal_above", "unequal_below",
                       "unequal_factor", "unequal_column")


def _check_noise_step(parameters: dict, names: tuple[str, ...]) -> dict:
    given = [p for p in SIZE_PARAMETERS.values() if parameters.get(p) is not None]
    if len(given) != 1:
        raise InputError("noise needs one of the parameters lambda2 (a variance) or lambda2_frac (a fraction of "
                         "each column's variance)")
    size = given[0]
    out: dict[str, Any] = {size: float(check_parameter(size, parameters[size], "lambda2"))}
    out["correlated"] = check_parameter("correlated", parameters["correlated"], JsonBoolean())
    for name in ("truncate_below", "truncate_above", "unequal_above", "unequal_below"):
        out[name] = check_parameter(name, parameters[name], [None, "value"])
    out["unequal_factor"] = float(check_parameter("unequal_factor", parameters["unequal_factor"]))
    decimals = parameters["decimals"]
    if decimals is not None and (isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 15):
        raise InputError(f"parameter decimals must be a whole number from 0 to 15 (the released values' decimals) "
                         f"or null, got {decimals!r}")
    out["decimals"] = decimals
    column = parameters["unequal_column"]
    out["unequal_column"] = (names[0] if column is None else
                             check_parameter("unequal_column", column, StepName(names, "columns")))
    noise_step_spec(out, names)  # the options' relations (bounds in order, one unequal threshold)
    return out


@assumes_valid
def noise_step_spec(parameters: Mapping[str, Any], names: Sequence[str]) -> NoiseSpec:
    """The :class:`~rumap.masking.noise.NoiseSpec` of a noise step's checked parameters.

    Parameters
    ----------
    parameters : mapping
        The step's checked parameters (one size parameter, the options by name).
    names : sequence of str
        The step's columns (``unequal_column`` is one of them).

    Returns
    -------
    NoiseSpec
    """
    options = {k: parameters[k] for k in _NOISE_STEP_OPTIONS if k != "unequal_column"}
    return NoiseSpec(relative=SIZE_PARAMETERS[True] in parameters,
                     unequal_column=list(names).index(parameters["unequal_column"]), **options)


@assumes_valid
def noise_released(x: np.ndarray, masked: np.ndarray, parameters: Mapping[str, Any],
                  columns: Sequence[str]) -> tuple[np.ndarray, dict]:
    """A noise step's released values, rounded to its ``decimals``, and what the noise did to the values' signs.

    Rounding after the noise keeps the data's precision (a wage in cents stays
    in cents); the summary counts, per column, the records whose released value
    has the other sign than the original (a negative wage), so that a release
    says so rather than leaving it to the reader to find.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        The original values.
    masked : ndarray, shape (n, p)
        The values with noise (changed in place when rounded).
    parameters : mapping
        The step's checked parameters (``decimals``: None for full precision).
    columns : sequence of str
        The columns' names.

    Returns
    -------
    released : ndarray
    summary : dict
        ``sign_changed``: per column, the records whose sign the noise changed
        (counts only; they add up over chunks).
    """
    decimals = parameters.get("decimals")
    if decimals is not None:
        np.round(masked, decimals, out=masked)
    flipped = ((x > 0) & (masked < 0)) | ((x < 0) & (masked > 0))
    return masked, {"sign_changed": {name: int(flipped[:, j].sum()) for j, name in enumerate(columns)}}


#: Standard deviations of the noise beyond which no normal draw goes (a draw past 10 has probability 1.5e-23).
_NOISE_REACH = 10.0


def _release_noise(x: np.ndarray, parameters: Mapping[str, Any], columns: tuple[str, ...], seed: int | None,
                   budget: WorkBudget) -> tuple[np.ndarray, dict]:
    spec = noise_step_spec(parameters, columns)
    size = size_parameter(spec.relative)
    refuse_noise_past_magnitude(noise_shape(x.reshape(x.shape[0], -1), spec), parameters[size], spec, size, columns)
    return noise_released(x, add_noise(x, parameters[size], spec, seed=seed), parameters, columns)


@assumes_valid
def refuse_noise_past_magnitude(shape: np.ndarray, lambda2: float, spec: NoiseSpec, size: str,
                                columns: Sequence[str]) -> None:
    """Refuse noise whose draws would pass the largest magnitude of a data value, naming the parameter and column.

    The in-memory step and the step chunk by chunk (:mod:`rumap.release.stream`) check the same: the noise's
    standard deviation on each column, from the file's noise shape, times the reach of a normal draw.

    Parameters
    ----------
    shape : ndarray, shape (p, p)
        The noise's factor ``L`` (:func:`rumap.masking.noise.noise_shape`).
    lambda2 : float
        The step's size parameter.
    spec : NoiseSpec
    size : str
        The size parameter's name (``lambda2`` or ``lambda2_frac``), for the message.
    columns : sequence of str

    Raises
    ------
    InputError

    Examples
    --------
    >>> refuse_noise_past_magnitude(np.eye(1), 1e308, NoiseSpec(), "lambda2", ["income"])
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: parameter lambda2 = 1e+308 gives column 'income' noise of standard deviation 1e+154: masked values would pass 1e+150, where sums of squares overflow; ask for less noise
    """
    from rumap._validation.data import MAX_MAGNITUDE

    factor = max(1.0, spec.unequal_factor) if (spec.unequal_above, spec.unequal_below) != (None, None) else 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        sd = np.sqrt(float(lambda2) * factor) * np.sqrt((shape ** 2).sum(axis=1))
    over = ~(_NOISE_REACH * sd <= MAX_MAGNITUDE)
    if over.any():
        j = int(np.argmax(over))
        raise InputError(f"parameter {size} = {lambda2:g} gives column {columns[j]!r} noise of standard deviation "
                         f"{sd[j]:.3g}: masked values would pass {MAX_MAGNITUDE:.0e}, where sums of squares overflow; "
                         "ask for less noise")


class _NoiseStream:
    """A noise step over the chunks: its noise shape (from the whole file) and its generator, record after record."""

    def __init__(self, step: Any, file: Any, shape_factor: np.ndarray) -> None:
        self.step, self.file = step, file
        self.spec = noise_step_spec(step.parameters, step.columns)
        size = size_parameter(self.spec.relative)  # as in memory, before any chunk is masked
        refuse_noise_past_magnitude(shape_factor, step.parameters[size], self.spec, size, step.columns)
        self.shape_factor = shape_factor
        self.restart()

    def __call__(self, frame: Any, source: str, start: int) -> Any:
        x = self.file.values(frame, self.step, source, start)
        scale = float(np.sqrt(self.step.parameters[size_parameter(self.spec.relative)]))
        noise = standard_noise(self.rng, x, self.spec, self.shape_factor)
        released, summary = noise_released(x, mask_with(x, noise, scale, self.spec), self.step.parameters,
                                           self.step.columns)
        for name, count in summary["sign_changed"].items():
            self.changed[name] += count
        return self.file.replace(frame, self.step.columns, released)

    def restart(self) -> None:
        """Back to the first record's draws, for a new pass over the file."""
        self.rng = np.random.default_rng(self.step.seed)
        self.changed = dict.fromkeys(self.step.columns, 0)

    def summary(self) -> dict:
        """The records whose sign the noise changed, summed over the chunks, as in memory."""
        return {"sign_changed": dict(self.changed)}

    def types(self) -> dict[str, Any]:
        """Numbers in, numbers out: the chunk's own types."""
        return {}


@dataclass
class _Moments:
    """Count, mean and sum of squared deviations (p x p) of chunks, merged as they come (Chan et al.)."""

    n: int = 0
    mean: np.ndarray | None = None
    m2: np.ndarray | None = None

    def add(self, x: np.ndarray) -> None:
        k = x.shape[0]
        if k == 0:
            return
        mean = x.mean(axis=0)
        centred = x - mean
        m2 = centred.T @ centred
        if self.mean is None:
            self.n, self.mean, self.m2 = k, mean, m2
            return
        delta = mean - self.mean
        total = self.n + k
        self.m2 = self.m2 + m2 + np.outer(delta, delta) * (self.n * k / total)
        self.mean = self.mean + delta * (k / total)
        self.n = total

    def covariance(self) -> np.ndarray:
        return self.m2 / (self.n - 1)


def _shape_factor(step: Any, covariance: np.ndarray | None, p: int) -> np.ndarray:
    """The step's ``L`` (:func:`rumap.masking.noise.noise_shape`) from the whole file's covariance."""
    spec = noise_step_spec(step.parameters, step.columns)
    if covariance is None:  # absolute uncorrelated noise: L = I, no pass
        return np.eye(p)
    return noise_shape_of_covariance(covariance, spec)


@assumes_valid
def noise_stream(step: Any, file: Any) -> _NoiseStream:
    """Additive noise on a file: one pass sums the columns' moments when the noise needs their covariance
    (relative, or correlated over several columns), then the draws record after record.

    Parameters
    ----------
    step : rumap.release.plan.Step
    file : rumap.release.chunked.FilePass

    Returns
    -------
    stream
    """
    spec = noise_step_spec(step.parameters, step.columns)
    covariance = None
    if spec.relative or (spec.correlated and len(step.columns) > 1):
        moments = _Moments()
        file.count(lambda frame, start: moments.add(file.values(frame, step, file.source, start)), "its covariance")
        if moments.n < 2:
            raise InputError(f"{file.source}: noise needs at least 2 records, got {moments.n}")
        covariance = moments.covariance()
    try:
        return _NoiseStream(step, file, _shape_factor(step, covariance, len(step.columns)))
    except InputError as exc:
        raise file.refusal(step, exc) from None


#: Additive noise as a step of a release plan: in memory, and on a file record after record.
NOISE_STEP = ReleaseStep(
    _release_noise,
    parameters={"lambda2": None, "lambda2_frac": None, "correlated": False, "truncate_below": None,
                "truncate_above": None, "unequal_above": None, "unequal_below": None, "unequal_factor": 2.0,
                "unequal_column": None, "decimals": None},
    check=_check_noise_step,
    description="additive noise (plain, correlated, truncated, unequal variance; rounded to the data's decimals "
                "when asked)",
    precision="decimals",
    stream=noise_stream,
)
