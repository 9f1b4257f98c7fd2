"""Perturbation tables and the cell key method against R's ptable and cellKey (fixtures in tests/data/ckm)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.tables.cellkey import cellkey_table, lookup_perturbation, record_keys
from rumap.tables.hierarchy import read_hrc
from rumap.tables.ptable import PTABLE_COLUMNS, create_ptable, read_ptable
from tests.cli_helpers import assert_bad_input, run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "ckm"
PTABLES = pd.read_csv(DATA / "ptables_cnts.csv")


@pytest.mark.parametrize("params", sorted({tuple(r) for r in PTABLES[["D", "V", "js"]].itertuples(index=False)}))
def test_ptable_equals_r_ptable(params):
    d, v, js = params
    expected = PTABLES[(PTABLES.D == d) & (PTABLES.V == v) & (PTABLES.js == js)].reset_index(drop=True)
    got = create_ptable(int(d), float(v), int(js)).rows
    assert got[["i", "j", "v"]].to_numpy().tolist() == expected[["i", "j", "v"]].to_numpy().tolist()
    for column in ("p", "p_int_lb", "p_int_ub"):
        np.testing.assert_allclose(got[column], expected[column], atol=1e-6, rtol=0)


@pytest.mark.parametrize("params", list(pd.read_csv(DATA / "ptables_refused.csv").itertuples(index=False)))
def test_ptable_refuses_what_r_ptable_refuses(params):
    with pytest.raises(InputError, match="no distribution of the perturbation"):
        create_ptable(int(params.D), float(params.V), int(params.js))


def test_magnitude_ptable_equals_r_ptable():
    expected = pd.read_csv(DATA / "ptable_nums.csv")
    got = create_ptable(5, 2.0, table="nums", step=4, icat=[1, 3, 5]).rows
    np.testing.assert_array_equal(got[["i", "j", "v"]], expected[["i", "j", "v"]])
    np.testing.assert_allclose(got[["p", "p_int_lb", "p_int_ub"]], expected[["p", "p_int_lb", "p_int_ub"]], atol=1e-6)


def test_read_ptable_round_trip_and_refusals():
    pt = create_ptable(3, 1.08, 1)
    again = read_ptable(pt.to_frame().drop(columns=["p", "p_int_lb", "j"]))
    pd.testing.assert_frame_equal(again.rows[list(PTABLE_COLUMNS)], pt.rows, check_exact=False, atol=1e-12)
    broken = pt.to_frame()
    broken.loc[broken.index[-1], "p_int_ub"] = 0.99
    with pytest.raises(InputError, match="do not tile"):
        read_ptable(broken.drop(columns=["p_int_lb"]), "f.csv")
    with pytest.raises(InputError, match="lacks the column"):
        read_ptable(pt.to_frame().drop(columns=["v"]))


def test_lookup_takes_the_first_interval_above_the_key():
    pt = create_ptable(3, 1.08, 1)
    row, last = pt.row(4), pt.row(1e9)
    assert last["i"].iloc[0] == 5
    ub = row["p_int_ub"].to_numpy()
    # a key equal to an upper bound falls in the next interval; counts above the last class share its row
    got = lookup_perturbation([4, 4, 40, 0], [ub[0], np.nextafter(ub[0], 0), last["p_int_ub"].iloc[1] - 1e-9, 0.5],
                              pt)
    assert got.tolist() == [row["v"].iloc[1], row["v"].iloc[0], last["v"].iloc[1], 0.0]


def _cellkey_fixture(name):
    frame = pd.read_csv(DATA / f"cellkey_{name}.csv", keep_default_na=False)
    return frame


@pytest.mark.parametrize(("name", "dims", "params"), [
    ("region_sex_D3_V1.08_js1", ["region", "sex"], (3, 1.08, 1)),
    ("region_sex_age_D5_V3_js2", ["region", "sex", "age"], (5, 3.0, 2)),
])
def test_published_cells_equal_cellkey(name, dims, params):
    micro = pd.read_csv(DATA / "micro.csv")
    region = read_hrc((DATA / "region.hrc").read_text())
    result = cellkey_table(micro, dims, create_ptable(*params), {"region": region}, record_key="rk", weight="w")
    expected = _cellkey_fixture(name)
    got = result.to_frame(original=True).astype({d: str for d in dims})
    merged = got.merge(expected, on=dims, how="inner", validate="one_to_one")
    assert len(merged) == len(expected) == result.table.size
    np.testing.assert_array_equal(merged["count"], merged["uwc"])
    np.testing.assert_allclose(merged["cell_key"], merged["ckey"], atol=1e-12, rtol=0)
    np.testing.assert_array_equal(merged["perturbation"], merged["pert"])
    np.testing.assert_allclose(merged["weighted"], merged["wc"], rtol=1e-12)
    np.testing.assert_allclose(merged["value"], merged["pwc"], rtol=1e-12)
    unweighted = cellkey_table(micro, dims, create_ptable(*params), {"region": region}, record_key="rk")
    np.testing.assert_array_equal(unweighted.published, result.counts + result.perturbation)
    np.testing.assert_array_equal(unweighted.to_frame(True).astype({d: str for d in dims}).merge(
        expected, on=dims)[["value"]].to_numpy().ravel(), merged["puwc"])


def test_same_cell_same_perturbation_in_every_table_and_non_additivity_reported():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), 500), "b": rng.choice(list("pq"), 500)})
    pt = create_ptable(3, 2.0, 1)
    two = cellkey_table(frame, ["a", "b"], pt, seed=11).to_frame(True)
    one = cellkey_table(frame, ["a"], pt, seed=11).to_frame(True)
    margins = two[two["b"] == "Total"].drop(columns="b").reset_index(drop=True)
    pd.testing.assert_frame_equal(margins, one)
    keys = record_keys(500, 11)
    assert np.isclose(one["cell_key"].iloc[0], keys.sum() % 1, atol=1e-9)
    add = cellkey_table(frame, ["a", "b"], pt, seed=11).additivity()
    published = two.set_index(["a", "b"])["value"]
    worst = max(abs(published["Total", b] - published.drop("Total", level=0).xs(b, level=1).sum())
                for b in ("Total", "p", "q"))
    assert add["equations"] == 7 and add["max_abs"] >= worst > 0


def test_cellkey_refuses_bad_keys():
    frame = pd.DataFrame({"a": ["x", "y"], "rk": [0.5, 1.5]})
    with pytest.raises(InputError, match="record_key 'rk', row 2"):
        cellkey_table(frame, ["a"], create_ptable(2, 1.0), record_key="rk")


def test_cli_table_ckm(tmp_path):
    micro = str(DATA / "micro.csv")
    hrc = f"region={DATA / 'region.hrc'}"
    out = tmp_path / "pub.csv"
    _, doc = run_cli("table", "ckm", "--microdata", micro, "--dims", "region,sex", "--hierarchy", hrc,
                     "--max-perturbation", "3", "--variance", "1.08", "--js", "1", "--record-key", "rk",
                     "--weight", "w", "--out", str(out), "--json", check_json=True)
    expected = _cellkey_fixture("region_sex_D3_V1.08_js1").set_index(["region", "sex"])
    assert {"codes", "value"} == set(doc["cells"][0]) and doc["ptable"]["params"]["D"] == 3
    for cell in doc["cells"]:
        assert cell["value"] == pytest.approx(expected.loc[(cell["codes"]["region"], cell["codes"]["sex"]), "pwc"])
    written = pd.read_csv(out)
    assert list(written.columns) == ["region", "sex", "value"]
    ptable_file = tmp_path / "pt.csv"
    create_ptable(3, 1.08, 1).to_frame().to_csv(ptable_file, index=False)
    proc = run_cli("table", "ckm", "--microdata", micro, "--dims", "region", "--ptable", str(ptable_file),
                   "--record-key", "rk", "--show-original", "--json")
    cells = json.loads(proc.stdout)["cells"]
    assert cells[0]["count"] == 300 and "perturbation" in cells[0] and "cell_key" in cells[0]
    base = ("table", "ckm", "--microdata", micro, "--dims", "region")
    assert_bad_input(run_cli(*base, "--ptable", str(ptable_file), "--variance", "1"), "--ptable")
    assert_bad_input(run_cli(*base, "--variance", "1"), "--max-perturbation")
    assert_bad_input(run_cli(*base, "--max-perturbation", "2", "--variance", "1", "--js", "1"), "--variance 1",
                     "i = 1")
    assert_bad_input(run_cli(*base, "--max-perturbation", "2", "--variance", "1", "--record-key", "nope"),
                     "--record-key", "nope")
    assert_bad_input(run_cli(*base, "--max-perturbation", "2", "--variance", "-1"), "--variance")


def test_out_of_core_equals_in_memory():
    from rumap.scale.cellkey import cellkey_table_file

    micro = pd.read_csv(DATA / "micro.csv")
    hierarchies = {"region": read_hrc((DATA / "region.hrc").read_text())}
    pt = create_ptable(5, 3.0, 2)
    scaled = cellkey_table_file(DATA / "micro.csv", ["region", "age"], pt, hierarchies, record_key="rk", weight="w")
    memory = cellkey_table(micro, ["region", "age"], pt, hierarchies, record_key="rk", weight="w")
    pd.testing.assert_frame_equal(scaled.to_frame(True), memory.to_frame(True))
    proc = run_cli("table", "ckm", "--microdata", str(DATA / "micro.csv"), "--dims", "region", "--engine", "scale",
                   "--max-perturbation", "3", "--variance", "1", "--seed", "1")
    assert_bad_input(proc, "--record-key")
