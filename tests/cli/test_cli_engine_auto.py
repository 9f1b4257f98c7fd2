"""``--engine auto`` decides from the memory a step would take, not from the file's bytes on disk."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli

import rumap.cli.engine as engine
import rumap.io.data
from rumap.cli.engine import scale_engine

pytest.importorskip("polars")

SURVEY = str(ROOT / "data" / "survey.csv")  # 2,329 records, 10 columns, 142 KB
KEYS = "region,sex,age_band,marital"


def _auto(**given) -> argparse.Namespace:
    return argparse.Namespace(**{"engine": "auto", "chunk_size": None, **given})


@pytest.mark.parametrize(("limit", "columns", "memory_only", "chunk_size", "scale"), [
    (10**9, None, None, None, False),  # small: in memory
    (2329 * 4 * 40 - 1, ["region", "sex", "age_band", "marital"], None, None, True),  # 4 columns over the limit
    (2329 * 4 * 40, ["region", "sex", "age_band", "marital"], None, None, False),  # 4 columns at the limit
    (2329 * 4 * 40, None, None, None, True),  # every column (10) over it
    (1000, None, "--merge", None, False),  # cannot stream: in memory, the file fitting the reader
    (10**9, None, None, 500, True),  # --chunk-size asks for chunks
])
def test_auto_decides_from_rows_times_columns_used(monkeypatch, limit, columns, memory_only, chunk_size, scale):
    monkeypatch.setattr(engine, "AUTO_MEMORY_BYTES", limit)
    assert scale_engine(_auto(chunk_size=chunk_size), SURVEY, columns, memory_only) is scale


def test_the_default_command_runs_out_of_core_when_the_step_is_large(monkeypatch):
    monkeypatch.setattr(engine, "AUTO_MEMORY_BYTES", 1000)
    _, auto = run_cli("risk", "individual", "--data", SURVEY, "--keys", KEYS, "--quiet", "--json", check_json=True)
    _, memory = run_cli("risk", "individual", "--data", SURVEY, "--keys", KEYS, "--engine", "memory", "--json",
                        check_json=True)
    assert auto["engine"] == "scale" and "risk" not in auto
    assert auto["expected_reidentifications"] == pytest.approx(memory["expected_reidentifications"], rel=1e-12)
    _, merged = run_cli("risk", "individual", "--data", SURVEY, "--keys", KEYS, "--merge", "sex:f,m=any", "--json",
                        check_json=True)
    assert len(merged["risk"]) == 2329  # --merge works in memory only: there it stays


def test_protection_without_out_runs_out_of_core_on_a_temporary_file(monkeypatch):
    flags_ = ["protect", "suppress", "--data", SURVEY, "--keys", KEYS, "--k", "3", "--json"]
    _, memory = run_cli(*flags_, "--engine", "memory", check_json=True)
    monkeypatch.setattr(engine, "AUTO_MEMORY_BYTES", 1000)
    proc, auto = run_cli(*flags_, check_json=True)
    assert "records" in proc.stderr  # the scale engine's progress
    assert sorted(auto) == sorted(memory) and "out" not in auto
    assert auto["suppressed"] == memory["suppressed"] and auto["per_variable"] == memory["per_variable"]
    assert auto["risk_after"]["global_risk"] == pytest.approx(memory["risk_after"]["global_risk"], rel=1e-12)
    assert_bad_input(run_cli(*flags_, "--engine", "scale"), "give --out")


def test_refusals_come_before_the_work_and_name_what_would_work(monkeypatch):
    monkeypatch.setattr(rumap.io.data, "MAX_BYTES", 1000)  # the survey is now over the in-memory reader's limit
    assert_bad_input(run_cli("risk", "individual", "--data", SURVEY, "--keys", KEYS, "--engine", "memory"),
                     "over the in-memory reader's", "give --engine scale")
    assert_bad_input(run_cli("risk", "suda", "--data", SURVEY, "--keys", KEYS, "--merge", "sex:f,m=any"),
                     "cannot run out of core", "drop --merge")
    assert_bad_input(run_cli("protect", "suppress", "--data", SURVEY, "--keys", KEYS, "--k", "3", "--optimal"),
                     "drop --optimal")
    monkeypatch.undo()
    assert_bad_input(run_cli("risk", "individual", "--data", SURVEY, "--keys", KEYS, "--work-limit", "1000"),
                     "over the work limit", "--engine scale runs it out of core", "coarsen a key")
    refused = run_cli("risk", "suda", "--data", SURVEY, "--keys", KEYS, "--engine", "scale", "--work-limit", "1000")
    assert_bad_input(refused, "over the work limit", "coarsen a key")
    assert "--engine scale" not in refused.stderr


def test_release_applies_a_large_file_chunk_by_chunk_unless_the_report_is_asked_for(monkeypatch, tmp_path):
    import pandas as pd

    import rumap.cli.release as release
    from rumap.cli import build_parser

    data = tmp_path / "survey.parquet"
    pd.read_csv(SURVEY).to_parquet(data, index=False)
    step = ["release", "--data", data, "--method", "pram", "--keys", "region,sex", "--theta", "0.8", "--seed", "3"]
    _, memory = run_cli(*step, "--out", tmp_path / "memory.parquet", "--engine", "memory", "--no-prediction", "--json",
                        check_json=True)
    _, small = run_cli(*step, "--out", tmp_path / "small.parquet", "--no-prediction", "--json", check_json=True)
    assert small["risk"] is not None  # under the limit: in memory, with the report's measures
    monkeypatch.setattr(release, "AUTO_MEMORY_BYTES", 1000)
    _, auto = run_cli(*step, "--out", tmp_path / "auto.parquet", "--json", check_json=True)
    assert auto["risk"] is None and auto["predictions"] == [] and auto["report"] is None
    assert auto["notes"][0].startswith("applied chunk by chunk (1000000 records, 1 chunks")
    assert "--engine auto applied the plan chunk by chunk; --engine memory gives the report" in auto["notes"][1]
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "auto.parquet"), pd.read_parquet(tmp_path / "memory.parquet"))
    assert auto["step_summaries"] == memory["step_summaries"]
    _, scale = run_cli(*step, "--out", tmp_path / "scale.parquet", "--engine", "scale", "--json", check_json=True)
    assert scale["risk"] is None and scale["notes"] == auto["notes"][:1]  # asked for: no note of why

    def streamed(*flags) -> tuple[int, str] | None:
        args = build_parser("release").parse_args([str(a) for a in [*step, *flags]])
        return release._chunks(args, release._plan(args), Path(args.out))

    chunks, why = streamed("--out", tmp_path / "x.parquet")
    assert chunks == 1_000_000 and why.endswith("--engine auto applied the plan chunk by chunk; --engine memory gives "
                                                 "the report")
    for given in (["--report", "r.json"], ["--weight", "weight"], ["--replicates", "5"], ["--target", "max"],
                  ["--out", tmp_path / "x.csv"]):  # the report asked for, or an --out written from memory
        assert streamed("--out", tmp_path / "x.parquet", *given) is None, given
    swap = ["--method", "swap", "--keys", "sex,age_band", "--household", "hh", "--hierarchy", "region", "--similar",
            "hh_size"]
    args = build_parser("release").parse_args([str(a) for a in [*step[:3], *swap, "--out", tmp_path / "x.parquet"]])
    assert release._chunks(args, release._plan(args), Path(args.out)) is None  # it needs the whole file
    assert_bad_input(run_cli(*step, "--out", tmp_path / "x.parquet", "--engine", "memory", "--chunk-size", "100"),
                     "--chunk-size goes with --engine scale or auto")
