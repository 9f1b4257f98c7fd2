"""The declarative parameter table, the constraints, the decorator and grid parsing."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pytest

from rumap._validation import (
    ASSUMES_VALID,
    PARAMETERS,
    REGISTRY,
    SEED,
    Arguments,
    Boolean,
    ColumnIndex,
    Columns,
    DataMatrix,
    InstanceOf,
    Interval,
    StrOptions,
    Table,
    assumes_valid,
    check_array,
    check_scalar,
    make_constraint,
    validate_params,
)
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


@pytest.mark.parametrize(("name", "value", "message"), [
    ("k", 10**30, "k must be an integer >= 1 and at most 1e+12, got 1000000000000000000000000000000"),
    ("record_chunk", 1e30, "record_chunk must be an integer >= 1 and at most 1e+12, got 1000000000000000019884624838656"),
    ("seed", 2**64, "seed must be an integer >= 0 and at most 1.84467e+19, got 18446744073709551616"),
    ("k", 0, "k must be an integer >= 1, got 0"),  # below: the ceiling is not mentioned
])
def test_an_integer_entry_without_an_upper_bound_has_a_ceiling(name, value, message):
    assert check_scalar(name, 10**12 if name != "seed" else 2**64 - 1) in (10**12, 2**64 - 1)
    with pytest.raises(InputError, match=rf"^{re.escape(message)}$"):
        check_scalar(name, value)
    assert PARAMETERS[name].describe() in message  # the ceiling is no part of the description


def test_every_integer_entry_is_bounded():
    unbounded = [name for name, entry in PARAMETERS.items()
                 if entry.kind == "int" and entry.high is None and entry.most is None]
    assert unbounded == []


def test_check_array():
    np.testing.assert_array_equal(check_array("lambda2", 0.5), [0.5])
    with pytest.raises(InputError, match="every lambda2"):
        check_array("lambda2", [0.1, -1.0])
    with pytest.raises(InputError, match="empty"):
        check_array("lambda2", [])


# --- declarative constraints and the decorator ----------------------------------------------------------------


@pytest.fixture
def registry():
    """The registries as they are, restored after the test."""
    saved, trusted = dict(REGISTRY), set(ASSUMES_VALID)
    yield REGISTRY
    REGISTRY.clear()
    REGISTRY.update(saved)
    ASSUMES_VALID.clear()
    ASSUMES_VALID.update(trusted)


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_every_parameter_refuses_the_invalid_values_it_makes(name):
    constraint = PARAMETERS[name]
    for value in constraint.invalid_values(name, {}):
        with pytest.raises(InputError, match=f"^{name} must be"):
            constraint.check(name, value)


def test_str_options_boolean_instance_of():
    method = StrOptions({"rank": 1, "sd": 2})
    assert method.check("method", "sd") == "sd"
    with pytest.raises(InputError, match="^method must be one of rank, sd, got 'quantile'$"):
        method.check("method", "quantile")
    with pytest.raises(InputError, match="^method must be one of rank, sd, got 1$"):
        method.check("method", 1)
    assert Boolean().check("relative", np.bool_(True)) is True
    with pytest.raises(InputError, match="^relative must be True or False, got 1$"):
        Boolean().check("relative", 1)
    with pytest.raises(InputError, match="^spec must be an Interval, got 'x'$"):
        InstanceOf(Interval).check("spec", "x")


def test_alternatives():
    optional = make_constraint([None, "interval_percent"])
    assert optional.check("p", None) is None and optional.check("p", 5) == 5.0
    for constraint in (optional, make_constraint(["interval_percent", None])):
        with pytest.raises(InputError, match=r"^p must be a number in \(0, 100\], got 0.0$"):
            constraint.check("p", 0)  # the one real alternative says what is wrong
    generator = np.random.default_rng(1)
    assert SEED.check("seed", generator) is generator and SEED.check("seed", np.uint32(7)) == 7
    with pytest.raises(InputError, match="^seed must be None, an integer >= 0 or a numpy.random.Generator, got -1$"):
        SEED.check("seed", -1)
    with pytest.raises(TypeError, match="no parameter 'nope'"):
        make_constraint("nope")


def _args(**raw):
    return Arguments(raw, dict(raw))


def test_columns_by_name_and_position():
    frame = pd.DataFrame({"a": [1.0, 2.0], 3: ["x", "y"], "c": [0.0, 1.0]})
    columns = Columns(of="data")
    assert columns.check("columns", None, _args(data=frame)) == ["a", "3", "c"]
    assert columns.check("columns", ["c", 0, "3"], _args(data=frame)) == ["c", "a", "3"]
    assert columns.check("columns", [1], _args(data=np.zeros((4, 2)))) == ["x2"]
    for bad, message in [(["z"], "columns of data: no column 'z'; columns are a, 3, c"),
                         ([3], r"columns of data: column position 3 is out of range \(0..2\)"),
                         (["a", 0], "columns of data: column 'a' is given twice"),
                         ([], "columns of data: no column chosen"),
                         ("a", "columns must be a list of column names or positions of data, got 'a'")]:
        with pytest.raises(InputError, match=f"^{message}$"):
            columns.check("columns", bad, _args(data=frame))


def test_column_index():
    index = ColumnIndex(of="data")
    assert index.check("response", np.int64(1), _args(data=np.zeros((3, 2)))) == 1
    with pytest.raises(InputError, match=r"^response 2 is out of range for 2 column\(s\)$"):
        index.check("response", 2, _args(data=np.zeros((3, 2))))
    with pytest.raises(InputError, match="^response must be a column index >= 0, got True$"):
        ColumnIndex().check("response", True)


def test_data_matrix_keeps_the_shape_and_names_the_first_bad_value():
    data = DataMatrix(min_rows=2)
    assert data.check("data", [1, 2, 3]).shape == (3,)
    assert data.check("data", [[1, 2], [3, 4]]).dtype == float
    with pytest.raises(InputError, match=r"^data has 2 missing or infinite value\(s\), first in row 2, column 2$"):
        data.check("data", [[1.0, 2.0], [3.0, np.nan], [np.inf, 0.0]])
    with pytest.raises(InputError, match=r"^data needs at least 2 records and 1 column, got shape \(1,\)$"):
        data.check("data", [1.0])
    with pytest.raises(InputError, match=r"^data must be a 2-D array of numbers, got shape \(3,\)$"):
        DataMatrix(ndim=(2,)).check("data", [1.0, 2.0, 3.0])
    frame = pd.DataFrame({"a": [1.0, 2.0, np.nan], "b": ["x", "y", "z"]})
    with pytest.raises(InputError, match=r"^data: column 'a' has 1 missing or infinite value\(s\), first in row 3$"):
        data.check("data", frame)
    with pytest.raises(InputError, match=r"^data: column 'b' is not numeric \(e.g. 'x' in row 1\)$"):
        data.check("data", frame.fillna(0.0))


def test_data_matrix_columns_and_masked_pairs():
    original = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"], "b": [4.0, 5.0, 6.0]})
    masked = pd.DataFrame({"b": [4.5, 5.5, 6.5], "a": [1.5, 2.5, 3.5]})
    chosen = Arguments({"original": original, "masked": masked}, {"columns": ["b", "a"]})
    x = DataMatrix(columns="columns").check("original", original, chosen)
    np.testing.assert_array_equal(x, [[4.0, 1.0], [5.0, 2.0], [6.0, 3.0]])  # the non-numeric column is not chosen
    checked = Arguments({"original": original}, {"columns": ["b", "a"], "original": x})
    y = DataMatrix(columns="columns", masked_of="original").check("masked", masked, checked)
    np.testing.assert_array_equal(y, [[4.5, 1.5], [5.5, 2.5], [6.5, 3.5]])
    pair = DataMatrix(masked_of="original")
    arrays = Arguments({"original": np.zeros((3, 2))}, {"original": np.zeros((3, 2))})
    assert pair.check("masked", np.ones((3, 3)), arrays).shape == (3, 2)
    with pytest.raises(InputError, match="^original has 3 rows but masked has 2: row i of masked must be"):
        pair.check("masked", np.ones((2, 2)), arrays)
    with pytest.raises(InputError, match=r"^masked: no column 'x2' \(the original has it\)$"):
        pair.check("masked", np.ones(3), arrays)


def test_table():
    frame = Table(min_rows=2).check("data", [[1, "a"], [2, "b"]])
    assert list(frame.columns) == ["x1", "x2"]
    with pytest.raises(InputError, match=r"^data: must be a table of shape \(n, p\), got shape \(2, 2, 2\)$"):
        Table().check("data", np.zeros((2, 2, 2)))
    with pytest.raises(InputError, match="^data: needs at least 2 rows, got 1$"):
        Table(min_rows=2).check("data", [[1.0]])


def test_validate_params_converts_checks_in_order_and_registers(registry):
    @validate_params({"k": "k", "data": DataMatrix(), "method": StrOptions(("a", "b"))},
                     example=lambda: {"k": 2, "data": [1.0, 2.0]})
    def combine(data, k, method="a"):
        """Example."""
        return data, k, method

    data, k, method = combine([1, 2], 3.0)
    assert isinstance(k, int) and data.dtype == float and method == "a"
    entry = registry[f"{__name__}.test_validate_params_converts_checks_in_order_and_registers.<locals>.combine"]
    assert entry.target is combine and list(entry.constraints) == ["k", "data", "method"]
    assert combine.__doc__ == "Example."
    with pytest.raises(InputError, match="^k must be an integer >= 1, got 0$"):
        combine([1.0], 0)
    with pytest.raises(TypeError, match="no parameter 'other'"):
        validate_params({"other": "k"})(lambda k: k)
    with pytest.raises(TypeError, match="'masked' uses 'original', which must be declared before it"):
        validate_params({"masked": DataMatrix(masked_of="original"), "original": DataMatrix()})(
            lambda original, masked: None)


def test_validate_params_on_a_frozen_dataclass(registry):
    @validate_params({"size": "k", "label": StrOptions(("x", "y"))}, example=dict)
    @dataclass(frozen=True)
    class Spec:
        size: int = 1
        label: str = "x"

        def __post_init__(self) -> None:
            if self.label == "y" and self.size > 5:
                raise InputError("label 'y' needs size <= 5")

    assert Spec(size=4.0).size == 4 and isinstance(Spec(size=4.0).size, int)
    with pytest.raises(InputError, match="^size must be an integer >= 1, got 0$"):
        Spec(size=0)
    with pytest.raises(InputError, match="^label must be one of x, y"):
        replace(Spec(), label="z")
    with pytest.raises(InputError, match="needs size <= 5"):
        Spec(size=6, label="y")
    assert any(entry.target is Spec for entry in registry.values())


def test_assumes_valid_records_the_function(registry):
    def kernel(x):
        return x

    assert assumes_valid(kernel) is kernel
    assert f"{__name__}.test_assumes_valid_records_the_function.<locals>.kernel" in ASSUMES_VALID


def test_the_protection_level_is_one_entry_that_every_table_function_reads():
    import rumap.maps.tables
    import rumap.release.from_map
    import rumap.tables.linked_suppression
    import rumap.tables.secondary  # noqa: F401
    from rumap._validation import REGISTRY, AnyOf, NumberArray

    entry = PARAMETERS["protection"]
    assert (entry.low, entry.high, entry.closed) == (0.0, 100.0, "right")  # P = 0 protects nothing
    readers = set()
    for name, validated in REGISTRY.items():
        if name.startswith(("rumap.databases.", "rumap.maps.databases.")):
            continue  # query auditing's protection interval is another parameter, in [0, 100]
        for parameter in ("protection", "protections", "required"):
            constraint = validated.constraints.get(parameter)
            if constraint is None:
                continue
            members = constraint.members if isinstance(constraint, AnyOf) else (constraint,)
            intervals = [m.interval if isinstance(m, NumberArray) else m for m in members if m.describe() != "None"]
            assert intervals == [entry], (name, parameter)
            readers.add(name.rsplit(".", 1)[1])
    assert readers >= {"suppress_secondary", "suppress_secondary_linked", "table_outcome", "rule_map",
                       "protection_map", "rounding_base_map", "table_steps"}
    assert readers <= {"suppress_secondary", "suppress_secondary_linked", "table_outcome", "rule_map",
                       "protection_map", "rounding_base_map", "table_steps", "suppress_table",
                       "suppress_linked_tables", "instance_from_table", "suppression_threshold_map"}


@pytest.mark.parametrize("parameter", ["time_limit", "theta"])
def test_a_parameter_declared_in_several_functions_is_one_entry(parameter):
    import rumap.maps.tables
    import rumap.masking.optimal_suppression
    import rumap.masking.pram
    import rumap.tables.controlled_rounding
    import rumap.tables.linked_suppression
    import rumap.tables.secondary  # noqa: F401
    from rumap._validation import REGISTRY

    readers = [name for name, v in REGISTRY.items() if v.constraints.get(parameter) is not None]
    assert len(readers) >= 2
    assert all(REGISTRY[name].constraints[parameter] is PARAMETERS[parameter] for name in readers), readers
