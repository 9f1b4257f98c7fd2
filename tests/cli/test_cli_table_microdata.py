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
    assert "--primary" in _bad(capsys, *base, "--dims", "nace", "--rule", "threshold", "--threshold", "3",
                               "--primary", "A:B")
    (tmp_path / "w.csv").write_text(",A,Total\nr,1,1\nTotal,1,1\n")
    assert "--microdata" in _bad(capsys, "table", "suppress", "--table", tmp_path / "w.csv", "--primary", "r:A",
                                 "--dims", "x")
    assert_bad_input(run_cli(*base, "--dims", "nace,nope", "--rule", "threshold", "--threshold", "3"), "nope")
