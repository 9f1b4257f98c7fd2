"""``table suppress --microdata``: n-D hierarchical tables from microdata (JSON keys, --out, exit codes)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.cli import main
from rumap.io.data import read_table
from rumap.tables.hierarchy import read_hrc
from rumap.tables.ndtable import build_table
from rumap.tables.table_suppression import suppress_table


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("microdata")
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"nace": rng.choice(["A01", "A02", "B01"], n), "size": rng.choice(["s", "l"], n),
                          "v": rng.gamma(2, 10, n).round()})
    frame.to_csv(folder / "m.csv", index=False)
    (folder / "nace.hrc").write_text("A\n@A01\n@A02\nB\n@B01\n")
    (folder / "nace.csv").write_text("parent,child\nA,A01\nA,A02\nB,B01\n")
    return folder, frame


def _bad(capsys, *args: str) -> str:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and captured.out == "", (code, captured)
    return lines[0]


def test_json_contract_and_out(files, tmp_path):
    folder, frame = files
    out_file = tmp_path / "protected.csv"
    proc, out = run_cli("table", "suppress", "--microdata", folder / "m.csv", "--dims", "nace,size", "--hierarchy",
                        f"nace={folder / 'nace.hrc'}", "--value-column", "v", "--rule", "threshold", "--threshold",
                        "6", "--protection", "20", "--out", out_file, "--json", check_json=True)
    assert set(out) >= {"cells", "cost", "gap", "method", "status", "audit"}
    assert out["status"] == "optimal" and out["gap"] == 0 and out["method"] == "optimal" and out["protected"]
    table = build_table(frame, ["nace", "size"], {"nace": read_hrc("A\n@A01\n@A02\nB\n@B01\n")}, "v")
    assert [c["codes"] for c in out["cells"]] == [table.codes(i) for i in range(table.size)]
    assert [c["value"] for c in out["cells"]] == pytest.approx(table.values)
    assert {c["status"] for c in out["cells"]} == {"primary", "secondary", "published"}
    primary = [c["codes"] for c in out["cells"] if c["status"] == "primary"]
    assert primary == [table.codes(i) for i in np.flatnonzero(table.primary_mask("threshold", threshold=6))]
    assert {"nace": "A", "size": "Total"} in [c["codes"] for c in out["cells"]]  # the subtotals are cells
    written = read_table(out_file)
    assert list(written.columns) == ["nace", "size", "value"] and len(written) == table.size
    hidden = written["value"].isna().to_numpy()
    assert np.array_equal(hidden, np.array([c["status"] != "published" for c in out["cells"]]))


def test_frequency_table_parent_child_hierarchy_and_text(files, capsys):
    folder, frame = files
    assert main(["table", "suppress", "--microdata", str(folder / "m.csv"), "--dims", "nace,size", "--hierarchy",
                 f"nace={folder / 'nace.csv'}", "--rule", "threshold", "--threshold", "8", "--cost", "unity"]) == 0
    text = capsys.readouterr().out
    assert "proven optimal" in text and "every primary's audit interval" in text
    code = main(["table", "suppress", "--microdata", str(folder / "m.csv"), "--dims", "nace,size", "--rule",
                 "threshold", "--threshold", "8", "--no-singletons", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["cells"][0]["value"] == len(frame)  # without --value-column: counts
    assert out["config"]["singletons"] is False


def test_bad_input(files, capsys, tmp_path):
    folder, _ = files
    base = ("table", "suppress", "--microdata", folder / "m.csv")
    assert "--dims" in _bad(capsys, *base, "--rule", "threshold", "--threshold", "3")
    assert "--rule" in _bad(capsys, *base, "--dims", "nace")
    assert "not both" in _bad(capsys, *base, "--table", folder / "m.csv", "--dims", "nace")
    assert "--hierarchy" in _bad(capsys, *base, "--dims", "nace", "--rule", "threshold", "--threshold", "3",
                                 "--hierarchy", "size=x.hrc")
    assert "--hierarchy nace=prefixes:1,x: give the code lengths" in _bad(
        capsys, *base, "--dims", "nace", "--rule", "threshold", "--threshold", "3", "--hierarchy", "nace=prefixes:1,x")
    assert "--primary" in _bad(capsys, *base, "--dims", "nace", "--rule", "threshold", "--threshold", "3",
                               "--primary", "A:B")
    (tmp_path / "w.csv").write_text(",A,Total\nr,1,1\nTotal,1,1\n")
    assert "--microdata" in _bad(capsys, "table", "suppress", "--table", tmp_path / "w.csv", "--primary", "r:A",
                                 "--dims", "x")
    assert_bad_input(run_cli(*base, "--dims", "nace,nope", "--rule", "threshold", "--threshold", "3"), "nope")


# Linked tables: region (N > N1, N2; S > S1) x activity and region x size, from one file.
_LINKED_HRC = "N\n@N1\n@N2\nS\n@S1\n"
_CHILDREN = {"region": {"Total": ["N", "S"], "N": ["N1", "N2"], "S": ["S1"]},
             "activity": {"Total": ["ind", "ser"]}, "size": {"Total": ["s", "m", "l"]}}


@pytest.fixture(scope="module")
def linked_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("linked")
    rng = np.random.default_rng(1)
    n = 20
    frame = pd.DataFrame({"region": rng.choice(["N1", "N2"], n), "activity": rng.choice(["ind", "ser"], n),
                          "size": rng.choice(["s", "m", "l"], n), "v": rng.gamma(2, 10, n).round() + 1})
    # S1 has three records: its total, shared by both tables, is primary under --threshold 4
    frame = pd.concat([frame, pd.DataFrame({"region": ["S1"] * 3, "activity": ["ind", "ser", "ser"],
                                            "size": ["s", "m", "m"], "v": [12.0, 30.0, 7.0]})], ignore_index=True)
    frame.to_csv(folder / "m.csv", index=False)
    (folder / "region.hrc").write_text(_LINKED_HRC)
    return folder, frame


def _leaves(dim: str, code: str) -> list[str]:
    children = _CHILDREN[dim].get(code)
    return [code] if children is None else [leaf for child in children for leaf in _leaves(dim, child)]


def _key(codes: dict[str, str]) -> frozenset:
    """A cell's identity across linked tables: its codes off the totals."""
    return frozenset((d, c) for d, c in codes.items() if c != "Total")


