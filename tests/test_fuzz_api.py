"""Fuzzing the Python API: edge calls raise one ``rumap.InputError`` naming the argument, nothing else.

Each public entry point starts from a valid call; each argument is then given
values that are wrong for it (wrong types, NaN, infinities, 1e308, empty,
negative, wrong shapes, unknown names). Every call must raise
:class:`rumap.InputError` with a one-line message that names the argument
(or its field), emit no RuntimeWarning and never return a NaN. Hypothesis
then feeds generated files through the readers and the maps.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rumap
from rumap.databases.queries import parse_query
from rumap.errors import InputError
from rumap.io.data import numeric_columns, read_table_bytes, summary_table
from rumap.maps.tables import protection_map, rule_map
from rumap.masking.categorical import band, local_suppression, pram, top_bottom_code
from rumap.result import RUMap
from rumap.risk.individual import individual_risk, key_frequencies_with_missing
from rumap.tables.microdata import table_from_microdata

RNG = np.random.default_rng(4)
X = np.round(RNG.normal(100.0, 15.0, (40, 2)), 3)
MASKED = X + RNG.normal(0, 1, X.shape)
SETTING = rumap.AnalyticSetting(n=200, sigma2=1.0)
TABLE = rumap.PublishedTable(("a", "b"), ("c", "d"), np.array([[10, np.nan, 20], [np.nan, 5, 15], [20, 15, 35]]))
MAP = rumap.analytic_map(["record"], np.linspace(0, 1, 5), SETTING)[0]

NAN, INF = math.nan, math.inf
NUMBER = ["a", None, NAN, INF, -INF, [1.0, 2.0], {"a": 1}]
POSITIVE = [*NUMBER, 0.0, -1.0, -1e308]
FRACTION = [*NUMBER, -0.1, 1.5, 1e308]
SEED = [-1, "a", 1.5, NAN, [1, 2], {"s": 1}]
DATA = ["abc", None, [], [[]], np.full((3, 2), NAN), np.array([[1.0, INF], [2.0, 3.0]]), [["a", "b"]], {"a": 1},
        np.array([[1e308, 1.0], [1.1e308, 2.0], [0.9e308, 3.0]])]
NAMES = [123, None, [1, 2], {"x": 1}, "nosuchname", ""]
MICRODATA = pd.DataFrame({"r": ["a", "a", "b", "b", "b", "a"], "c": ["x", "y", "x", "y", "x", "x"],
                          "v": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "s": list("uvwxyz"), "neg": [1.0, -2.0, 3.0, 4.0, 5.0, 6.0]})
MICRO_TABLE = table_from_microdata(MICRODATA, "r", "c", response="v")
KEYED = pd.DataFrame({"sex": ["f", "m", "f", "m"], "region": ["a", "a", "b", "b"], "age": [23.0, 37.0, 41.0, 58.0]})

#: (function, valid keyword arguments, {argument: (bad values, what the message must name)})
CASES = [
    (rumap.add_noise, {"data": X, "lambda2": 1.0, "seed": 1},
     {"lambda2": ([*NUMBER, -1.0], "lambda2"), "seed": (SEED, "seed"), "data": (DATA, "data")}),
    (rumap.rank_swap, {"data": X, "swap_percent": 5.0, "seed": 1},
     {"swap_percent": ([*NUMBER, -1.0, 101.0], "swap_percent"), "seed": (SEED, "seed"), "data": (DATA, "data")}),
    (rumap.microaggregate, {"data": X, "k": 3},
     {"k": ([*POSITIVE, 2.5, 41, True], "k"), "algorithm": (NAMES, "algorithm"), "criterion": (NAMES, "criterion"),
      "data": (DATA, "data"), "standardize": (["yes", 2, None], "standardize")}),
    (rumap.distance_linkage, {"original": X, "masked": MASKED},
     {"aggregation": (NAMES, "aggregation"), "engine": (NAMES, "engine"), "ties": (NAMES, "ties"),
      "standardize": (NAMES, "standardize"), "masked": ([*DATA, X[:10]], "masked"),
      "original": (DATA, "original")}),
    (rumap.probabilistic_linkage, {"original": X, "masked": MASKED},
     {"tolerance": (NUMBER + [-1.0], "tolerance"), "block_size": ([*POSITIVE, 1, 2.5], "block_size"),
      "max_iter": ([*POSITIVE, 2.5], "max_iter"), "masked": ([*DATA, X[:10]], "masked")}),
    (rumap.interval_disclosure, {"original": X, "masked": MASKED},
     {"p": ([*POSITIVE[:1], *POSITIVE[2:], 101.0], "p"), "method": (NAMES, "method"), "masked": ([*DATA, X[:10]], "masked")}),
    (rumap.identification_risk, {"f": 0.1, "a": 10.0, "f_u": 0.01},
     {"f": (FRACTION, "f"), "a": (NUMBER + [-1.0], "a"), "f_u": (FRACTION, "f_u"), "N": (POSITIVE[:1] + POSITIVE[2:], "N")}),
    (rumap.analytic_map, {"states": ["record"], "lambda2": np.linspace(0, 1, 5), "setting": SETTING},
     {"states": ([*NAMES[:4], ["nobody"]], "state"), "lambda2": ([*DATA[:4], [-1.0], [NAN]], "lambda2"),
      "setting": ([None, "s", 1, {"n": 200}], "setting")}),
    (rumap.max_tolerable_risk, {"state": "record", "setting": SETTING, "max_risk": 5.0},
     {"state": (NAMES, "state"), "max_risk": (POSITIVE, "max_risk"), "upper": (POSITIVE[:1] + POSITIVE[2:], "upper")}),
    (rumap.state_risk, {"state": "population", "lambda2": [0.0, 1.0], "setting": SETTING},
     {"state": (NAMES, "state"), "lambda2": ([[-1.0], [NAN], "x", None], "lambda2")}),
    (rumap.crossings, {"states": ["record", "population"], "setting": SETTING, "lambda2_range": (0.0, 3.0)},
     {"lambda2_range": ([(3.0, 0.0), (NAN, 1.0), "x", None, (0.0,)], "lambda2"),
      "states": ([["nobody", "record"], None, 5], "state")}),
    (rumap.envelope, {"maps": [MAP]}, {"maps": ([[], None, [1, 2], "m"], "map")}),
    (rumap.best_under_risk, {"maps": [MAP], "max_risk": 1.0},
     {"max_risk": (POSITIVE, "max_risk"), "maps": ([[], None, "m"], "maps"), "labels": ([[1], "ab", ["a", "b"]], "label")}),
    (rumap.pareto_frontier, {"maps": [MAP]}, {"maps": ([[], None, "m", [1]], "maps")}),
    (rumap.AnalyticSetting, {"n": 200, "sigma2": 1.0},
     {"n": ([*POSITIVE, 1, 2.5, True, 1e400], "n"), "sigma2": (POSITIVE, "sigma2"), "mu": (NUMBER, "mu"),
      "p": ([*FRACTION, 0.0, 1.0], "p"), "tau": (NUMBER[:1] + NUMBER[2:], "tau"), "family": (NAMES, "family")}),
    (rumap.AnalyticSpec, {"n": 200, "sigma2": 1.0, "states": ("record",)},
     {"lambda2_num": ([*POSITIVE, 2.5, 10**7], "grid_num"), "lambda2_start": (NUMBER + [-1.0], "lambda2"),
      "max_risk": (POSITIVE[:1] + POSITIVE[2:], "max_risk"), "states": ([(), ("nobody",), None], "state")}),
    (rumap.SimulationConfig, {"values": (0.1, 0.5), "targets": ("max",), "knowledge": ("index",)},
     {"replicates": ([*POSITIVE, 2.5, 10**9], "replicates"), "seed": (SEED, "seed"),
      "method": (NAMES, "method"), "targets": ([("p0",), ("row:0",), 5, {"a": 1}], "target"),
      "knowledge": ([("nobody",), 5], "knowledge"), "utility": (NAMES, "utility"),
      "values": ([(), ("a",), (NAN,), (-1.0,)], "lambda2"), "method_options": ([[1], "x", {"magic": 1}], "option"),
      "utility_options": ([[1], {"quantiles": "abc"}], "option"), "chunk_size": ([0, -1, "a"], "chunk_size")}),
    (rumap.apply_rule, {"cells": ["A", "A", "B"], "values": [10.0, 5.0, 3.0], "rule": "dominance", "n": 1, "k": 0.8},
     {"values": ([[NAN, 1.0, 2.0], [-1.0, 1.0, 2.0], [1e308, 1.5e308, 1.0], [1.0], "abc"], "contribution"),
      "rule": (NAMES, "rule"), "k": ([*FRACTION, 0.0], "k"), "n": ([*POSITIVE, 2.5], "n")}),
    (rumap.suppression_bounds, {"table": TABLE},
     {"resolution": ([*POSITIVE, 3.0, 1e308], "resolution"), "table": ([None, "t", X], "table")}),
    (rumap.insider_bounds, {"table": TABLE, "row": "a", "column": "d", "contribution": 1.0},
     {"row": (["zz", None, 5], "cell"), "column": (["zz", None], "cell"), "contribution": (NUMBER + [-1.0], "contribution")}),
    (rumap.rounding_ru_map, {"cells": np.array([[3.0, 4.0], [5.0, 6.0]]), "bases": [2.0, 3.0]},
     {"bases": ([[], [0.0], [NAN], "x", [-2.0]], "bases"), "statistic": (NAMES, "statistic"),
      "cells": ([[[NAN]], [[-1.0]], "x", None], "cells")}),
    (table_from_microdata, {"frame": MICRODATA, "rows": "r", "columns": "c", "response": "v"},
     {"rows": ([123, None, [1, 2], "nosuchname", ""], "rows"), "columns": ([123, "nosuchname", "r"], "columns"),
      "response": ([123, "nosuchname", "r", "s", "neg"], "response"), "shadow": (["s", "neg", 5], "shadow"),
      "layers": (["nosuchname", "r", 5], "layers"), "frame": ([None, "t", pd.DataFrame()], "frame"),
      "hierarchies": (["abc", 5, {"zz": {}}, {"r": {"a": "b"}}, {"r": {"a": "p", "p": "q", "q": "p"}}], "hierarch")}),
    (rule_map, {"table": MICRO_TABLE, "rule": "threshold", "values": [1.0, 3.0]},
     {"values": ([[], [NAN], "x", [-1.0], None], "values"), "rule": (NAMES, "rule"),
      "parameter": (["zz", 5], "parameter"), "protection": ([*POSITIVE, 101.0], "protection"),
      "risk": (NAMES, "risk"), "utility": (NAMES, "utility"), "table": ([None, "t", TABLE], "table")}),
    (protection_map, {"table": MICRO_TABLE.published(), "primary": [("a", "x")], "protections": [5.0, 20.0]},
     {"protections": ([[], [NAN], "x", [-1.0], [101.0]], "protections"), "cost": (NAMES, "cost"),
      "primary": ([[("zz", "x")], "ax", 5], "primary")}),
    (RUMap.from_dict, {"data": MAP.to_dict()},
     {"data": ([{}, None, [], "x", {"values": "x"}, {**MAP.to_dict(), "risk": "abc"}], "")}),
    (summary_table, {"x": X[:, 0]}, {"x": ([[], [NAN], "abc", None, [[1.0, 2.0]]], "")}),
    (numeric_columns, {"frame": pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, 6.0]}), "columns": None},
     {"frame": ([pd.DataFrame([[1.0, 2.0]], columns=["a", "a"]), pd.DataFrame({"a": ["x", "y"]}), None, X], ""),
      "columns": ([["nope"], 5, "a"], "")}),
    (rumap.spec_from_dict, {"d": rumap.AnalyticSpec(n=200, sigma2=1.0, states=("record",)).to_dict()},
     {"d": ([{}, None, [], {"kind": "magic"}, {"kind": "analytic", "n": "x"}], "")}),
    (rumap.PublishedTable.from_cells, {"cells": [[1.0, 2.0], [3.0, 4.0]]},
     {"cells": ([[["a", "b"], ["c", "d"]], [[1.0, NAN], [3.0, 4.0]], [[1.0, INF], [3.0, 4.0]], [], "x"], "cells")}),
    (band, {"data": KEYED, "variable": "age", "width": 10.0},
     {"width": (POSITIVE, "width"), "origin": (NUMBER, "origin"), "data": ([KEYED.assign(age=[1.0, INF, 3.0, 4.0])],
                                                                          "'age'"),
      "variable": (["sex", "nosuch"], "")}),
    (top_bottom_code, {"data": KEYED, "variable": "age", "above": 50.0},
     {"variable": (["sex"], "'sex' is not numeric"), "above": ([NAN, INF, "a"], "above")}),
    (pram, {"data": KEYED, "keys": ["sex"], "theta": 0.5, "seed": 1},
     {"theta": (FRACTION, "theta"), "seed": (SEED, "seed"), "keys": ([["nosuch"], [], 5], "")}),
    (local_suppression, {"data": KEYED, "keys": ["sex", "region"], "k": 2},
     {"importance": ([{"nosuch": 1.0}, {"sex": "high"}, {"sex": NAN}, "x"], "importance"),
      "weight": (["nosuch", "sex"], "")}),
    (key_frequencies_with_missing, {"data": KEYED, "keys": ["sex"]},
     {"weights": ([np.ones(5), np.array([1.0, 0.5, 1.0, 1.0]), np.array([1.0, NAN, 1.0, 1.0]), "abc"], "weights")}),
    (individual_risk, {"data": KEYED.assign(w=[10.0, 20.0, 30.0, 40.0]), "keys": ["sex"], "weight": "w"},
     {"data": ([KEYED.assign(w=[1e308, 1e308, 1.0, 1.0]), KEYED.assign(w=[1.0, 0.5, 2.0, 2.0])], "'w'")}),
    (parse_query, {"text": "SUM:1-3", "n": 9},
     {"text": (["SUM:1-\u00b2", "SUM:\u0661", "COUNT>=\u0663:1", "SUM:1_0", "COUNT>=nan:1"], "ASCII digits")}),
]


def _edge_calls() -> list[tuple[str, object, dict, str]]:
    calls = []
    for function, valid, arguments in CASES:
        for argument, (values, named) in arguments.items():
            for value in values:
                calls.append((f"{function.__qualname__}({argument}={value!r:.40})", function,
                              {**valid, argument: value}, named))
    return calls


EDGE_CALLS = _edge_calls()


def test_there_are_enough_edge_calls():
    assert len(EDGE_CALLS) >= 150


@pytest.mark.parametrize(("label", "function", "kwargs", "named"), EDGE_CALLS, ids=[c[0] for c in EDGE_CALLS])
def test_an_edge_call_raises_one_input_error_naming_the_argument(label, function, kwargs, named):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InputError) as info:
            function(**kwargs)
    message = str(info.value)
    assert message and "\n" not in message, label
    assert named.lower() in message.lower(), (label, message)


def test_the_valid_calls_succeed():
    for function, valid, _arguments in CASES:
        function(**valid)


_cell = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers(-10**30, 10**30).map(str),
                  st.text(alphabet='abc,;"\n\t .-+eE1x', max_size=6), st.just(""), st.just("1e400"))


@st.composite
def _csv(draw) -> bytes:
    columns = draw(st.integers(1, 4))
    header = draw(st.lists(st.text(alphabet="abcxyz _=!#", min_size=0, max_size=5), min_size=columns, max_size=columns))
    rows = draw(st.lists(st.lists(_cell, min_size=columns, max_size=columns), max_size=12))
    sep = draw(st.sampled_from([",", ";", "\t"]))
    text = "\n".join(sep.join(r) for r in [header, *rows])
    return text.encode(draw(st.sampled_from(["utf-8", "latin-1"])), errors="replace")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=_csv(), name=st.sampled_from(["f.csv", "f.tsv", "f.txt"]))
def test_generated_files_are_read_and_mapped_or_refused_cleanly(content, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            frame = read_table_bytes(content, name)
            values = numeric_columns(frame, None, source=name, missing="drop")
            column = values[:, 0]
            spec = rumap.AnalyticSpec(**rumap.AnalyticSetting.from_data(column).inputs(), states=("sample", "maximum"),
                                      lambda2_num=5, lambda2_stop=float(np.var(column)) * 3,
                                      data=rumap.DataSource.of("upload", name, ["c"], column))
            analysis = spec.run(column)
        except InputError as exc:
            assert str(exc) and "\n" not in str(exc)
            return
    for m in analysis.maps:
        assert not np.isnan(m.risk).any() and not np.isnan(m.utility).any()
