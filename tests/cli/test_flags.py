"""The command line's flag table and grid flags (rumap/cli/flags.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.cli.flags import GRID_FLAGS, METHOD_FLAGS, parse_grid
from rumap.errors import InputError
from rumap.maps.methods import METHODS


def test_parse_grid():
    np.testing.assert_allclose(parse_grid("0:1:5"), [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_array_equal(parse_grid("2:5", "k", integer=True), [2, 3, 4, 5])
    np.testing.assert_array_equal(parse_grid("2:10:4", "k", integer=True), [2, 6, 10])
    for bad in ("1:0:3", "a:b:c", "0:1", "0:1:0"):
        with pytest.raises(InputError):
            parse_grid(bad)
    with pytest.raises(InputError, match="--swap-percent must have START <= STOP"):
        parse_grid("5:1:3", "swap_percent")


def test_every_grid_parameter_and_method_option_has_a_flag():
    assert {p for method in METHODS.values() for p in method.parameters} == set(GRID_FLAGS)
    for option, (flag, method) in METHOD_FLAGS.items():
        assert flag == "--" + option.replace("_", "-")
        assert option in METHODS[method].defaults