def _union_protects(frame, tables: list[dict], protection: float) -> bool:
    """Whether a shared cell has one status in every table and every primary's attacker interval clears its level,
    by scipy's linprog over the union of the tables' equations written from the codes alone: one variable per
    distinct cell (its codes off the totals), published cells fixed."""
    from scipy.optimize import linprog

    index: dict[frozenset, int] = {}
    status: dict[frozenset, str] = {}
    value: dict[frozenset, float] = {}
    rows = []
    for table in tables:
        dims = table["dims"]
        for cell in table["cells"]:
            codes = cell["codes"]
            key = _key(codes)
            index.setdefault(key, len(index))
            if status.setdefault(key, cell["status"]) != cell["status"]:  # a shared cell: one status
                return False
            # its value, summed from the records (a second computation)
            chosen = np.ones(len(frame), dtype=bool)
            for d in dims:
                chosen &= frame[d].isin(_leaves(d, codes[d])).to_numpy()
            assert cell["value"] == pytest.approx(frame.loc[chosen, "v"].sum())
            value[key] = cell["value"]
        for cell in table["cells"]:
            codes = cell["codes"]
            for d in dims:
                for_children = _CHILDREN[d].get(codes[d])
                if for_children:
                    rows.append((codes, d, for_children))
    n = len(index)
    a = np.zeros((len(rows), n))
    for r, (codes, d, children) in enumerate(rows):
        a[r, index[_key(codes)]] = -1.0
        for child in children:
            a[r, index[_key({**codes, d: child})]] += 1.0
    bounds = [None] * n
    for key, i in index.items():
        bounds[i] = (0, None) if status[key] != "published" else (value[key], value[key])
    primaries = [key for key in index if status[key] == "primary"]
    assert primaries
    for key in primaries:
        c = np.zeros(n)
        c[index[key]] = 1.0
        low = linprog(c, A_eq=a, b_eq=np.zeros(len(rows)), bounds=bounds, method="highs")
        high = linprog(-c, A_eq=a, b_eq=np.zeros(len(rows)), bounds=bounds, method="highs")
        level = value[key] * protection / 100
        assert low.status == 0 and high.status in (0, 3)
        if low.fun > value[key] - level + 1e-6 or (high.status == 0 and -high.fun < value[key] + level - 1e-6):
            return False
    return True


