"""Sequential CART synthesis, as synthpop's default method (Nowok, Raab & Dibben 2016).

The first column is drawn from its marginal (the original values, with
replacement); each later column from a tree fitted on the original columns
before it (a regression tree for a numeric column, a classification tree for a
categorical one, scikit-learn's ``DecisionTreeRegressor`` and
``DecisionTreeClassifier``) with leaves of at least ``minbucket`` records: a
synthetic record falls into a leaf by its synthetic values so far, and its
value is one of the original values of that leaf, drawn at random. A
categorical predictor enters the tree as the codes of its levels sorted as
text; a missing value is a level of its own; a numeric column with missing
values is fitted on its value (missing ones at the column's median) and its
missingness together (a two-output tree), and the value drawn from the leaf
may be missing. With ``minbucket`` at least the number of records every tree is
one leaf and each column is drawn from its marginal.

References
----------
Nowok, Raab & Dibben (2016), "synthpop: Bespoke creation of synthetic data in R",
Journal of Statistical Software 74(11), Section 3 (method ``cart``, ``minbucket = 5``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rumap._validation import assumes_valid
from rumap.errors import optional_module
from rumap.synthesis.columns import column_kinds, level_codes

__all__ = ["CartModel", "fit_cart"]


@dataclass(frozen=True)
class _Leaves:
    """A fitted tree and, for each of its nodes, where its original values lie in ``order``."""

    tree: object
    order: np.ndarray
    start: np.ndarray
    count: np.ndarray


@dataclass(frozen=True)
class CartModel:
    """Sequential trees fitted on an original file; :meth:`draw` makes synthetic copies.

    Parameters
    ----------
    frame : DataFrame
        The original columns, in the order of synthesis.
    predictors : ndarray, shape (n, p)
        The columns as the trees read them (codes of categorical ones, NaN for a missing number).
    leaves : tuple of _Leaves
        The tree of each column after the first.
    """

    frame: pd.DataFrame = field(repr=False)
    predictors: np.ndarray = field(repr=False)
    leaves: tuple = field(repr=False)

    def draw(self, rows: int, rng: np.random.Generator) -> pd.DataFrame:
        """A synthetic copy: ``rows`` records, each column's value that of an original record of its leaf."""
        n, p = self.predictors.shape
        picked = np.empty((rows, p), dtype=np.int64)  # the original record whose value each synthetic one takes
        picked[:, 0] = rng.integers(0, n, size=rows)
        synthetic = np.empty((rows, p))
        synthetic[:, 0] = self.predictors[picked[:, 0], 0]
        for j, leaves in enumerate(self.leaves, start=1):
            node = leaves.tree.apply(synthetic[:, :j])
            offset = np.floor(rng.random(rows) * leaves.count[node]).astype(np.int64)
            picked[:, j] = leaves.order[leaves.start[node] + offset]
            synthetic[:, j] = self.predictors[picked[:, j], j]
        out = {name: self.frame[name].to_numpy()[picked[:, j]] for j, name in enumerate(self.frame.columns)}
        return pd.DataFrame(out).astype(self.frame.dtypes.to_dict())


def _predictors(frame: pd.DataFrame) -> np.ndarray:
    kinds = column_kinds(frame, list(frame.columns))
    return np.column_stack([level_codes(frame[c])[0].astype(float) if cat else frame[c].to_numpy(dtype=float)
                            for c, cat in zip(frame.columns, kinds, strict=True)])


def _target(values: np.ndarray, categorical: bool) -> np.ndarray:
    if categorical:
        return values.astype(np.int64)
    missing = np.isnan(values)
    if not missing.any():
        return values
    filled = np.where(missing, np.median(values[~missing]) if (~missing).any() else 0.0, values)
    spread = filled.std() or 1.0
    return np.column_stack([filled / spread, missing / max(missing.std(), 1e-300)])


def _fit_leaves(x: np.ndarray, y: np.ndarray, categorical: bool, minbucket: int, seed: int) -> _Leaves:
    tree_module = optional_module("sklearn.tree", "CART synthesis", "synthesis")
    kind = tree_module.DecisionTreeClassifier if categorical else tree_module.DecisionTreeRegressor
    tree = kind(min_samples_leaf=minbucket, random_state=seed).fit(x, y)
    node = tree.apply(x)
    order = np.argsort(node, kind="stable")
    count = np.bincount(node, minlength=tree.tree_.node_count)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    return _Leaves(tree, order, start, count)


@assumes_valid
def fit_cart(frame: pd.DataFrame, minbucket: int, rng: np.random.Generator) -> CartModel:
    """The sequential trees of ``frame``'s columns, in their order (checked data: the caller validates).

    Parameters
    ----------
    frame : DataFrame
        The original columns to synthesise, at least one record.
    minbucket : int
        The fewest original records in a leaf (synthpop's ``minbucket``).
    rng : numpy.random.Generator
        Seeds the trees' tie-breaking.

    Returns
    -------
    CartModel

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": ["x", "x", "y", "y"]})
    >>> model = fit_cart(frame, 2, np.random.default_rng(0))
    >>> copy = model.draw(4, np.random.default_rng(1))
    >>> set(zip(copy["a"], copy["b"])) <= {(1.0, "x"), (2.0, "x"), (3.0, "y"), (4.0, "y")}
    True
    """
    x = _predictors(frame)
    kinds = column_kinds(frame, list(frame.columns))
    leaves = tuple(_fit_leaves(x[:, :j], _target(x[:, j], kinds[j]), kinds[j], int(minbucket),
                               int(rng.integers(0, 2**31 - 1)))
                   for j in range(1, x.shape[1]))
    return CartModel(frame, x, leaves)
