"""The RUMap result type."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.result import RUMap, json_safe


def make_map(**kw):
    base = dict(parameter="lambda2", values=[0.0, 1.0], risk=[math.inf, 1.0], utility=[10.0, 5.0],
                risk_se=[0.1, 0.2], knowledge="record", config={"seed": 1})
    base.update(kw)
    return RUMap(**base)


def test_arrays_are_frozen_copies():
    values = np.array([0.0, 1.0])
    m = make_map(values=values)
    values[0] = 9
    assert m.values[0] == 0.0
    with pytest.raises(ValueError):
        m.risk[0] = 1.0


def test_length_mismatch_is_rejected():
    with pytest.raises(ValueError, match="risk has 3 entries"):
        make_map(risk=[1.0, 2.0, 3.0])


def test_round_trip_through_json():
    m = make_map(efficiency=[1.0, 0.5])
    text = json.dumps(m.to_dict(), allow_nan=False)
    back = RUMap.from_dict(json.loads(text))
    assert back.risk[0] == math.inf and back.risk[1] == 1.0
    assert back.config == {"seed": 1} and back.knowledge == "record"
    np.testing.assert_array_equal(back.efficiency, [1.0, 0.5])


def test_to_frame_columns():
    frame = make_map().to_frame()
    assert list(frame.columns) == ["method", "knowledge", "target", "lambda2", "risk", "utility", "risk_se"]


def test_json_safe_converts_numpy_and_nonfinite():
    assert json_safe({"a": np.float64(np.nan), "b": np.int64(3), "c": [np.inf, 1.5], "d": np.bool_(True)}) == {
        "a": None, "b": 3, "c": [None, 1.5], "d": True}


@pytest.mark.parametrize("data, fragment", [({}, "needs the field 'parameter'"), ([1], "must be a JSON object"),
                                            ({"parameter": "k", "values": "x", "risk": [1], "utility": [1]},
                                             "invalid field")])
def test_a_bad_map_is_bad_input(data, fragment):
    with pytest.raises(InputError, match=fragment):
        RUMap.from_dict(data)
