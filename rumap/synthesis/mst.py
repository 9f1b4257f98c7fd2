"""MST as a synthetic-data generator: :func:`rumap.privacy.mst.mst_fit` on every column, at the privacy loss epsilon.

Each column's distinct values are its categories (a missing value one of them),
taken as public as MST takes them (:mod:`rumap.privacy.mst`): a numeric column
with many distinct values is best banded first. The records drawn hold the
original file's values and types. delta is
:data:`rumap.privacy.accounting.DEFAULT_DELTA`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.privacy.accounting import DEFAULT_DELTA
from rumap.privacy.mst import MSTModel, mst_fit

__all__ = ["MAX_CELLS", "fit_mst"]

#: The most cells of one pair of columns' table that MST measures (each pair's table is held in memory).
MAX_CELLS = 10_000_000


@assumes_valid
def fit_mst(frame: pd.DataFrame, epsilon: float, rng: np.random.Generator) -> MSTModel:
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
    MSTModel
        Its ``draw(rows, rng)`` gives synthetic records.

    Examples
    --------
    >>> frame = pd.DataFrame({"a": list("xxyy") * 25, "b": [1, 1, 2, 2] * 25})
    >>> copy = fit_mst(frame, 20.0, np.random.default_rng(0)).draw(100, np.random.default_rng(1))
    >>> bool((copy["b"] == copy["a"].map({"x": 1, "y": 2})).mean() > 0.9), str(copy["b"].dtype)
    (True, 'int64')
    """
    sizes = {name: int(frame[name].nunique(dropna=False)) for name in frame.columns}
    for a, b in combinations(frame.columns, 2):
        if sizes[a] * sizes[b] > MAX_CELLS:
            raise InputError(f"MST measures categories: columns {a!r} and {b!r} have {sizes[a]} and {sizes[b]} distinct "
                             f"values, a table of more than {MAX_CELLS} cells; band them first or choose fewer columns")
    return mst_fit(frame, list(frame.columns), float(epsilon), DEFAULT_DELTA, rng)
