"""MST as a synthetic-data generator: :func:`rumap.privacy.mst.mst_fit` on every column, at the privacy loss epsilon.

Each column's distinct values are its categories (a missing value one of them),
taken as public as MST takes them (:mod:`rumap.privacy.mst`). A numeric column
of more than :data:`BANDS` distinct values is cut into :data:`BANDS` bands of
equal width over its range (the range taken as public too); MST measures the
bands, and a drawn band becomes a value drawn uniformly within it (rounded
when every original value is a whole number), so that no original value is
copied for being a category. The records drawn hold the original file's
types. delta is :data:`rumap.privacy.accounting.DEFAULT_DELTA`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.privacy.accounting import DEFAULT_DELTA
from rumap.privacy.mst import MSTModel, mst_fit
from rumap.synthesis.columns import is_categorical

__all__ = ["BANDS", "MAX_CELLS", "MSTGenerator", "fit_mst"]

#: The most cells of one pair of columns' table that MST measures (each pair's table is held in memory).
MAX_CELLS = 10_000_000

#: The bands of a numeric column with more distinct values than this.
BANDS = 20


@dataclass(frozen=True)
class MSTGenerator:
    """MST's model of the columns, some numeric ones as bands; :meth:`draw` makes synthetic copies.

    Parameters
    ----------
    model : MSTModel
        MST's measurements of the columns, banded ones as band numbers.
    edges : dict
        A banded column's band edges, by name.
    frame : DataFrame
        The original columns (their types).
    """

    model: MSTModel
    edges: dict = field(repr=False)
    frame: pd.DataFrame = field(repr=False)

    def draw(self, rows: int, rng: np.random.Generator) -> pd.DataFrame:
        """One synthetic copy of ``rows`` records.

        Parameters
        ----------
        rows : int
        rng : numpy.random.Generator

        Returns
        -------
        DataFrame
        """
        out = self.model.draw(rows, rng)
        for name, edges in self.edges.items():
            band = out[name].to_numpy(float)
            drawn = np.isfinite(band)
            values = np.full(rows, np.nan)
            low = edges[band[drawn].astype(int)]
            values[drawn] = low + rng.random(int(drawn.sum())) * (edges[1] - edges[0])
            original = self.frame[name]
            present = original.dropna().to_numpy(float)
            if np.all(present == np.round(present)):
                values = np.round(values)
            out[name] = (values.astype(original.dtype) if pd.api.types.is_integer_dtype(original.dtype)
                         and drawn.all() else values)
        return out


@assumes_valid
def fit_mst(frame: pd.DataFrame, epsilon: float, rng: np.random.Generator) -> MSTGenerator:
    """MST's measurements of ``frame``'s columns at ``epsilon`` (checked data: the caller validates).

    Parameters
    ----------
    frame : DataFrame
        The original columns, at least one record.
    epsilon : float
        The privacy loss, with delta :data:`rumap.privacy.accounting.DEFAULT_DELTA`.
    rng : numpy.random.Generator
        Draws the noise and the tree's selection.

    Returns
    -------
    MSTGenerator

    Examples
    --------
    >>> frame = pd.DataFrame({"a": list("xxyy") * 25, "b": [1, 1, 2, 2] * 25})
    >>> copy = fit_mst(frame, 20.0, np.random.default_rng(0)).draw(100, np.random.default_rng(1))
    >>> bool((copy["b"] == copy["a"].map({"x": 1, "y": 2})).mean() > 0.9), str(copy["b"].dtype)
    (True, 'int64')
    """
    measured = frame.copy()
    edges = {}
    for name in frame.columns:
        column = frame[name]
        if is_categorical(column) or column.nunique() <= BANDS:
            continue
        values = column.to_numpy(float)
        cuts = np.linspace(np.nanmin(values), np.nanmax(values), BANDS + 1)
        band = np.clip(np.searchsorted(cuts, values, side="right") - 1, 0, BANDS - 1).astype(float)
        measured[name] = np.where(np.isnan(values), np.nan, band)
        edges[name] = cuts
    sizes = {name: int(measured[name].nunique(dropna=False)) for name in measured.columns}
    for a, b in combinations(measured.columns, 2):
        if sizes[a] * sizes[b] > MAX_CELLS:
            raise InputError(f"MST measures categories: columns {a!r} and {b!r} have {sizes[a]} and {sizes[b]} distinct "
                             f"values, a table of more than {MAX_CELLS} cells; recode them first or choose fewer "
                             "columns")
    model = mst_fit(measured, list(measured.columns), float(epsilon), DEFAULT_DELTA, rng)
    return MSTGenerator(model, edges, frame)
