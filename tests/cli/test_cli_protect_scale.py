"""``protect suppress|pram|recode --engine scale``: the survey read and written in chunks, as in memory."""

from __future__ import annotations

import pandas as pd
import pytest
from cli_helpers import ROOT, assert_bad_input, run_cli

pytest.importorskip("polars")

SURVEY = ROOT / "data" / "survey.csv"
KEYS = "age_band,sex,region,marital,occupation"


@pytest.mark.parametrize("method", [["suppress", "--k", "3", "--weight", "weight", "--importance", "sex:2"],
                                    ["suppress", "--k", "3", "--household", "hh", "--household-variables", "region"],
                                    ["pram", "--theta", "0.7", "--seed", "5"]])
def test_chunks_give_the_summary_and_records_of_the_whole_file(tmp_path, method):
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.csv"
    _proc, expected = run_cli("protect", *method, "--data", SURVEY, "--keys", KEYS, "--out", whole, "--json",
                              check_json=True)
    proc, summary = run_cli("protect", *method, "--data", SURVEY, "--keys", KEYS, "--out", chunked, "--json",
                            "--engine", "scale", "--chunk-size", "500", check_json=True)
    _assert_close(summary, {**expected, "out": str(chunked)})
    assert "records" in proc.stderr  # progress
    pd.testing.assert_frame_equal(pd.read_csv(chunked), pd.read_csv(whole), check_dtype=False)


def _assert_close(got, want, where="summary"):
    """Equal JSON, numbers to 1e-12 (sums added in another order)."""
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            _assert_close(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            _assert_close(a, b, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), where
    else:
        assert got == want, where


def test_recoding_in_chunks_and_its_refusals(tmp_path):
    out = tmp_path / "recoded.parquet"
    _proc, summary = run_cli("protect", "recode", "--data", SURVEY, "--keys", "age,sex,region", "--band", "age:10",
                             "--merge", "region:R01,R02=R01-02", "--out", out, "--engine", "scale", "--chunk-size", "700", "--json",
                             check_json=True)
    assert summary["categories"]["region"] == {"before": 12, "after": 11}
    assert len(pd.read_parquet(out)) == len(pd.read_csv(SURVEY))
    assert_bad_input(run_cli("protect", "recode", "--data", SURVEY, "--keys", "sex", "--band", "age:10",
                             "--engine", "scale"), "--out")
    out = tmp_path / "refused.parquet"  # not written: each run is refused before any work
    assert_bad_input(run_cli("protect", "suppress", "--data", SURVEY, "--keys", "sex", "--k", "2", "--optimal",
                             "--out", out, "--engine", "scale"), "--optimal")
    assert_bad_input(run_cli("protect", "suppress", "--data", SURVEY, "--keys", "sex", "--k", "2", "--household",
                             "hh", "--household-variables", "region", "--out", out, "--engine", "scale"),
                     "--household-variables must be --keys")
    assert_bad_input(run_cli("protect", "pram", "--data", SURVEY, "--keys", "sex", "--theta", "0.5", "--out", out,
                             "--engine", "scale", "--chunk-size", "0"), "--chunk-size")
