"""A toy masking method, registered by one record: what adding a method to rumap takes.

Rounding to a base b (``b * round(x / b)``, or down with the option ``down``)
is deterministic, so its index-knowledge risk has a closed form to test the
engine's against: ``R = 1 / (tau - Y_t)^2``. Its release step rounds a file's
columns at one base: on a file chunk by chunk, its columns gathered (the
default), or record by record with ``TOY_BY_RECORD``, whose record says so.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace

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


class _ToyStream:
    """Rounding maps each value by itself: a chunk of a file is rounded as the whole file would be."""

    def __init__(self, step) -> None:
        self.step = step

    def __call__(self, frame, source, start):
        out = frame.copy()
        for name in self.step.columns:
            out[name] = round_to_base(frame[name].to_numpy(dtype=float), float(self.step.parameters["toy_base"]),
                                      bool(self.step.parameters["down"]))
        return out

    def restart(self) -> None:
        """Nothing drawn, nothing counted."""

    def summary(self) -> dict:
        return {}

    def types(self) -> dict:
        return {}


def toy_stream(step, file):  # how its step runs on a file: record by record, no pass before the writing one
    return _ToyStream(step)


#: The toy whose release step runs on a file record by record (its record's ``stream``).
TOY_BY_RECORD = replace(TOY, release=replace(TOY.release, stream=toy_stream))


@contextlib.contextmanager
def toy_registered(record: MaskingMethod = TOY) -> Iterator[MaskingMethod]:
    """The toy method (``record``) registered as ``"toy"`` while the block runs."""
    register_method("toy", record)
    try:
        yield record
    finally:
        METHODS.pop("toy", None)
