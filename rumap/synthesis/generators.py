"""The synthetic-data generators: one record each in :data:`GENERATORS`, the one table of generators by name.

A generator's record holds its fit (``fit(frame, value, rng) -> model`` with
``model.draw(rows, rng) -> DataFrame``), its one parameter (a
:data:`rumap._validation.PARAMETERS` entry, the axis of its R-U map) and its
default. The records load without pandas or scipy (each fit imports its module
when it runs), so that the command line builds its flags from them. Adding a
generator is its module in :mod:`rumap.synthesis` and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import PARAMETERS, check_scalar

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Generator", "GENERATORS"]


def _fit_cart(frame: pd.DataFrame, value: Any, rng: np.random.Generator) -> Any:
    from rumap.synthesis.cart import fit_cart

    return fit_cart(frame, value, rng)


def _fit_copula(frame: pd.DataFrame, value: Any, rng: np.random.Generator) -> Any:
    from rumap.synthesis.copula import fit_copula

    return fit_copula(frame, value, rng)


def _fit_mst(frame: pd.DataFrame, value: Any, rng: np.random.Generator) -> Any:
    from rumap.synthesis.mst import fit_mst

    return fit_mst(frame, value, rng)


def _mst_privacy(value: float) -> dict:
    from rumap.privacy.mst import mst_privacy

    return mst_privacy(value)


@dataclass(frozen=True)
class Generator:
    """A synthetic-data generator.

    Parameters
    ----------
    fit : callable
        ``fit(frame, value, rng) -> model`` on checked data, ``model.draw(rows, rng) -> DataFrame``.
    parameter : str
        Its parameter's name, a :data:`rumap._validation.PARAMETERS` entry (and its command-line flag).
    default : float
        The parameter's default.
    description : str
        What the generator does, in words.
    integer : bool
        Whether the parameter is an integer.
    grid : tuple
        The default grid of its map: the smallest and largest value and how many (a page's inputs start there).
    geometric : bool
        Whether the grid's values are spaced by a constant factor (else evenly).
    label : str
        The parameter in words, for a page's inputs.
    entry : str
        Its parameter's :data:`rumap._validation.PARAMETERS` entry, when not named as the parameter.
    privacy : callable, optional
        ``privacy(value) -> {"epsilon", "delta", "rho"}``: what a release at the value promises, for a generator
        with differential privacy (a page states it in words).
    no_map : str
        Why ``simulate --method NAME`` does not draw its map (empty: it does).
    """

    fit: Callable[[pd.DataFrame, Any, np.random.Generator], Any]
    parameter: str
    default: float
    description: str
    integer: bool = False
    grid: tuple[float, float, int] = (0.0, 1.0, 5)
    geometric: bool = False
    label: str = ""
    entry: str = ""
    privacy: Callable[[float], dict] | None = None
    no_map: str = ""

    def __post_init__(self) -> None:
        if not self.entry:
            object.__setattr__(self, "entry", self.parameter)

    def values(self, start: float, stop: float, count: int) -> list:
        """The grid from ``start`` to ``stop`` with ``count`` values (fewer when integers coincide).

        Examples
        --------
        >>> GENERATORS["cart"].values(5, 320, 4), GENERATORS["copula"].values(0, 1, 3)
        ([5, 20, 80, 320], [0.0, 0.5, 1.0])
        """
        count = max(int(count), 1)
        if self.geometric and start > 0:
            points = np.geomspace(float(start), float(stop), count)
        else:
            points = np.linspace(float(start), float(stop), count)
        if self.integer:
            return [int(v) for v in dict.fromkeys(np.round(points).astype(int).tolist())]
        return [float(v) for v in np.round(points, 12)]

    def check(self, value: Any) -> float | int:
        """The parameter's value checked against its entry (the default for ``None``)."""
        return check_scalar(self.parameter, self.default if value is None else value, PARAMETERS[self.entry])


#: The generators by name.
GENERATORS: dict[str, Generator] = {
    "cart": Generator(_fit_cart, parameter="minbucket", default=5,
                      description="sequential CART (synthpop): each column drawn from the original values of a tree's leaf",
                      integer=True, grid=(5, 320, 4), geometric=True,
                      label="minbucket (fewest records in a leaf)"),
    "copula": Generator(_fit_copula, parameter="shrinkage", default=0.0,
                        description="Gaussian copula of the columns' ranks, its correlation shrunk towards the identity",
                        grid=(0.0, 1.0, 5), label="shrinkage of the correlation"),
    "mst": Generator(_fit_mst, parameter="epsilon", default=1.0,
                     description="MST with differential privacy: noisy counts of each column and of a tree of column pairs, "
                     "each distinct value (a band of a numeric column of many) a category", grid=(0.1, 10.0, 5),
                     geometric=True, label="privacy loss epsilon", entry="privacy_loss", privacy=_mst_privacy,
                     no_map="simulate --method mst draws MST's own map of --dims (the original's unique "
                            "combinations reproduced against the 2-way tables' distance), not this one"),
}
