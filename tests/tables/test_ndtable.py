"""n-dimensional tables: cells, subtotals and equations against pandas group sums, rules against apply_rule."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.tables.hierarchy import from_prefixes, read_hrc
from rumap.tables.ndtable import build_table
from rumap.tables.rules import apply_rule


@pytest.fixture(scope="module")
def microdata():
    rng = np.random.default_rng(7)
    n = 80
    return pd.DataFrame({"a": rng.choice(["A1", "A2", "B1"], n), "b": rng.choice(["x", "y", "z"], n),
                         "c": rng.choice(["p11", "p12", "p21"], n), "v": rng.gamma(1.5, 20.0, n).round(1)})


@pytest.fixture(scope="module")
def table(microdata):
    return build_table(microdata, ["a", "b", "c"], {"a": from_prefixes(["A1", "A2", "B1"], lengths=[1, 2]),
                                                    "c": read_hrc("p1\n@p11\n@p12\np2\n@p21\n")}, "v")


def _records(microdata, table, codes):
    """The records of a cell, found from each dimension's leaves under its code (a second computation)."""
    keep = np.ones(len(microdata), dtype=bool)
    for dim, code in codes.items():
        if code == "Total":
            continue
        h = table.hierarchy(dim)
        leaves = {leaf for leaf in h.leaves if leaf == code or code in h.ancestors(leaf)}
        keep &= microdata[dim].isin(leaves).to_numpy()
    return microdata[keep]


def test_every_cell_is_its_records_sum_count_and_largest(microdata, table):
    assert table.shape == (6, 4, 6)
    for i in range(table.size):
        codes = table.codes(i)
        records = _records(microdata, table, codes)
        row = table.cells.iloc[i]
        assert row["value"] == pytest.approx(records["v"].sum())
        assert row["frequency"] == len(records)
        top = sorted(records["v"], reverse=True)[:3] + [0.0] * 3
        assert [row["top1"], row["top2"], row["top3"]] == pytest.approx(top[:3])


def test_equations_are_every_subtotal_of_every_dimension(table):
    a = table.equations()
    assert np.abs(a @ table.values).max() < 1e-9
    expected = set()  # one equation per (cell at a non-leaf label of one dimension): built from the codes
    for i in range(table.size):
        codes = table.codes(i)
        for dim, code in codes.items():
            children = table.hierarchy(dim).children(code)
            if children:
                parts = [table.cell_index({**codes, dim: child}) for child in children]
                expected.add((i, frozenset(parts)))
    got = set()
    for row in a.toarray():
        assert sorted(set(row[row != 0])) == [-1.0, 1.0] and (row == -1).sum() == 1
        got.add((int(np.flatnonzero(row == -1)[0]), frozenset(np.flatnonzero(row == 1).tolist())))
    assert got == expected and a.shape[0] == len(expected)


@pytest.fixture(scope="module")
def contributions(microdata, table):
    """Each cell's records' contributions, labelled by the cell's position."""
    labels, values = [], []
    for i in range(table.size):
        records = _records(microdata, table, table.codes(i))
        labels += [str(i)] * len(records)
        values += list(records["v"])
    return labels, values


@pytest.mark.parametrize("rule, parameters", [("threshold", {"threshold": 3}), ("dominance", {"n": 2, "k": 0.8}),
                                              ("p-percent", {"p": 20}), ("pq", {"p": 10, "q": 40})])
def test_rules_on_every_cell_match_apply_rule(table, contributions, rule, parameters):
    mask = table.primary_mask(rule, **parameters)
    reference = apply_rule(*contributions, rule=rule, **parameters)
    expected = np.zeros(table.size, dtype=bool)
    expected[[int(c) for c in reference.sensitive_cells]] = True
    assert np.array_equal(mask, expected)
    assert mask.any() and not mask[table.frequencies == 0].any()


def test_frequency_table_counts_records(microdata):
    table = build_table(microdata, "a,b")
    assert table.response is None
    assert np.array_equal(table.values, table.frequencies)
    assert table.values[table.cell_index({})] == len(microdata)


def test_five_dimensions_and_no_more():
    frame = pd.DataFrame(list(itertools.product("ab", "cd", "ef", "gh", "ij")), columns=list("ABCDE"))
    table = build_table(frame, list("ABCDE"))
    assert table.shape == (3,) * 5 and table.values[0] == 32
    assert np.abs(table.equations() @ table.values).max() == 0
    frame["F"] = "k"
    with pytest.raises(InputError, match="1 to 5"):
        build_table(frame, list("ABCDEF"))


def test_bad_input_is_refused(microdata):
    with pytest.raises(InputError, match="does not have"):
        build_table(microdata, ["a"], {"a": read_hrc("A\n@A1\n")})
    with pytest.raises(InputError, match="subtotal"):
        build_table(microdata.assign(a="A"), ["a"], {"a": from_prefixes(["A1", "A2"], lengths=[1, 2])})
    with pytest.raises(InputError, match="dominance rule with n = 4"):
        build_table(microdata, ["a"], value_column="v").primary_mask("dominance", n=4, k=0.9)
    with pytest.raises(InputError, match="not a dimension"):
        build_table(microdata, ["a"], {"b": read_hrc("x\n")})
