"""The cell key method on magnitude tables against a cell-by-cell transcription of cellKey's R code.

``_reference`` follows cellKey 1.0's ``.perturb_cell_flex`` / ``.perturb_cell_simple``, ``.lookup_v_flex`` and
``.scramble_ckeys`` line by line, one cell at a time, each cell's records found by brute force from its codes;
the perturbation table is R's own (ptable 1.0.0's ``create_num_ptable(D = 5, V = 2, step = 4, icat = c(1, 3, 5))``,
``tests/data/ckm/ptable_nums.csv``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.errors import InputError
from rumap.tables.cellkey_nums import _r_text, cellkey_magnitude_table, magnitude_params, scramble_keys
from rumap.tables.hierarchy import read_hrc
from rumap.tables.ptable import read_ptable

DATA = Path(__file__).resolve().parent.parent / "data" / "ckm"
PTABLE = read_ptable(pd.read_csv(DATA / "ptable_nums.csv"))
HRC = "N\n@N1\n@N2\nS\n@S1\n@S2\n"


def _micro() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 60
    x = np.round(rng.lognormal(3.0, 1.2, n), 2)
    x[rng.choice(n, 8, replace=False)] = 0.0  # records that contribute nothing
    x[rng.choice(n, 4, replace=False)] *= -1  # losses
    x[:8] = [90.0, -90.0, 90.0, 90.0, 60.0, -60.0, 60.0, 60.0]  # ties of |x|: the weight ranks them
    region = rng.choice(["N1", "N2", "S1", "S2"], n, p=[0.5, 0.3, 0.12, 0.08])
    x[region == "S2"] = -np.abs(x[region == "S2"])  # an area of losses: negative cells
    return pd.DataFrame({"region": region, "sex": rng.choice(["m", "f"], n), "x": x,
                         "w": np.round(rng.uniform(1, 5, n), 1), "rk": np.round(rng.random(n), 8)})


# --- the reference: cellKey's R functions, one cell at a time --------------------------------------------------

def _scramble(ck: float, top_k: int, same_key: bool) -> list[float]:
    text = _r_text(ck)
    beg, size = text[:2], len(text)
    res = [text]
    if not same_key:
        ss = text[3:size]
        res[0] = beg + ("0" if ss == "" else ss) + text[2:3]
    for i in range(1, top_k):
        res.append(beg + res[i - 1][3:size] + res[i - 1][2:3])
    return [float(r) for r in res]


def _row_v(i: float, key: float) -> float:
    rows = PTABLE.rows[PTABLE.rows["i"] == i]
    return float(rows[key < rows["p_int_ub"]]["v"].iloc[0])


def _lookup_v(key: float, a: float) -> float:
    if key == 0:
        return 0.0
    poss = sorted(set(PTABLE.rows["i"]))
    a = min(a, max(poss))
    if a in poss:
        return _row_v(a, key)
    a0 = max(p for p in poss if p < a)
    a1 = min(p for p in poss if p > a)
    lam = (a - a0) / (a1 - a0)
    return (1 - lam) * _row_v(a0, key) + lam * _row_v(a1, key)


def _perturb_cell(cv: float, x: list[float], ck: list[float], prot_req: bool, p: dict) -> float:
    if ck[0] == 0 or cv == 0:
        return cv
    mu = p["mu_c"] if prot_req else 0.0
    xo = cv
    sign_xo = 1 if xo >= 0 else -1
    for j, xj in enumerate(x):
        if xo == 0:
            break  # cellKey divides 0 by 0 here
        if p["multiplier"] == "flex":
            if abs(xj) < p["fp"]:
                x_delta = xj * p["p_small"]
            else:
                f1 = (p["p_small"] * abs(xj) - p["p_large"] * p["fp"]) / (p["p_large"] * p["fp"])
                m = p["p_large"] * (1 + f1 * ((2 * p["fp"]) / (p["fp"] + abs(xj))) ** p["q"])
                x_delta = xj * m * p["epsilon"][j]
        else:
            x_delta = xj * p["p"] * p["epsilon"][j]
        if abs(xo) < abs(x_delta):
            x_delta = xo
        a = abs(xo / x_delta) if x_delta != 0 else math.inf
        v = _lookup_v(ck[j], a)
        sign_v = 1 if v >= 0 else -1
        x_hat = sign_xo * abs(x_delta) * (sign_v * (mu + abs(v)))
        if sign_v == -1:
            if sign_xo == -1:
                x_hat = min(x_hat, -xo)
            elif sign_xo > sign_v:
                x_hat = max(x_hat, -xo)
        xo = xo + x_hat
        sign_xo = 1 if xo >= 0 else -1
    return xo


def _reference(frame: pd.DataFrame, p: dict, weight: str | None, sensitive_n: int | None) -> dict:
    parent = {"N1": "N", "N2": "N", "S1": "S", "S2": "S"}
    out = {}
    w_all = frame[weight].to_numpy() if weight else np.ones(len(frame))
    for region in ["Total", "N", "N1", "N2", "S", "S1", "S2"]:
        for sex in ["Total", "f", "m"]:
            rows = [r for r in range(len(frame))
                    if region in ("Total", frame["region"].iat[r], parent[frame["region"].iat[r]])
                    and sex in ("Total", frame["sex"].iat[r])]
            x = [float(frame["x"].iat[r]) for r in rows]
            w = [float(w_all[r]) for r in rows]
            cv = sum(a * b for a, b in zip(x, w, strict=True))
            keys = [r for r in rows if p["use_zero_rkeys"] or frame["x"].iat[r] != 0]
            ck = sum(round(frame["rk"].iat[r] * 1e8) for r in keys) % 10**8 / 1e8
            ranked = sorted(range(len(rows)), key=lambda i: (-abs(x[i]), -w[i], rows[i]))
            if p["type"] == "top_contr":
                mags = [x[i] * w[i] for i in ranked[:p["top_k"]]]
            elif p["type"] == "mean":
                mags = [cv / sum(w) if rows else 0.0]
            elif p["type"] == "range":
                mags = [max(x) - min(x) if rows else 0.0]
            else:
                mags = [cv]
            prot = sensitive_n is not None and len(rows) <= sensitive_n
            out[(region, sex)] = _perturb_cell(cv, mags, _scramble(ck, p["top_k"], p["same_key"]), prot, p)
    return out


CASES = {  # magnitude_params' arguments, weight, cells of at most N records sensitive
    "flex-top3-scrambled-weighted": (dict(type="top_contr", top_k=3, fp=40.0, p_small=0.3, p_large=0.04, q=2.0,
                                          epsilon=[1.0, 0.6, 0.2], same_key=False), "w", None),
    "flex-top2-zero-keys-mu": (dict(type="top_contr", top_k=2, fp=15.0, epsilon=[1.0, 0.5], use_zero_rkeys=True,
                                    mu_c=2.0), None, 6),
    "flex-top4-mu-weighted": (dict(type="top_contr", top_k=4, fp=50.0, epsilon=[1.0, 0.8, 0.5, 0.5], mu_c=4.0),
                              "w", 40),
    "flex-rescaled-clamped": (dict(type="top_contr", top_k=2, fp=20.0, p_small=1.0, p_large=0.5, q=1.0,
                                   epsilon=[1.0, 1.0], mu_c=1.0), None, 100),  # |x_delta| > |xo|, v < 0 cut at 0
    "simple-top1": (dict(type="top_contr", multiplier="simple", p=0.08), "w", None),
    "flex-mean": (dict(type="mean", fp=30.0), None, None),
    "simple-range": (dict(type="range", multiplier="simple", p=0.05, mu_c=1.0), "w", 10),
    "flex-sum": (dict(type="sum", fp=500.0, q=4.0), None, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_magnitude_cells_equal_cellkeys_algorithm_cell_by_cell(name):
    arguments, weight, sensitive_n = CASES[name]
    frame = _micro()
    params = magnitude_params(**arguments)
    hierarchies = {"region": read_hrc(HRC)}
    plain = cellkey_magnitude_table(frame, ["region", "sex"], "x", PTABLE, params, hierarchies, record_key="rk",
                                    weight=weight)
    sensitive = plain.counts <= sensitive_n if sensitive_n is not None else None
    result = cellkey_magnitude_table(frame, ["region", "sex"], "x", PTABLE, params, hierarchies, record_key="rk",
                                     weight=weight, sensitive=sensitive)
    expected = _reference(frame, {**params.to_dict(), "epsilon": list(params.epsilon)}, weight, sensitive_n)
    got = result.to_frame(original=True)
    assert len(got) == len(expected) == 21
    for row in got.itertuples(index=False):
        assert row.value == pytest.approx(expected[(row.region, row.sex)], rel=1e-12, abs=1e-9), (row.region, row.sex)
    assert np.count_nonzero(result.perturbation) >= 10  # most cells perturbed
    if sensitive_n is not None and params.mu_c:  # mu_c moves the sensitive cells further
        moved = np.abs(result.perturbation) - np.abs(plain.perturbation)
        assert (moved[sensitive & (result.values != 0)] > 0).any()


def test_scrambled_keys_rotate_the_digits_as_r_writes_them():
    # as.character() of R 4: 15 significant digits, scientific when shorter
    assert [_r_text(x) for x in (0.0000123, 0.0001, 0.0001234, 0.375589049999974, 0.1 + 0.2, 0.5)] == \
        ["1.23e-05", "1e-04", "0.0001234", "0.375589049999974", "0.3", "0.5"]
    assert scramble_keys(0.12345678, 3, False) == [0.23456781, 0.34567812, 0.45678123]
    assert scramble_keys(0.5, 3, False) == [0.05, 0.0, 0.0]
    assert scramble_keys(0.0000123, 2, True) == [0.0000123, 1.3e-52]  # "1.23e-05" -> "1.3e-052"
    assert scramble_keys(0.37558905, 6, True) == _scramble(0.37558905, 6, True)


def test_cli_magnitude_table_and_its_refusals(tmp_path):
    micro = tmp_path / "micro.csv"
    _micro().to_csv(micro, index=False)
    hrc = tmp_path / "region.hrc"
    hrc.write_text(HRC)
    base = ("table", "ckm", "--microdata", micro, "--dims", "region,sex", "--hierarchy", f"region={hrc}",
            "--record-key", "rk", "--max-perturbation", "5", "--variance", "2")
    _, doc = run_cli(*base, "--value-column", "x", "--step", "4", "--icat", "1,3,5", "--flex-point", "40",
                     "--top-k", "2", "--epsilon", "1,0.5", "--mu-c", "2", "--sensitive-frequency", "5",
                     "--show-original", "--json", check_json=True)
    params = magnitude_params(top_k=2, fp=40.0, epsilon=[1.0, 0.5], mu_c=2.0)
    direct = cellkey_magnitude_table(_micro(), ["region", "sex"], "x", PTABLE, params, {"region": read_hrc(HRC)},
                                     record_key="rk")
    direct_sensitive = direct.counts <= 5
    direct = cellkey_magnitude_table(_micro(), ["region", "sex"], "x", PTABLE, params, {"region": read_hrc(HRC)},
                                     record_key="rk", sensitive=direct_sensitive)
    assert [c["value"] for c in doc["cells"]] == pytest.approx(direct.published.tolist(), rel=1e-12)
    assert set(doc) == {"cells", "additivity", "ptable", "config"} and doc["config"]["magnitude"]["top_k"] == 2
    assert {"sum", "count", "cell_key", "perturbation", "value"} <= set(doc["cells"][0])
    json.dumps(doc)
    assert_bad_input(run_cli(*base, "--top-k", "2"), "--top-k applies to a magnitude table")
    assert_bad_input(run_cli(*base, "--value-column", "x", "--js", "1", "--flex-point", "4"), "--js")
    assert_bad_input(run_cli(*base, "--value-column", "x"), "--flex-point FP", "--percentage P")
    assert_bad_input(run_cli(*base, "--value-column", "x", "--flex-point", "4", "--top-k", "7"), "--top-k")
    assert_bad_input(run_cli(*base, "--value-column", "x", "--flex-point", "4", "--top-k", "2"), "epsilon")
    assert_bad_input(run_cli(*base, "--value-column", "sex", "--flex-point", "4"), "--value-column 'sex'")


def test_bad_parameters_are_refused():
    with pytest.raises(InputError, match="top_k applies to type top_contr"):
        magnitude_params("mean", 2, fp=1.0)
    with pytest.raises(InputError, match="p_small .* must not be below p_large"):
        magnitude_params(fp=1.0, p_small=0.01, p_large=0.2)
    with pytest.raises(InputError, match="epsilon must start at 1"):
        magnitude_params(top_k=2, fp=1.0, epsilon=[1.0, 1.5])
    with pytest.raises(InputError, match="simple multiplier needs its percentage"):
        magnitude_params(multiplier="simple")
    with pytest.raises(InputError, match="perturbation table of magnitudes"):
        from rumap.tables.ptable import create_ptable

        cellkey_magnitude_table(_micro(), ["sex"], "x", create_ptable(3, 1.0), magnitude_params(fp=1.0))
