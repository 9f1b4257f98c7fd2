"""Linked tables: a 3-D table released as 2-D projections (rumap/tables/linked.py), Section 4.4, Eq 5-7."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.tables.linked import linked_bounds


def _cube_brute_force(z: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    limit = int(z.sum())
    grids = np.array(list(itertools.product(range(limit + 1), repeat=z.size)), dtype=float)
    cubes = grids.reshape(-1, *z.shape)
    ok = np.ones(len(grids), dtype=bool)
    for pair in pairs:
        summed = ({0, 1, 2} - set(pair)).pop()
        ok &= np.all((cubes.sum(axis=summed + 1) == z.sum(axis=summed)).reshape(len(grids), -1), axis=1)
    feasible = grids[ok]
    return feasible.min(axis=0), feasible.max(axis=0)


def test_linked_one_projection_bounds_by_its_cell():
    z = np.arange(12, dtype=float).reshape(2, 3, 2)
    bounds = linked_bounds(z, ["AS"])
    assert bounds.axes == ("A", "S", "R")
    np.testing.assert_array_equal(bounds.min, 0)
    np.testing.assert_array_equal(bounds.max, np.repeat(z.sum(axis=2).reshape(-1), 2))


@pytest.mark.parametrize("released", [["AS"], ["AS", "AR"], [(0, 1), (1, 2)]])
def test_linked_bounds_equal_brute_force(released):
    z = np.array([[[1, 0], [1, 1]], [[0, 1], [0, 0]]], dtype=float)  # total 4: 5^8 candidate cubes
    bounds = linked_bounds(z, released)
    pairs = [tuple(sorted("ASR".index(ch) for ch in p)) if isinstance(p, str) else tuple(sorted(p))
             for p in released]
    low, high = _cube_brute_force(z, pairs)
    np.testing.assert_array_equal(bounds.min, low)
    np.testing.assert_array_equal(bounds.max, high)


def test_linked_three_projections_contain_every_integer_table():
    z = np.array([[[1, 0], [1, 1]], [[0, 1], [0, 0]]], dtype=float)
    bounds = linked_bounds(z, ["AS", "AR", "SR"])
    low, high = _cube_brute_force(z, [(0, 1), (0, 2), (1, 2)])
    assert np.all(bounds.min <= low) and np.all(bounds.max >= high)
    assert np.all(bounds.min <= z.reshape(-1)) and np.all(z.reshape(-1) <= bounds.max)
    # releasing more never lowers risk
    fewer = linked_bounds(z, ["AS", "AR"])
    assert np.all(bounds.risk >= fewer.risk)


def test_linked_bad_inputs():
    with pytest.raises(InputError, match="3-D"):
        linked_bounds(np.ones((2, 2)), ["AS"])
    with pytest.raises(InputError, match="projection 'AX'"):
        linked_bounds(np.ones((2, 2, 2)), ["AX"])
    with pytest.raises(InputError, match="labels"):
        linked_bounds(np.ones((2, 2, 2)), ["AS"], labels=[["a"], ["b"], ["c"]])


# --- insiders -----------------------------------------------------------------------------------------------------
