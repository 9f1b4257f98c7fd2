"""A toy protection of categorical keys, registered by one record and one registry line: what adding one takes.

Coarsening an integer key to multiples of a width w (``w * floor(x / w)``) maps
each value by itself, so a file is coarsened chunk by chunk as it is at once.
Its map runs over w: R is the file's global risk after coarsening (the intruder
knows the coarsened key), U the share of the key's values left as they were.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, Interval, StepName, check_parameter
from rumap.maps.categorical_measures import CATEGORICAL_RISKS
from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import Flag
from rumap.release import registry
from rumap.release.methods import REQUIRED, StepMethod
from rumap.result import RUMap

NAME = "coarsen"


def coarsened(values: pd.Series, width: float) -> pd.Series:
    """``width * floor(values / width)``, as whole numbers."""
    return (width * np.floor(values.to_numpy(dtype=float) / width)).astype(np.int64)


def _draw(frame, keys, values, *, weight, variable, replicates, seed, source, budget, risk=None, utility=None,
          options=None) -> RUMap:  # its map: the global risk and the share of values kept at each width
    keys, measure = list(keys), CATEGORICAL_RISKS["global_risk"]
    r, u = [], []
    for width in values:
        out = frame.copy()
        out[variable] = coarsened(frame[variable], float(width))
        r.append(measure.compute(out, out, keys, weight=weight, options={}, source=source, budget=budget))
        u.append(float((out[variable] == frame[variable]).mean()))
    return RUMap(parameter="width", values=np.asarray(values, dtype=float), risk=np.asarray(r), utility=np.asarray(u),
                 risk_label="R = global risk", utility_label="U = share of values kept", method="coarsening",
                 knowledge="key", target=" x ".join(keys), config={"keys": keys, "variable": variable})


#: Its parameter's bound, its line of the one table of bounds (:data:`rumap._validation.PARAMETERS`).
WIDTH = Interval("float", 1.0, None, "left", "width of the multiples a key is coarsened to")


def _check(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"width": float(check_parameter("width", parameters["width"])), "variable": check_parameter("variable", parameters["variable"],
                                                               StepName(names, "keys"))}


def _apply(frame: pd.DataFrame, step, source, budget) -> tuple[pd.DataFrame, dict]:
    out = frame.copy()
    name = step.parameters["variable"]
    out[name] = coarsened(frame[name], step.parameters["width"])
    return out, {"changed": int((out[name] != frame[name]).sum())}


class _Stream:
    """Each value coarsened by itself: a chunk of a file as the whole file would be."""

    def __init__(self, step) -> None:
        self.step, self.changed = step, 0

    def __call__(self, frame, source, start):
        out, summary = _apply(frame, self.step, source, None)
        self.changed += summary["changed"]
        return out

    def restart(self) -> None:
        self.changed = 0

    def summary(self) -> dict:
        return {"changed": self.changed}

    def types(self) -> dict:
        return {}


def _stream(step, file):  # how its step runs on a file: record by record
    return _Stream(step)


def _read_flags(given: dict) -> dict:  # release's --coarsen-variable VAR: the key coarsened
    return {"variable": given["--coarsen-variable"]} if "--coarsen-variable" in given else {}


#: The toy's one record: its step, how it runs on a file, and its map.
COARSEN_STEP = StepMethod(
    "keys", {"width": REQUIRED, "variable": REQUIRED}, False, _check, _apply, None,
    "coarsening of an integer key to multiples of a width", stream=_stream,
    no_prediction="the map of coarsening is exact",
    flags=(Flag("--width", "coarsen to multiples of this width"),),
    text_flags=(Flag("--coarsen-variable", "the integer key coarsened", str, "VAR"),), read_flags=_read_flags,
    key_map=CategoricalMethod("width", False, False, _draw, "coarsening of an integer key, over the width",
                              (1.0, 20.0, 4), "coarsening", variable=True,
                              grid_help="widths of the coarsening of --band-variable"))


@contextlib.contextmanager
def coarsen_registered() -> Iterator[StepMethod]:
    """The toy registered as ``"coarsen"`` (its one registry line, and its bound's) while the block runs."""
    registry._STEPS[NAME] = COARSEN_STEP
    PARAMETERS["width"] = WIDTH
    try:
        yield COARSEN_STEP
    finally:
        registry._STEPS.pop(NAME, None)
        PARAMETERS.pop("width", None)