def test_linked_tables_share_one_pattern_and_each_primary_clears_its_level(linked_files, tmp_path):
    folder, frame = linked_files
    proc, out = run_cli("table", "suppress", "--microdata", folder / "m.csv", "--dims", "region,activity", "--dims",
                        "region,size", "--hierarchy", f"region={folder / 'region.hrc'}", "--value-column", "v",
                        "--rule", "threshold", "--threshold", "4", "--protection", "20", "--out",
                        tmp_path / "p.csv", "--json", check_json=True)
    assert set(out) >= {"tables", "cost", "gap", "method", "status"} and "cells" not in out
    assert out["status"] == "optimal" and out["gap"] == 0 and out["method"] == "optimal" and out["protected"]
    assert [t["dims"] for t in out["tables"]] == [["region", "activity"], ["region", "size"]]
    for t in out["tables"]:  # each table in the single-table form
        assert set(t) >= {"cells", "cost", "gap", "method", "status", "audit"}
        assert all(set(c) == {"codes", "value", "status"} and list(c["codes"]) == t["dims"] for c in t["cells"])
    statuses = [{(c["codes"]["region"], c["codes"][t["dims"][1]]): c["status"] for c in t["cells"]}
                for t in out["tables"]]
    shared = [(r, "Total") for r in ("Total", "N", "S", "N1", "N2", "S1")]
    assert [statuses[0][cell] for cell in shared] == [statuses[1][cell] for cell in shared]
    assert statuses[0][("S1", "Total")] == "primary"  # a shared primary, suppressed in both
    assert sum(t["counts"]["secondary"] for t in out["tables"]) > 0
    assert _union_protects(frame, out["tables"], 20)
    separate = []  # each table protected alone: one discloses the other
    for dims in out["tables"][0]["dims"], out["tables"][1]["dims"]:
        table = build_table(frame, dims, {"region": read_hrc(_LINKED_HRC)}, "v")
        alone = suppress_table(table, table.primary_mask("threshold", threshold=4), protection=20)
        separate.append({"dims": dims, **alone.to_dict()})
    assert not _union_protects(frame, separate, 20)
    # --out: one file per table, in the order of --dims
    assert out["out"] == [str(tmp_path / "p-1.csv"), str(tmp_path / "p-2.csv")]
    for t, path in zip(out["tables"], out["out"], strict=True):
        assert t["out"] == path
        written = read_table(path)
        assert list(written.columns) == [*t["dims"], "value"]
        assert np.array_equal(written["value"].isna().to_numpy(), [c["status"] != "published" for c in t["cells"]])


def test_linked_tables_text_and_bad_input(linked_files, capsys):
    folder, _ = linked_files
    base = ("table", "suppress", "--microdata", folder / "m.csv", "--rule", "threshold", "--threshold", "4",
            "--value-column", "v")
    assert main([str(a) for a in (*base, "--dims", "region,activity", "--dims", "region,size")]) == 0
    text = capsys.readouterr().out
    assert "table 1: region x activity" in text and "table 2: region x size" in text
    assert "2 linked tables" in text and "every primary's audit interval" in text
    assert "same table" in _bad(capsys, *base, "--dims", "region,size", "--dims", "size,region")
    assert "--hierarchy" in _bad(capsys, *base, "--dims", "region,size", "--dims", "region,activity",
                                 "--hierarchy", "nope=x.hrc")
