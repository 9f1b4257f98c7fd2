"""Hierarchies: the tau-Argus .hrc reader, parent,child tables, code prefixes, and what they refuse."""

from __future__ import annotations

import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.tables.hierarchy import Hierarchy, flat, from_parents, from_prefixes, read_hrc, read_parent_child

HRC = "A\n@A01\n@@A011\n@@A012\n@A02\nB\n@B01\n"


def test_hrc_parents_levels_and_round_trip():
    h = read_hrc(HRC)
    assert h.codes == ("A", "A01", "A011", "A012", "A02", "B", "B01")
    assert h.parents == ("Total", "A", "A01", "A01", "A", "Total", "B")
    assert h.levels == (1, 2, 3, 3, 2, 1, 2)
    assert h.leaves == ("A011", "A012", "A02", "B01")
    assert h.subtotals == ("A", "A01", "B")
    assert h.depth == 3
    assert h.ancestors("A012") == ("A01", "A")
    assert read_hrc(h.to_hrc()) == h


def test_the_three_readers_agree():
    by_hrc = read_hrc(HRC)
    pairs = pd.DataFrame({"parent": list(by_hrc.parents), "child": list(by_hrc.codes)})
    assert read_parent_child(pairs) == by_hrc
    text = "parent,child\n" + "".join(f"{'' if p == 'Total' else p},{c}\n" for c, p in
                                      zip(by_hrc.codes, by_hrc.parents, strict=True))
    assert read_parent_child(text) == by_hrc
    assert from_prefixes(["A011", "A012", "A02", "B01"], lengths=[1, 3, 4]) == by_hrc
    assert from_prefixes(by_hrc.codes) == by_hrc
    assert from_parents(dict(zip(by_hrc.codes, by_hrc.parents, strict=True))) == by_hrc


def test_flat_and_restricted():
    assert flat(["b", "a", "10", "2"]).codes == ("2", "10", "a", "b")
    assert set(flat(["x", "y"]).parents) == {"Total"}
    assert read_hrc(HRC).restricted(["A02", "B01"]).codes == ("A", "A02", "B", "B01")


@pytest.mark.parametrize("text, message", [
    ("A\n@@A1\n", "levels down"),
    ("A\n@A1\n@A1\n", "twice"),
    ("Total\n", "implicit"),
])
def test_bad_hrc_is_refused(text, message):
    with pytest.raises(InputError, match=message):
        read_hrc(text)


def test_bad_parents_are_refused():
    with pytest.raises(InputError, match="cycle"):
        from_parents({"a": "b", "b": "a"})
    with pytest.raises(InputError, match="own parent"):
        from_parents({"a": "a"})
    with pytest.raises(InputError, match="two parents"):
        read_parent_child("parent,child\nA,x\nB,x\n")
    with pytest.raises(InputError, match="characters"):
        from_prefixes(["A1", "A123"], lengths=[1, 2])
    with pytest.raises(InputError, match="must come before"):
        Hierarchy(("a", "b"), ("b", "Total"))
