"""Additive noise as a masking method of the engine: its one record (kernel, grids, options, release step).

The masked value is ``x + e`` with ``e`` normal of variance ``lambda2`` (or
``lambda2`` times each variable's variance), optionally truncated, with a larger
variance for sensitive records, or correlated like the data
(:mod:`rumap.masking.noise`). Its release step is :data:`rumap.maps.noise_step.NOISE_STEP`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap.maps.method_records import (
    Flag,
    GridParameter,
    Masked,
    MaskingMethod,
    MethodOption,
    OptionWidget,
    Toggle,
)
from rumap.maps.moments import mask_with_moments
from rumap.maps.noise_step import NOISE_STEP
from rumap.maps.replicates import replicate_generator
from rumap.masking.noise import NoiseSpec, noise_shape, standard_noise

if TYPE_CHECKING:
    from rumap.maps.method_records import MaskingPlan as _Plan

__all__ = ["NOISE"]


def _noise_spec(options: Mapping[str, Any]) -> NoiseSpec:
    return NoiseSpec(**{k: options[k] for k in (f.name for f in fields(NoiseSpec))})


def _noise_prepare(x: np.ndarray, options: Mapping[str, Any]) -> tuple[NoiseSpec, np.ndarray, np.ndarray | None]:
    spec = _noise_spec(options)
    return spec, noise_shape(x, spec), spec.variance_factor(x)


def _noise_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    spec, shape, factor = plan.prepared  # made once per run, not per chunk
    noise = np.empty((len(reps), *plan.x.shape))
    for i, m in enumerate(reps):  # drawn in place: no array per replicate
        standard_noise(replicate_generator(plan.config.seed, m), plan.x, spec, shape, factor, out=noise[i])
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
    shape = plan.prepared[1]
    return float(plan.config.values[j]) * float(shape[c] @ shape[c])


_NOISE_DEFAULTS = {f.name: f.default for f in fields(NoiseSpec)}
_LAMBDA2_HELP = "noise variances (data units squared)"


def _sensitive_threshold(x: np.ndarray, column: int) -> float:
    """The page's first threshold of unequal-variance masking: the first column's 80th percentile."""
    return float(np.percentile(x[:, 0], 80))


def _noise_option(name: str, **kwargs: Any) -> MethodOption:
    return MethodOption(name, _NOISE_DEFAULTS[name], **kwargs)




#: Additive noise (Brand 2002; the seed paper's Eq 1-14): ``METHODS["noise"]``.
NOISE = MaskingMethod(
    description="additive noise",
    title="additive noise",
    grids=(
        GridParameter("lambda2", "λ²", "λ²", "data units squared", 0.0, (0.05, 1.0, 20),
                      Flag("--lambda2", _LAMBDA2_HELP, str, "START:STOP:NUM"), implies={"relative": False},
                      count_label="number of λ² values"),
        GridParameter("lambda2_frac", "λ²/S²", "λ² / S²", "fractions of each variable's variance", 0.0,
                      (0.05, 1.0, 20),
                      Flag("--lambda2-frac", "noise variances as fractions of each variable's variance (0.05:1:20 is "
                           "the paper's grid)", str, "START:STOP:NUM"),
                      bound="lambda2", implies={"relative": True}, count_label="number of λ² values"),
    ),
    options=(
        _noise_option("relative", widget=OptionWidget("checkbox", "λ² as a fraction of the variance", "relative",
                                                      True, "noise variance λ² × S² (the paper's grid is 0.05 to "
                                                            "1.0)")),
        _noise_option("truncate_below", flag=Flag("--truncate-below", "release max(V, x + e) (Eq 11: 0)",
                                                  metavar="V"),
                      widget=OptionWidget("number", "lower bound", "trunc", 0.0), toggle="truncate", bound="truncation"),
        _noise_option("truncate_above", flag=Flag("--truncate-above", "release min(V, x + e)", metavar="V")),
        _noise_option("unequal_above", flag=Flag("--unequal-above", "multiply the noise variance of records whose "
                                                 "attacked column is above T by --unequal-factor (Figure 7)",
                                                 metavar="T", exclusive="unequal"),
                      widget=OptionWidget("number", "sensitive above", "unequal_above", _sensitive_threshold),
                      toggle="unequal", bound="unequal_threshold"),
        _noise_option("unequal_below", flag=Flag("--unequal-below", "the same for records below T", metavar="T",
                                                 exclusive="unequal"), toggle="unequal"),
        _noise_option("unequal_factor", flag=Flag("--unequal-factor", "variance factor (default 2)", metavar="F",
                                                  needs=("unequal_above", "unequal_below")),
                      widget=OptionWidget("number", "variance factor", "unequal_factor", 2.0), toggle="unequal"),
        _noise_option("unequal_column", follows="target_column", toggle="unequal",
                      note="the sensitive records are chosen on another column than the attacked one"),
        _noise_option("correlated", flag=Flag("--correlated", "noise correlated like the data (Kim 1986; with "
                                              "several columns)", None),
                      widget=OptionWidget("checkbox", "Noise correlated like the data", "correlated", min_columns=2)),
    ),
    toggles={"truncate": Toggle("Truncate released values from below (Eq 11)", "trunc_on",
                                "off by default, as on the command line: released values keep the noise's sign"),
             "unequal": Toggle("Unequal variance for sensitive values", "unequal_on",
                               "the paper's Figure 7 doubles the noise variance above $35K")},
    make_masker=_noise_masker,
    published_lambda2=_noise_lambda2,
    check_options=_noise_spec,
    prepare=_noise_prepare,
    release=NOISE_STEP,
    on_subsample=None,
)
