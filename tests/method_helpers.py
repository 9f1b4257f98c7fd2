"""A toy masking method, registered by one record: what adding a method to rumap takes.

Rounding to a base b (``b * round(x / b)``, or down with the option ``down``)
is deterministic, so its index-knowledge risk has a closed form to test the
engine's against: ``R = 1 / (tau - Y_t)^2``. Its release step rounds a file's
columns at one base.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from rumap._validation import Boolean
from rumap.maps.methods import (
    METHODS,
    Flag,
    GridParameter,
    MaskingMethod,
    MethodOption,
    OptionWidget,
    ReleaseStep,
    register_method,
)
from rumap.maps.moments import moments


def round_to_base(x: np.ndarray, base: float, down: bool) -> np.ndarray:
    """``base * round(x / base)`` (``floor`` when ``down``)."""
    return base * (np.floor(x / base) if down else np.round(x / base))


def _toy_masker(plan, reps):  # the kernel: masked data of grid value j, shape (1, n, p), and their moments
    def masked(j: int):
        data = round_to_base(plan.x, float(plan.config.values[j]), bool(plan.config.method_options["down"]))[None]
        return data, moments(data)

    return masked


def _toy_release(x, parameters, columns, seed, budget):  # its release step: a file's columns at one base
    return round_to_base(x, float(parameters["toy_base"]), bool(parameters["down"])), {}


TOY = MaskingMethod(
    description="rounding to a base",
    grids=(GridParameter("toy_base", "b", "base", "data units", 0.0, (1000.0, 5000.0, 3),
                         Flag("--toy-base", "rounding bases", str, "START:STOP:NUM"), bound="rounding_base",
                         widget_keys=("toy_start", "toy_stop", "toy_num")),),
    options=(MethodOption("down", False, Boolean(), Flag("--toy-down", "round down", None),
                          OptionWidget("checkbox", "Round down", "toy_down")),),
    deterministic=True,
    make_masker=_toy_masker,
    release=ReleaseStep(_toy_release),
)


@contextlib.contextmanager
def toy_registered() -> Iterator[MaskingMethod]:
    """The toy method registered as ``"toy"`` while the block runs."""
    register_method("toy", TOY)
    try:
        yield TOY
    finally:
        METHODS.pop("toy", None)
