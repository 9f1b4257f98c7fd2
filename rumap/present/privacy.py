"""The privacy of a differentially private release in words a committee reads.

Epsilon bounds the factor ``e^epsilon`` by which any one person's presence or
absence can change the probability of any published result; a Gaussian
release, stated as rho (zero-concentrated DP), is also (epsilon, delta): the
same factor, apart from a chance of at most delta.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rumap._validation import InstanceOf, validate_params
from rumap.present.numbers import format_number

__all__ = ["privacy_statement"]


def _plain(x: float) -> str:
    """Two significant digits, a large number written out with thousands separated: 2.7, 22,000."""
    rounded = float(f"{x:.2g}")
    return f"{rounded:,.0f}" if rounded >= 100 else format_number(rounded)


def _odds(delta: float) -> str:
    """``1 in a million`` for 1e-6: delta as one chance in a round number."""
    inverse = 1.0 / delta
    names = {1e3: "a thousand", 1e6: "a million", 1e9: "a billion"}
    for size, name in names.items():
        if math.isclose(inverse, size, rel_tol=1e-9):
            return f"1 in {name}"
    return f"1 in {_plain(inverse)}"


@validate_params({"privacy": InstanceOf(Mapping, "the privacy of a release (PrivacyLoss.to_dict())")},
                 example=lambda: {"privacy": {"epsilon": 1.0, "delta": None, "rho": None}})
def privacy_statement(privacy: Mapping[str, Any]) -> str:
    """One sentence on what a release's privacy loss promises.

    Parameters
    ----------
    privacy : mapping
        ``epsilon``, ``delta`` and ``rho`` (:meth:`rumap.privacy.accounting.PrivacyLoss.to_dict`).

    Returns
    -------
    str

    Examples
    --------
    >>> privacy_statement({"epsilon": 1.0, "delta": None, "rho": None})
    "epsilon = 1: any one person's presence changes the probability of any published result by at most a factor of 2.7."
    >>> privacy_statement({"epsilon": 2.419, "delta": 1e-6, "rho": 0.125})[:80]
    'rho = 0.125 (zero-concentrated differential privacy), that is epsilon = 2.42 at '
    """
    epsilon = float(privacy["epsilon"])
    factor = f"a factor of {_plain(math.exp(epsilon))}" if epsilon < 30 else f"a factor of e^{format_number(epsilon)}"
    sentence = (f"any one person's presence changes the probability of any published result by at most {factor}")
    if privacy.get("rho") is None:
        return f"epsilon = {format_number(epsilon)}: {sentence}."
    delta = float(privacy["delta"])
    return (f"rho = {format_number(float(privacy['rho']))} (zero-concentrated differential privacy), that is "
            f"epsilon = {format_number(epsilon)} at delta = {format_number(delta)}: apart from a "
            f"chance of at most {_odds(delta)}, {sentence}.")
