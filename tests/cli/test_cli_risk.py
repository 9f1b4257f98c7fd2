"""The ``python -m rumap risk`` contract (JSON keys, exit codes, one-line errors)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli, run_cli_subprocess

from rumap.cli import main


def run_main(capsys, *args: str) -> dict:
    """Run the CLI in-process (``rumap.cli.main``, what ``python -m rumap`` runs) and parse its JSON."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("risk")
    rng = np.random.default_rng(0)
    original = pd.DataFrame(rng.normal(size=(400, 3)), columns=["income", "wealth", "age"])
    original["sex"] = rng.choice(["m", "f"], 400)
    masked = original.copy()
    masked[["income", "wealth", "age"]] += rng.normal(scale=0.3, size=(400, 3))
    persons = pd.DataFrame({"age": rng.integers(16, 90, 3000), "sex": rng.choice(["m", "f"], 3000),
                            "marital": rng.choice(list("SMDW"), 3000)})
    paths = {"original": root / "original.csv", "masked": root / "masked.csv", "persons": root / "persons.csv",
             "short": root / "short.csv"}
    original.to_csv(paths["original"], index=False)
    masked.to_csv(paths["masked"], index=False)
    persons.to_csv(paths["persons"], index=False)
    masked.head(10).to_csv(paths["short"], index=False)
    return paths


def test_linkage_json(files, capsys):
    _, out = run_cli("risk", "linkage", "--original", files["original"], "--masked", files["masked"],
                     "--keys", "income,wealth", "--json", check_json=True)
    assert set(out) >= {"method", "n", "linked_correctly"}
    assert out["method"] == "distance" and out["n"] == 400 and 0 < out["linked_correctly"] < 1
    same = run_main(capsys, "risk", "linkage", "--original", files["original"], "--masked", files["original"],
                    "--json")
    assert same["linked_correctly"] == 1.0


def test_linkage_probabilistic_json(files, capsys):
    out = run_main(capsys, "risk", "linkage", "--original", files["original"], "--masked", files["masked"],
                   "--keys", "income,wealth,age", "--method", "probabilistic", "--json")
    assert out["method"] == "probabilistic" and out["n"] == 400 and 0 <= out["linked_correctly"] <= 1
    assert len(out["m"]) == 3


def test_linkage_text(files, capsys):
    assert main(["risk", "linkage", "--original", str(files["original"]), "--masked", str(files["masked"])]) == 0
    assert "linked correctly" in capsys.readouterr().out


def test_interval_json(files, capsys):
    _, out = run_cli("risk", "interval", "--original", files["original"], "--masked", files["masked"],
                     "--columns", "income,age", "--p", "5", "--json", check_json=True)
    assert set(out) >= {"p", "n", "risk"} and out["p"] == 5 and out["n"] == 400 and 0 < out["risk"] < 1
    default = run_main(capsys, "risk", "interval", "--original", files["original"], "--masked", files["masked"],
                       "--json")
    assert default["p"] == 10 and set(default["columns"]) == {"income", "wealth", "age"}
    sd = run_main(capsys, "risk", "interval", "--original", files["original"], "--masked", files["masked"],
                  "--method", "sd", "--json")
    assert sd["method"] == "sd" and sd["p"] == 5


def test_identity_from_figures_reproduces_mokken(capsys):
    _, out = run_cli("risk", "identity", "--f", "0.01", "--a", "1000", "--fu", "0.001", "--json", check_json=True)
    assert out["risk"] == pytest.approx(9.95e-3, abs=5e-6)  # Table 1
    multi = run_main(capsys, "risk", "identity", "--f", "0.001", "--a", "300", "--fu", "0.001", "--N", "63624",
                     "--investigators", "1000", "--json")
    assert round(multi["risk"], 6) == 0.061143  # Section 4
    assert main(["risk", "identity", "--f", "0.001", "--a", "30", "--fu", "0.001", "--N", "63624"]) == 0
    assert "risk: 2.99996e-05" in capsys.readouterr().out


def test_identity_from_data_json(files, capsys):
    _, out = run_cli("risk", "identity", "--data", files["persons"], "--key", "age,sex,marital", "--N", "100000",
                     "--a", "500", "--max-risk", "0.01", "--json", check_json=True)
    assert set(out) >= {"n", "sample_uniques", "population_uniques", "f_u", "risk", "f_max"}
    assert out["n"] == 3000 and out["sample_uniques"] >= 0 and 0 <= out["risk"] <= 1 and 0 < out["f_max"] <= 1
    assert out["f_u"] == pytest.approx(out["population_uniques"] / 100000)
    no_bound = run_main(capsys, "risk", "identity", "--data", files["persons"], "--key", "age,sex", "--N",
                        "100000", "--a", "500", "--json")
    assert no_bound["f_max"] is None


