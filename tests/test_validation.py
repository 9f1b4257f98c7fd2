"""The declarative parameter table and grid parsing."""

from __future__ import annotations

import numpy as np
import pytest

from rumap._validation import PARAMETERS, Interval, check_array, check_scalar, parse_grid
from rumap.errors import InputError


def test_interval_descriptions():
    assert PARAMETERS["n"].describe() == "an integer >= 2"
    assert PARAMETERS["p"].describe() == "a number in (0, 1)"
    assert PARAMETERS["sigma2"].describe() == "a number > 0"
    assert Interval("float", None, None, "neither").describe() == "a finite number"


def test_check_scalar_types_and_ranges():
    assert check_scalar("n", 5.0) == 5 and isinstance(check_scalar("n", 5.0), int)
    for bad in (1, 2.5, True, "3", float("nan")):
        with pytest.raises(InputError, match="^n must be"):
            check_scalar("n", bad)
    with pytest.raises(InputError, match="finite"):
        check_scalar("mu", float("inf"))


def test_check_array():
    np.testing.assert_array_equal(check_array("lambda2", 0.5), [0.5])
    with pytest.raises(InputError, match="every lambda2"):
        check_array("lambda2", [0.1, -1.0])
    with pytest.raises(InputError, match="empty"):
        check_array("lambda2", [])


def test_parse_grid():
    np.testing.assert_allclose(parse_grid("0:1:5"), [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_array_equal(parse_grid("2:5", "k", integer=True), [2, 3, 4, 5])
    np.testing.assert_array_equal(parse_grid("2:10:4", "k", integer=True), [2, 6, 10])
    for bad in ("1:0:3", "a:b:c", "0:1", "0:1:0"):
        with pytest.raises(InputError):
            parse_grid(bad)
