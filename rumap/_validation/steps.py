"""The parameters of a method's record (a release step, a masking method's options), checked by their constraints.

A record's ``check`` takes a plain dict (a plan file's ``parameters``), not
the arguments of a call: :func:`check_parameter` checks one value with the
constraint a :func:`~rumap._validation.validate_params` entry would use (a
:data:`~rumap._validation.PARAMETERS` name, :class:`StrOptions`,
:class:`JsonBoolean`, a list of alternatives, :class:`StepName`), so a bad value
gets the one message it gets anywhere, prefixed ``parameter NAME``; a plan's
messages then name its key (:func:`rumap.release.methods.plan_key`) and the
command line its flag.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rumap._validation.constraints import Boolean, StrOptions, make_constraint
from rumap.errors import InputError

__all__ = ["StepName", "JsonBoolean", "check_parameter", "REQUIRED"]


class _Required:
    """The one marker of a parameter without a default; pickled by its name, so another process's is the same."""

    def __repr__(self) -> str:
        return "REQUIRED"

    def __reduce__(self) -> str:
        return "REQUIRED"


#: Marks a parameter without a default (the step must give it).
REQUIRED = _Required()


@dataclass(frozen=True, init=False)
class StepName(StrOptions):
    """One of the names a step works on: ``StepName(names, "columns")`` or ``StepName(names, "keys")``."""

    what: str

    def __init__(self, options: Iterable[str], what: str) -> None:
        super().__init__(options)
        object.__setattr__(self, "what", what)

    def describe(self) -> str:
        return f"one of the step's {self.what} ({', '.join(self.options)})"


@dataclass(frozen=True)
class JsonBoolean(Boolean):
    """:class:`Boolean` spelled as a plan or configuration file (JSON) writes it: ``true or false``."""

    def describe(self) -> str:
        return "true or false"


def check_parameter(name: str, value: Any, constraint: Any = None) -> Any:
    """A record's parameter checked by its constraint, converted; an :class:`InputError` says ``parameter NAME ...``.

    Parameters
    ----------
    name : str
        The parameter, as the record (and a plan file) names it.
    value : object
    constraint : constraint or its short form, optional
        A :data:`~rumap._validation.PARAMETERS` name, a :class:`~rumap._validation.Constraint`, None or a list of
        alternatives (as :func:`~rumap._validation.validate_params` takes them); default: the entry ``name``.

    Returns
    -------
    object
        The value as the constraint converts it (an ``int`` or ``float`` for a number).

    Examples
    --------
    >>> check_parameter("k", 3.0)
    3
    >>> check_parameter("k", 0)
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: parameter k must be an integer >= 1, got 0
    >>> check_parameter("unequal_column", "c", StepName(("a", "b"), "columns"))
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: parameter unequal_column must be one of the step's columns (a, b), got 'c'
    """
    try:
        return make_constraint(name if constraint is None else constraint).check(name, value)
    except InputError as exc:
        raise InputError(f"parameter {exc}") from None
