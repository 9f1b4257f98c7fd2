"""Synthesis: a generator of :data:`rumap.synthesis.generators.GENERATORS` fitted once, ``copies`` files drawn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, ListOf, StrOptions, validate_params
from rumap.errors import InputError
from rumap.synthesis.columns import chosen_columns
from rumap.synthesis.generators import GENERATORS

__all__ = ["Synthesis", "synthesize"]


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
