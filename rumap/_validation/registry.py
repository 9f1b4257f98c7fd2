"""The decorator :func:`validate_params` and the registries of validated and trusting public functions."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rumap._validation.constraints import Arguments, Constraint, make_constraint

__all__ = ["Validated", "REGISTRY", "ASSUMES_VALID", "validate_params", "assumes_valid"]


@dataclass(frozen=True)
class Validated:
    """A public callable whose arguments :func:`validate_params` checks.

    Parameters
    ----------
    target : callable
        The function or class, as the module exports it.
    constraints : mapping of str to Constraint
        The constraint of each checked parameter, in checking order.
    example : callable or None
        Returns valid keyword arguments for ``target``.
    """

    target: Callable[..., Any]
    constraints: Mapping[str, Constraint]
    example: Callable[[], Mapping[str, Any]] | None


#: Every validated public callable, by qualified name (``module.name``).
REGISTRY: dict[str, Validated] = {}

#: Qualified names of public functions that take values their caller has checked.
ASSUMES_VALID: set[str] = set()


def validate_params(constraints: Mapping[str, Any], *,
                    example: Callable[[], Mapping[str, Any]] | None = None) -> Callable[[Any], Any]:
    """Check a public function's arguments (or a frozen dataclass's fields) against declared constraints.

    Parameters
    ----------
    constraints : mapping of str to constraint
        Parameter name to constraint or its short form (:func:`make_constraint`),
        checked in this order.
    example : callable, optional
        Returns valid keyword arguments; the common test needs it.

    Returns
    -------
    callable
        A decorator. The decorated function receives the checked, converted
        values and is recorded in :data:`REGISTRY`.
    """
    checks = MappingProxyType({name: make_constraint(c) for name, c in constraints.items()})

    def decorate(target: Any) -> Any:
        function = target.__init__ if isinstance(target, type) else target
        signature = inspect.signature(function)
        for position, (name, constraint) in enumerate(checks.items()):
            if name not in signature.parameters:
                raise TypeError(f"{target.__qualname__} has no parameter {name!r}")
            for other in constraint.depends_on:
                if other not in list(checks)[:position]:
                    raise TypeError(f"{target.__qualname__}: the constraint of {name!r} uses {other!r}, "
                                    "which must be declared before it")

        @functools.wraps(function)
        def checked_call(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            done: dict[str, Any] = {}
            arguments = Arguments(bound.arguments, done)
            for name, constraint in checks.items():
                done[name] = constraint.check(name, bound.arguments[name], arguments)
            bound.arguments.update(done)
            return function(*bound.args, **bound.kwargs)

        if isinstance(target, type):
            target.__init__ = checked_call
        result = target if isinstance(target, type) else checked_call
        REGISTRY[f"{target.__module__}.{target.__qualname__}"] = Validated(result, checks, example)
        return result

    return decorate


def assumes_valid(function: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a public function that takes values its caller has already checked (recorded in :data:`ASSUMES_VALID`)."""
    ASSUMES_VALID.add(f"{function.__module__}.{function.__qualname__}")
    return function
