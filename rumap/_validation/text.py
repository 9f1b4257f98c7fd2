"""Text a flag gives, read into what a parameter takes: column names, ``VAR:NUMBER``, similarity sets, a checked value.

The command line and the methods' records (each record reads its own flags,
:attr:`rumap.release.methods.StepMethod.read_flags`) read flags' text with these,
so that a flag's message is the same wherever it is read.
"""

from __future__ import annotations

import numpy as np

from rumap._validation.constraints import InstanceOf, check_scalar
from rumap._validation.numbers import parse_number
from rumap._validation.registry import assumes_valid, validate_params
from rumap.errors import InputError

__all__ = ["split_names", "variable_number", "similar_sets", "check_flag"]


@validate_params({"text": InstanceOf(str, "comma-separated names"), "flag": InstanceOf(str)},
                 example=lambda: {"text": "age, sex", "flag": "--keys"})
def split_names(text: str, flag: str) -> list[str]:
    """A flag's comma-separated column names, each one non-empty.

    Parameters
    ----------
    text : str
    flag : str
        The flag, for messages.

    Returns
    -------
    list of str

    Examples
    --------
    >>> split_names("age, sex", "--keys")
    ['age', 'sex']
    """
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise InputError(f"{flag} must be comma-separated column names, got {text!r}")
    return names


@assumes_valid
def variable_number(text: str, flag: str) -> tuple[str, float]:
    """A flag's ``VAR:NUMBER``: the variable and a finite number written in ASCII digits.

    Parameters
    ----------
    text : str
        The flag's value, e.g. ``"age:90"``.
    flag : str
        The flag, for the message.

    Returns
    -------
    tuple of (str, float)

    Raises
    ------
    InputError
        No variable, no number, or a number that is not finite or not in ASCII digits.

    Examples
    --------
    >>> variable_number(" age : 90", "--top")
    ('age', 90.0)
    """
    variable, sep, value = text.partition(":")
    try:
        number = parse_number(value) if sep and variable.strip() else float("nan")
    except ValueError:
        number = float("nan")
    if not np.isfinite(number):
        raise InputError(f"{flag} must be VAR:NUMBER (a finite number in ASCII digits), got {text!r}")
    return variable.strip(), number


def similar_sets(text: str) -> list[list[str]]:
    """The similarity sets of ``--similar`` (``S[+T][,S2...]``), each a list of variables.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of list of str

    Examples
    --------
    >>> similar_sets("hsize+ageband,hsize")
    [['hsize', 'ageband'], ['hsize']]
    """
    sets = []
    for part in text.split(","):
        names = [name.strip() for name in part.split("+")]
        if not all(names):
            raise InputError(f"--similar {text}: a similarity set is empty; give S[+T][,S2...]")
        sets.append(names)
    return sets


@validate_params({"flag": InstanceOf(str), "parameter": InstanceOf(str)},
                 example=lambda: {"flag": "--tolerance", "parameter": "tolerance", "value": 0.1})
def check_flag(flag: str, parameter: str, value: object) -> float | int:
    """A flag's value checked against its entry of :data:`rumap._validation.PARAMETERS`; messages name the flag.

    Parameters
    ----------
    flag : str
        The flag, e.g. ``"--tolerance"``.
    parameter : str
        Its entry in the table, e.g. ``"tolerance"``.
    value : object

    Returns
    -------
    float or int

    Examples
    --------
    >>> check_flag("--tolerance", "tolerance", float("nan"))
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: --tolerance must be a number >= 0, got nan
    """
    try:
        return check_scalar(parameter, value)
    except InputError as exc:
        raise InputError(str(exc).replace(parameter, flag, 1)) from None
