"""Numbers written as text (``rumap._validation.numbers``): ASCII digits only."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rumap._validation import parse_integer, parse_number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_round_trips_through_its_repr(value):
    assert parse_number(repr(value)) == value


@given(st.integers())
def test_every_integer_round_trips(value):
    assert parse_integer(str(value)) == value


@pytest.mark.parametrize("text", ["\u0661\u0662", "\uff11\uff12", "1\u00b2", "nan", "inf", "-inf", "1_000", "", " ",
                                  "0x10", "1e", ".", "+", "1.2.3", "\u09e7"])
def test_anything_but_an_ascii_number_is_refused(text):
    with pytest.raises(ValueError, match="ASCII digits"):
        parse_number(text)
    with pytest.raises(ValueError, match="ASCII digits"):
        parse_integer(text)


def test_integers_refuse_decimals():
    with pytest.raises(ValueError):
        parse_integer("1.5")
    assert parse_number(" -1.5e2 ") == -150.0
