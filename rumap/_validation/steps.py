"""The checks a release step's parameters share, given as a plan file's values: each message names the parameter.

Every check raises :class:`rumap.errors.InputError` with a message that names
the parameter (``parameter k must be ...``); the command line puts its flag in
its place, a plan file its key (:func:`rumap.release.methods.plan_key`). The
masking methods' release steps (:mod:`rumap.maps.methods`) and the release's
own steps (:mod:`rumap.release`) check with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rumap._validation.constraints import check_scalar
from rumap._validation.registry import assumes_valid
from rumap.errors import InputError

__all__ = ["REQUIRED", "step_number", "step_optional_float", "step_flag", "step_choice", "step_member"]


class _Required:
    """The one marker of a parameter without a default; pickled by its name, so another process's is the same."""

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self) -> str:
        return "REQUIRED"


#: Marks a parameter without a default (the step must give it).
REQUIRED = _Required()


@assumes_valid
def step_number(name: str, value: Any, parameter: str | None = None) -> float | int:
    """A parameter's value checked against its :data:`rumap._validation.PARAMETERS` entry; messages name it."""
    if isinstance(value, bool):
        raise InputError(f"parameter {name} must be a number, got {value!r}")
    try:
        return check_scalar(parameter or name, value)
    except InputError as exc:
        raise InputError(f"parameter {str(exc).replace(parameter or name, name, 1)}") from None


@assumes_valid
def step_optional_float(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise InputError(f"parameter {name} must be a finite number or null, got {value!r}")
    return float(value)


@assumes_valid
def step_flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"parameter {name} must be true or false, got {value!r}")
    return value


@assumes_valid
def step_choice(name: str, value: Any, options: Sequence[str]) -> str:
    if value not in options:
        raise InputError(f"parameter {name} must be one of {', '.join(options)}, got {value!r}")
    return str(value)


@assumes_valid
def step_member(name: str, value: Any, names: tuple[str, ...], what: str) -> str:
    if not isinstance(value, str) or value not in names:
        raise InputError(f"parameter {name} must be one of the step's {what} ({', '.join(names)}), got {value!r}")
    return value