def test_identity_reads_keys_as_the_other_commands_and_key_still(files, capsys):
    args = ["--data", files["persons"], "--N", "100000", "--a", "500", "--json"]
    assert run_main(capsys, "risk", "identity", "--keys", "age,sex", *args) == \
        run_main(capsys, "risk", "identity", "--key", "age,sex", *args)


def test_suda_and_individual_apply_the_merges_first(tmp_path, capsys):
    from rumap.masking.categorical import recode
    from rumap.risk.individual import individual_risk
    from rumap.risk.suda import suda2

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"education": rng.integers(1, 7, 300), "sex": rng.choice(["m", "f"], 300),
                          "region": rng.integers(1, 12, 300)})
    path = tmp_path / "coded.csv"
    frame.to_csv(path, index=False)
    merges = ["education: 1, 2, 3 = low", "region:1,2,3,4=north"]
    recoded = recode(frame, {"education": {"1": "low", "2": "low", "3": "low"},
                             "region": {"1": "north", "2": "north", "3": "north", "4": "north"}})
    flags = [part for merge in merges for part in ("--merge", merge)]
    out = run_main(capsys, "risk", "suda", "--data", path, "--keys", "education,sex,region", *flags, "--json")
    plain = run_main(capsys, "risk", "suda", "--data", path, "--keys", "education,sex,region", "--json")
    expected = suda2(recoded, ["education", "sex", "region"])
    assert out["special_uniques"] == expected.special_uniques != plain["special_uniques"]
    assert out["score"] == expected.score.tolist()
    out = run_main(capsys, "risk", "individual", "--data", path, "--keys", "education,sex,region", *flags, "--json")
    assert out["expected_reidentifications"] == pytest.approx(
        individual_risk(recoded, ["education", "sex", "region"]).expected_reidentifications)


@pytest.mark.parametrize("args, fragments", [
    (["linkage", "--original", "nope.csv", "--masked", "nope.csv"], ["nope.csv", "no such file"]),
    (["linkage", "--original", "{original}", "--masked", "{short}"], ["400 rows", "10"]),
    (["linkage", "--original", "{original}", "--masked", "{masked}", "--keys", "income,zip"], ["no column 'zip'"]),
    (["linkage", "--original", "{original}", "--masked", "{masked}", "--method", "fuzzy"], ["invalid choice"]),
    (["interval", "--original", "{original}", "--masked", "{masked}", "--p", "0"], ["p must be a number in (0, 100]"]),
    (["interval", "--original", "{original}", "--masked", "{masked}", "--columns", "sex"], ["'sex' is not numeric"]),
    (["identity", "--f", "0.01", "--a", "10"], ["--fu"]),
    (["identity", "--f", "2", "--a", "10", "--fu", "0.001"], ["f must be", "2"]),
    (["identity", "--f", "0.01", "--a", "10", "--fu", "0.001", "--investigators", "5"], ["--investigators needs --N"]),
    (["identity", "--data", "{persons}", "--key", "age", "--a", "10"], ["--N"]),
    (["identity", "--data", "{persons}", "--key", "age,height", "--N", "1e5", "--a", "10"], ["no column 'height'"]),
    (["identity", "--data", "{persons}", "--key", "age", "--N", "100", "--a", "10"], ["sample size n = 3000"]),
    (["identity", "--data", "{persons}", "--key", "age", "--N", "1e5", "--a", "10", "--max-risk", "3"],
     ["max_risk must be"]),
])
def test_bad_input_exits_2_with_one_line(files, args, fragments, capsys):
    # in-process (rumap.cli.main is what ``python -m rumap`` runs); two cases below run as a subprocess
    code = main(["risk", *[a.format(**files) for a in args]])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2 and len(lines) == 1, captured.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_bad_input_as_a_subprocess(files):
    assert_bad_input(run_cli_subprocess("risk", "linkage", "--original", files["original"], "--masked", files["short"]),
                     "400 rows")
    assert_bad_input(run_cli_subprocess("risk"), "MEASURE")


def test_linkage_ties_share(tmp_path, capsys):
    frame = pd.DataFrame({"a": [0.0, 1.0, 10.0, 11.0]})
    masked = pd.DataFrame({"a": [0.5, 0.5, 10.5, 10.5]})  # midpoints: every record ties with another
    frame.to_csv(tmp_path / "o.csv", index=False)
    masked.to_csv(tmp_path / "m.csv", index=False)
    strict = run_main(capsys, "risk", "linkage", "--original", tmp_path / "o.csv", "--masked", tmp_path / "m.csv",
                      "--json")
    shared = run_main(capsys, "risk", "linkage", "--original", tmp_path / "o.csv", "--masked", tmp_path / "m.csv",
                      "--ties", "share", "--json")
    assert strict["linked_correctly"] == 0.0 and strict["n_tied"] == 4
    assert shared["linked_correctly"] == 0.5 and shared["tie_credit"] == 2.0
