"""Linked tables: a 3-D table released as some of its 2-D projections (Section 4.4, Eq 5-7)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rumap._validation import PARAMETERS, NumberArray, validate_params
from rumap.errors import InputError
from rumap.tables.bounds import TableBounds, lp_bounds
from rumap.tables.entropy import cell_risks, check_distribution

__all__ = ["linked_bounds"]


def _parse_projection(spec: Any, axis_names: tuple[str, ...]) -> tuple[int, int]:
    if isinstance(spec, str):
        if len(spec) != 2 or spec[0] == spec[1] or any(ch not in axis_names for ch in spec):
            raise InputError(f"projection {spec!r} must name two different axes of {''.join(axis_names)}, "
                             "e.g. 'AS'")
        pair = (axis_names.index(spec[0]), axis_names.index(spec[1]))
    else:
        try:
            pair = tuple(int(a) for a in spec)
        except (TypeError, ValueError):
            raise InputError(f"projection {spec!r} must be two axis names or indices") from None
        if len(pair) != 2 or pair[0] == pair[1] or not all(0 <= a < 3 for a in pair):
            raise InputError(f"projection {spec!r} must be two different axes among 0, 1, 2")
    return tuple(sorted(pair))  # type: ignore[return-value]


@validate_params({"cube": NumberArray(PARAMETERS["cell_value"], ndim=(3,)),
                  "resolution": "resolution"},
                 example=lambda: {"cube": np.arange(8.0).reshape(2, 2, 2), "released": ["AS", "AR"]})
def linked_bounds(cube: np.ndarray, released: Sequence[Any], *, axis_names: Sequence[str] = ("A", "S", "R"),
                  labels: Sequence[Sequence[str]] | None = None, resolution: float = 1.0,
                  distribution: Callable[[np.ndarray], Any] | None = None) -> TableBounds:
    """Risk of every cell of a 3-D table released only as some of its 2-D projections.

    Parameters
    ----------
    cube : array_like, shape (I, J, K)
        The unreleased table z[a, s, r] (non-negative).
    released : sequence
        The released projections, each two axis names (``"AS"``) or indices
        (``(0, 1)``): AS sums over R, AR over S, SR over A.
    axis_names : sequence of 3 str, default ("A", "S", "R")
        One-letter names of the axes (activity, size, region in the paper).
    labels : sequence of 3 sequences of str, optional
        Category labels per axis (default ``"1"``, ``"2"``, ...).
    resolution : float, default 1
    distribution : callable, optional
        As in :func:`suppression_bounds`.

    Returns
    -------
    TableBounds
        One entry per cell of the cube, axes named by ``axis_names``.

    Notes
    -----
    The released projections are linear equations on the cube's cells:
    z[a, s] = sum_r z[a, s, r] (Eq 5), adding z[a, r] = sum_s z[a, s, r] (Eq 6)
    and z[s, r] = sum_a z[a, s, r] (Eq 7). Two LPs per cell give its range.
    With all three projections the LP range may contain values no integer
    table attains, so m is an upper bound on the count of possible values
    (and DR a lower bound).

    References
    ----------
    Domingo-Ferrer, Oganian & Torra, Section 4.4, Eq (5)-(7).
    """
    check_distribution(distribution)
    names = tuple(str(a) for a in axis_names)
    if len(names) != 3 or len(set(names)) != 3:
        raise InputError(f"axis_names must be three different names, got {list(names)}")
    z = cube
    if isinstance(released, str):
        released = [released]
    pairs = sorted({_parse_projection(p, names) for p in released})
    if labels is None:
        labels = [[str(i + 1) for i in range(n)] for n in z.shape]
    labels = [[str(v) for v in axis] for axis in labels]
    if len(labels) != 3 or [len(a) for a in labels] != list(z.shape):
        raise InputError(f"labels must give {z.shape[0]}, {z.shape[1]} and {z.shape[2]} category names")
    flat = np.arange(z.size).reshape(z.shape)
    blocks, rhs = [], []
    for pair in pairs:
        summed = ({0, 1, 2} - set(pair)).pop()
        proj_index = np.moveaxis(flat, summed, -1).reshape(-1, z.shape[summed])
        block = np.zeros((proj_index.shape[0], z.size))
        np.put_along_axis(block, proj_index, 1.0, axis=1)
        blocks.append(block)
        rhs.append(z.sum(axis=summed).reshape(-1))
    equations = np.vstack(blocks) if blocks else np.zeros((0, z.size))
    values = np.concatenate(rhs) if rhs else np.zeros(0)
    if equations.shape[0] == 0:
        low, high = np.zeros(z.size), np.full(z.size, np.inf)
    else:
        low, high = lp_bounds(equations, values, np.zeros(z.size))
    low, high, m, risk = cell_risks(low, high, resolution, distribution)
    cell_labels = tuple((labels[0][a], labels[1][s], labels[2][r]) for a, s, r in np.ndindex(z.shape))
    return TableBounds(names, cell_labels, low, high, m, risk, "linked",
                       {"released": ["".join(names[i] for i in p) for p in pairs], "resolution": resolution})
