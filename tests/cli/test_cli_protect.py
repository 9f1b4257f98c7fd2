"""``protect recode|suppress|pram`` and ``simulate --method suppress|recode|pram`` on the bundled survey."""

from __future__ import annotations

import numpy as np
import pandas as pd
from cli_helpers import ROOT, assert_bad_input, run_cli

from rumap.maps.categorical import pram_map, suppression_map
from rumap.masking.categorical import local_suppression, recode
from rumap.risk.individual import individual_risk

SURVEY = ROOT / "data" / "survey.csv"
KEYS = "age_band,sex,region,marital,occupation"


def test_suppress_writes_a_k_anonymous_file(tmp_path):
    out = tmp_path / "protected.csv"
    _proc, summary = run_cli("protect", "suppress", "--data", SURVEY, "--keys", KEYS, "--k", "3", "--weight", "weight",
                             "--out", out, "--json", check_json=True)
    protected = pd.read_csv(out)
    assert individual_risk(protected, KEYS.split(","), k=3).k_anonymity_violations == 0
    expected = local_suppression(pd.read_csv(SURVEY), KEYS.split(","), k=3)
    assert summary["suppressed"] == int(expected.suppressed.sum()) and summary["out"] == str(out)
    assert summary["risk_after"]["global_risk"] < summary["risk_before"]["global_risk"]


def test_recode_and_pram(tmp_path):
    _proc, summary = run_cli("protect", "recode", "--data", SURVEY, "--keys", "age,sex,region", "--band", "age:10",
                             "--merge", "region:R01,R02=R01-02", "--top", "hh_size:5", "--json", check_json=True)
    assert summary["categories"]["region"] == {"before": 12, "after": 11}
    assert summary["categories"]["age"]["after"] <= 10
    out = tmp_path / "pram.csv"
    _proc, summary = run_cli("protect", "pram", "--data", SURVEY, "--keys", "sex,region", "--theta", "0.8", "--seed",
                             "3", "--out", out, "--json", check_json=True)
    matrix = np.array(summary["matrices"]["sex"]["matrix"])
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    assert 0.05 < summary["changed_share"]["region"] < 0.3
    assert len(pd.read_csv(out)) == len(pd.read_csv(SURVEY))


def test_simulate_categorical_methods_write_curve_json():
    frame = pd.read_csv(SURVEY)
    _proc, out = run_cli("simulate", "--data", SURVEY, "--method", "suppress", "--keys", KEYS, "--k", "1:4",
                         "--weight", "weight", "--json", check_json=True)
    (curve,) = out["curves"]
    expected = suppression_map(frame, KEYS.split(","), [1, 2, 3, 4], weight="weight")
    np.testing.assert_allclose(curve["risk"], expected.risk)
    assert curve["parameter"] == "k" and out["n"] == len(frame)
    _proc, out = run_cli("simulate", "--data", SURVEY, "--method", "pram", "--keys", "sex,region", "--theta",
                         "0.5:1:3", "--replicates", "6", "--seed", "2", "--json", check_json=True)
    expected = pram_map(frame, ["sex", "region"], [0.5, 0.75, 1.0], replicates=6, seed=2)
    np.testing.assert_array_equal(out["curves"][0]["risk"], expected.risk)
    assert set(out["curves"][0]) >= {"values", "risk", "risk_se", "utility", "utility_se", "risk_label"}
    _proc, out = run_cli("simulate", "--data", SURVEY, "--method", "suppress", "--keys", "hh_size,sex,region",
                         "--k", "1:3", "--merge", "hh_size: 1, 2 = small", "--json", check_json=True)
    recoded = recode(frame, {"hh_size": {"1": "small", "2": "small"}})
    np.testing.assert_allclose(out["curves"][0]["risk"],
                               suppression_map(recoded, ["hh_size", "sex", "region"], [1, 2, 3]).risk)
    assert out["config"]["merge"] == ["hh_size: 1, 2 = small"]


def test_bad_input():
    assert_bad_input(run_cli("protect", "suppress", "--data", SURVEY, "--keys", KEYS), "give --k")
    assert_bad_input(run_cli("protect", "recode", "--data", SURVEY, "--keys", "sex"), "give at least one of --merge")
    assert_bad_input(run_cli("protect", "recode", "--data", SURVEY, "--keys", "sex", "--merge", "region:R01"),
                     "--merge must be VAR:A,B=NEW")
    assert_bad_input(run_cli("protect", "pram", "--data", SURVEY, "--keys", "sex", "--theta", "nan"), "--theta must be")
    assert_bad_input(run_cli("simulate", "--data", SURVEY, "--method", "pram", "--keys", "sex"), "needs --theta")
    assert_bad_input(run_cli("simulate", "--data", SURVEY, "--method", "noise", "--column", "age", "--target", "max",
                             "--merge", "sex:f=x"), "--merge applies to --method recode, suppress, pram, granularity or swap")
    assert_bad_input(run_cli("risk", "suda", "--data", SURVEY, "--keys", "sex,region", "--merge", "region R01"),
                     "--merge must be VAR:A,B=NEW")


def test_max_risk_is_a_probability_named_by_its_flag_in_memory_and_by_chunks():
    for engine in ("memory", "scale"):
        assert_bad_input(run_cli("protect", "suppress", "--data", SURVEY, "--keys", KEYS, "--max-risk", "1",
                                 "--engine", engine), "--max-risk must be a number in (0, 1), got 1.0")
    assert_bad_input(run_cli("simulate", "--data", SURVEY, "--method", "suppress", "--keys", KEYS, "--k", "1:3",
                             "--risk", "share_above", "--risk-threshold", "1"),
                     "--risk-threshold must be a number in (0, 1), got 1.0")
