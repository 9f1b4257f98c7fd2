"""Synthetic data: generators fitted on an original file that draw new records, each one record in :data:`GENERATORS`.

A generator's record holds its fit (``fit(frame, value, rng) -> model`` with
``model.draw(rows, rng) -> DataFrame``), its one parameter (a
:data:`rumap._validation.PARAMETERS` entry, the axis of its R-U map) and its
default. :func:`synthesize` fits a generator once and draws ``copies``
synthetic files (synthpop's ``m``). Numeric and categorical columns mix; a
missing value is synthesised as a category of its own. Adding a generator is a
module here and one entry in :data:`GENERATORS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, ListOf, StrOptions, check_scalar, validate_params
from rumap.errors import InputError
from rumap.privacy.mst import mst_privacy
from rumap.synthesis.cart import fit_cart
from rumap.synthesis.columns import chosen_columns
from rumap.synthesis.copula import fit_copula
from rumap.synthesis.mst import fit_mst

__all__ = ["Generator", "GENERATORS", "Synthesis", "synthesize"]


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
    "cart": Generator(fit_cart, "minbucket", 5,
                      "sequential CART (synthpop): each column drawn from the original values of a tree's leaf",
                      integer=True, grid=(5, 320, 4), geometric=True,
                      label="minbucket (fewest records in a leaf)"),
    "copula": Generator(fit_copula, "shrinkage", 0.0,
                        "Gaussian copula of the columns' ranks, its correlation shrunk towards the identity",
                        grid=(0.0, 1.0, 5), label="shrinkage of the correlation"),
    "mst": Generator(fit_mst, "epsilon", 1.0,
                     "MST with differential privacy: noisy counts of each column and of a tree of column pairs, "
                     "each distinct value (a band of a numeric column of many) a category", grid=(0.1, 10.0, 5),
                     geometric=True, label="privacy loss epsilon", entry="privacy_loss", privacy=mst_privacy,
                     no_map="simulate --method mst draws MST's own map of --dims (the original's unique "
                            "combinations reproduced against the 2-way tables' distance), not this one"),
}


@dataclass(frozen=True)
class Synthesis:
    """Synthetic copies of an original file.

    Parameters
    ----------
    copies : tuple of DataFrame
        The ``m`` synthetic files, each with the chosen columns.
    method : str
    parameters : dict
        The generator's parameter by name.
    seed : int or None
    """

    copies: tuple[pd.DataFrame, ...] = field(repr=False)
    method: str
    parameters: dict
    seed: int | None

    def to_dict(self) -> dict[str, Any]:
        """Method, parameters, seed, copies and rows of each (no data values)."""
        return {"method": self.method, "parameters": dict(self.parameters), "seed": self.seed,
                "copies": len(self.copies), "rows": int(self.copies[0].shape[0]),
                "columns": [str(c) for c in self.copies[0].columns]}

    def to_frame(self) -> pd.DataFrame:
        """The synthetic data: the one copy, or every copy stacked after a first column ``copy`` (1 to m)."""
        if len(self.copies) == 1:
            return self.copies[0]
        return pd.concat([c.assign(copy=i + 1)[["copy", *c.columns]] for i, c in enumerate(self.copies)],
                         ignore_index=True)


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": ["x", "y", "x", "y"]}), "method": "copula",
            "seed": 1}


@validate_params({"data": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "method": StrOptions(GENERATORS),
                  "columns": [None, ListOf(str, "a list of column names")], "copies": "copies", "rows": [None, "records"],
                  "seed": [None, "seed"], "source": InstanceOf(str, "a name for messages")},
                 example=_example)
def synthesize(data: pd.DataFrame, method: str, columns: Sequence[str] | None = None, parameter: Any = None,
               copies: int = 1, rows: int | None = None, seed: int | None = None,
               source: str = "the data") -> Synthesis:
    """Fit a generator of :data:`GENERATORS` on ``data`` and draw ``copies`` synthetic files.

    Parameters
    ----------
    data : DataFrame
        The original file; numeric and categorical columns, missing values allowed.
    method : str
        A key of :data:`GENERATORS` (``"cart"``, ``"copula"``, ``"mst"``).
    columns : sequence of str, optional
        The columns to synthesise, in the order of synthesis (default: every column).
    parameter : number, optional
        The generator's parameter (``minbucket`` of cart, ``shrinkage`` of copula, ``epsilon`` of mst; default its
        record's).
    copies : int
        The number ``m`` of synthetic files.
    rows : int, optional
        Records of each (default: those of ``data``).
    seed : int, optional
        The same seed gives the same files.
    source : str
        The data's name, for messages.

    Returns
    -------
    Synthesis

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": ["x", "y", "x", "y", None]})
    >>> result = synthesize(data, "cart", parameter=2, copies=2, seed=1)
    >>> result.to_dict()["copies"], result.to_frame().shape
    (2, (10, 3))
    """
    record = GENERATORS[method]
    value = record.check(parameter)
    names = chosen_columns(data, columns, source)
    if data.shape[0] < 1:
        raise InputError(f"{source} has no records to synthesise")
    frame = data[names].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    model = record.fit(frame, value, rng)
    count = frame.shape[0] if rows is None else int(rows)
    drawn = tuple(model.draw(count, rng) for _ in range(int(copies)))
    return Synthesis(drawn, method, {record.parameter: value}, seed)
