"""The release report's measures against independent computations, and its predictions against repeated releases."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from rumap.io.data import BUNDLED_DATA, read_table
from rumap.masking.microaggregation import microaggregate
from rumap.present.release_report import release_report_html, release_report_json
from rumap.release.apply import apply_plan, apply_step
from rumap.release.plan import ReleasePlan, Step
from rumap.release.report import categorical_measures, numeric_measures, predict_step, release_report
from rumap.risk.linkage.distance import TIE_RTOL

SURVEY = read_table(BUNDLED_DATA["survey (synthetic, households and weights)"])


def _brute_force_fk(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """For each record, the records agreeing on every key where both are known (a missing value matches any)."""
    values = frame[keys].to_numpy(dtype=object)
    known = frame[keys].notna().to_numpy()
    n = len(frame)
    fk = np.zeros(n, dtype=int)
    for i in range(n):
        for j in range(n):
            if all(not (known[i, v] and known[j, v]) or values[i, v] == values[j, v] for v in range(len(keys))):
                fk[i] += 1
    return fk


def test_k_anonymity_with_missing_values_against_brute_force():
    rng = np.random.default_rng(4)
    original = pd.DataFrame({"a": rng.choice(list("xyz"), 80), "b": rng.choice(list("pq"), 80),
                             "c": rng.choice(list("rstu"), 80)})
    released = original.copy()
    for column in released:  # missing values the way suppression leaves them
        released.loc[rng.random(80) < 0.15, column] = np.nan
    out = categorical_measures(original, released, ["a", "b", "c"], ks=(2, 3, 4))
    for label, frame in (("before", original), ("after", released)):
        fk = _brute_force_fk(frame, ["a", "b", "c"])
        assert out[label]["k_anonymity_violations"] == {str(k): int((fk < k).sum()) for k in (2, 3, 4)}
        assert out[label]["expected_reidentifications"] == pytest.approx(float((1.0 / fk).sum()))
        assert out[label]["global_risk"] == pytest.approx(float((1.0 / fk).mean()))
    for column in "abc":
        was, now = original[column].notna(), released[column].notna()
        assert out["suppressed"][column] == int((was & ~now).sum())
        assert out["changed"][column] == 0


def test_changed_values_count_pram_changes():
    released = apply_step(SURVEY, Step("pram", {"theta": 0.6}, keys=["sex", "region"], seed=2))[0]
    out = categorical_measures(SURVEY, released, ["sex", "region"])
    for column in ("sex", "region"):
        assert out["changed"][column] == int((SURVEY[column].astype(str) != released[column].astype(str)).sum()) > 0
        assert out["suppressed"][column] == 0


def _brute_force_linkage(x: np.ndarray, y: np.ndarray) -> float:
    """Share of released records whose own original (standardized by the original) is strictly the nearest.

    Strictly: nearer than every other original by the relative tolerance of a tie, ``TIE_RTOL``.
    """
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    a, b = (x - mean) / sd, (y - mean) / sd
    hits = 0
    for i in range(len(b)):
        d = ((a - b[i]) ** 2).sum(axis=1)
        hits += int(d[i] < np.delete(d, i).min() * (1.0 - TIE_RTOL))
    return hits / len(b)


@pytest.mark.parametrize("step", [Step("noise", {"lambda2_frac": 0.05}, columns=["weight", "age"], seed=3),
                                  Step("rankswap", {"swap_percent": 3}, columns=["weight", "age"], seed=3),
                                  Step("microaggregation", {"k": 3}, columns=["weight", "age"])],
                         ids=["noise", "rankswap", "microaggregation"])
def test_numeric_measures_against_hand_computations(step):
    frame = SURVEY.iloc[:400]
    released = apply_step(frame, step)[0]
    out = numeric_measures(frame, released, ["weight", "age"])
    x, y = frame[["weight", "age"]].to_numpy(dtype=float), released[["weight", "age"]].to_numpy(dtype=float)
    assert out["linkage"] == pytest.approx(_brute_force_linkage(x, y))
    sd = x.std(axis=0, ddof=1)  # sd interval disclosure: |x - y| <= 5% of the original's sd
    assert out["interval_sd"] == pytest.approx(float((np.abs(x - y) <= 0.05 * sd).mean()))
    assert out["sse_sst"] == pytest.approx(((x - y) ** 2).sum() / ((x - x.mean(axis=0)) ** 2).sum())
    for j, name in enumerate(["weight", "age"]):
        changed = out["columns_changed"][name]
        assert changed["mean"] == pytest.approx((y[:, j].mean() - x[:, j].mean()) / abs(x[:, j].mean()), abs=1e-12)
        assert changed["variance"] == pytest.approx(y[:, j].var(ddof=1) / x[:, j].var(ddof=1) - 1.0)
    assert out["correlations"]["weight|age"] == pytest.approx(np.corrcoef(y.T)[0, 1] - np.corrcoef(x.T)[0, 1])


def test_sse_sst_of_a_microaggregation_by_hand():
    x = np.array([1.0, 2.0, 4.0, 8.0, 9.0, 20.0])
    frame = pd.DataFrame({"v": x})
    released = apply_step(frame, Step("microaggregation", {"k": 3}, columns=["v"]))[0]
    groups = [x[:3], x[3:]]  # MDAV on sorted univariate data: the three smallest, the three largest
    sse = sum(((g - g.mean()) ** 2).sum() for g in groups)
    sst = ((x - x.mean()) ** 2).sum()
    out = numeric_measures(frame, released, ["v"])
    assert out["sse_sst"] == pytest.approx(sse / sst)
    assert out["sse_sst"] == pytest.approx(microaggregate(x, 3).information_loss)
    assert out["columns_changed"]["v"]["mean"] == pytest.approx(0.0, abs=1e-15)


def test_missing_numeric_values_leave_linkage_out_with_a_note():
    original = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    out = numeric_measures(original, pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0]}), ["a"])
    assert out["linkage"] is None and out["sse_sst"] is None and out["notes"]


def test_a_deterministic_step_equals_its_map():
    step = Step("microaggregation", {"k": 5, "algorithm": "mwa"}, columns=["weight", "age"])
    after = apply_step(SURVEY, step)[0]
    checks, note = predict_step(step, SURVEY, after, replicates=10)
    assert [c.measure for c in checks] == ["record-linkage", "interval-disclosure", "snooper max/index",
                                           "snooper max/position"]
    for c in checks:
        assert c.value == pytest.approx(c.mean) and not c.outside and c.replicates == 1
    assert "deterministic" in note


def test_a_release_compares_k_with_the_records_once(monkeypatch):
    import rumap.masking.microaggregation as micro
    from rumap.errors import InputError
    from rumap.maps.method_records import GridParameter

    compared = []
    original_check, original_microaggregate = GridParameter.check_records, micro.microaggregate

    def check_records(self, values, n_records):
        compared.append(("report", n_records))
        return original_check(self, values, n_records)

    def microaggregate(data, k, *args, **kwargs):  # the step's own comparison of k with n is in microaggregate
        compared.append(("apply", len(data)))
        return original_microaggregate(data, k, *args, **kwargs)

    monkeypatch.setattr(GridParameter, "check_records", check_records)
    monkeypatch.setattr(micro, "microaggregate", microaggregate)
    monkeypatch.setattr("rumap.maps.microaggregation_method.microaggregate", microaggregate)
    frame = pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0, 9.0, 11.0]})
    plan = ReleasePlan((Step("microaggregation", {"k": 3}, columns=("a",)),))
    report = release_report(frame, apply_plan(frame, plan), replicates=2)
    assert compared == [("apply", 6)] and report.steps[0].checks  # the report's map trusts the applied step
    compared.clear()
    predict_step(plan.steps[0], frame, frame, replicates=2)  # a direct call is compared at its entry
    assert compared == [("report", 6)]
    with pytest.raises(InputError, match=r"k must be at most the number of records \(2\), got 3"):
        predict_step(plan.steps[0], frame.iloc[:2], frame.iloc[:2], replicates=2)


@pytest.mark.parametrize("step", [Step("noise", {"lambda2_frac": 0.1}, columns=["weight", "hh_size"]),
                                  Step("rankswap", {"swap_percent": 5}, columns=["weight", "hh_size"]),
                                  Step("pram", {"theta": 0.7}, keys=["sex", "region"])],
                         ids=["noise", "rankswap", "pram"])
def test_the_map_predicts_repeated_releases(step):
    """Over 12 releases with their own seeds: their mean is within 4 SE of the map's, few fall outside its band."""
    frame = SURVEY.iloc[:300]
    values, outside, checks = [], 0, ()
    for seed in range(12):
        seeded = Step(step.method, step.parameters, columns=step.columns, keys=step.keys, seed=seed)
        after = apply_step(frame, seeded)[0]
        checks, _ = predict_step(seeded, frame, after, replicates=20)
        values.append([c.value for c in checks])
        outside += sum(c.outside for c in checks)
    values = np.array(values)
    for j, c in enumerate(checks):
        if c.measure.startswith("snooper"):  # R = 1 / squared error: the squared errors average to 1 / R
            errors = 1.0 / values[:, j]
            assert abs(errors.mean() - 1.0 / c.mean) <= 4 * errors.std(ddof=1) / np.sqrt(12), c.measure
            continue
        spread = values[:, j].std(ddof=1)
        assert abs(values[:, j].mean() - c.mean) <= 4 * spread / np.sqrt(12) + 1e-12, c.measure
        half_width = (c.draw_band[1] - c.draw_band[0]) / 2  # the band of one release: about 2 SD of releases
        assert 0.5 * 1.96 * spread <= half_width <= 2.0 * 1.96 * spread, c.measure
    assert outside <= 0.25 * values.size
    if step.method != "pram":
        assert [c.measure for c in checks][:3] == ["record-linkage", "interval-disclosure", "snooper max/index"]


def test_the_report_of_a_plan_and_its_json_and_html_hold_no_data_value():
    frame = SURVEY.iloc[:500].copy()
    frame["income"] = 1000.0 + np.arange(500) * 7.123456789  # values that would show if the report held them
    plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.1}, columns=["income"], seed=1),
                        Step("microaggregation", {"k": 3}, columns=["income", "weight"]),
                        Step("suppress", {"k": 4}, keys=["age_band", "sex", "region"]),
                        Step("pram", {"theta": 0.8}, keys=["marital"], seed=2)))
    result = apply_plan(frame, plan)
    report = release_report(frame, result, weight="weight", replicates=5)
    data = report.to_dict()
    assert data["numeric"]["columns"] == ["income", "weight"]
    assert data["categorical"]["keys"] == ["age_band", "sex", "region", "marital"]
    assert set(data["categorical"]["after"]["k_anonymity_violations"]) == {"2", "3", "4", "5"}
    assert [len(s["checks"]) for s in data["steps"]] == [4, 4, 0, 1]
    assert data["steps"][2]["summary"]["suppressed"] == sum(data["categorical"]["suppressed"].values())
    assert len(report.to_frame()) == 9
    texts = [release_report_json(report), release_report_html(report)]
    json.loads(texts[0])
    values = {f"{v:.6f}"[:9] for v in frame["income"]} | {f"{v}" for v in result.data["income"].iloc[:50]}
    values |= set(frame["occupation"].dropna().unique()) | {f"{v:.1f}" for v in frame["weight"].iloc[:50]}
    for text in texts:
        leaked = [v for v in values if v in text]
        assert not leaked, leaked[:5]


def test_steps_that_share_a_seed_are_noted():
    plan = ReleasePlan((Step("noise", {"lambda2_frac": 0.1}, columns=["weight"], seed=1),
                        Step("microaggregation", {"k": 3}, columns=["age"]),
                        Step("rankswap", {"swap_percent": 5}, columns=["age"], seed=1),
                        Step("pram", {"theta": 0.8}, keys=["sex"], seed=2)))
    report = release_report(SURVEY, apply_plan(SURVEY, plan), replicates=None)
    assert len(report.notes) == 1 and report.notes[0].startswith("steps 1, 3 share the seed 1")
    assert report.to_dict()["notes"] == list(report.notes) and "share the seed" in release_report_html(report)


def test_a_report_without_predictions_says_so():
    result = apply_plan(SURVEY, ReleasePlan((Step("rankswap", {"swap_percent": 5}, columns=["age"], seed=1),)))
    report = release_report(SURVEY, result, replicates=None)
    assert report.steps[0].checks == () and "not asked" in report.steps[0].prediction
    assert report.categorical == {} and set(report.risk()) == {"numeric"}


def test_pairs_of_columns_each_get_a_correlation_change():
    result = apply_plan(SURVEY, ReleasePlan((Step("noise", {"lambda2_frac": 0.2}, columns=["age", "weight",
                                                                                             "hh_size"], seed=1),)))
    report = release_report(SURVEY, result, replicates=None)
    assert list(report.numeric["correlations"]) == [f"{a}|{b}" for a, b in combinations(["age", "weight",
                                                                                           "hh_size"], 2)]


def _decided_wages() -> tuple[pd.DataFrame, Step]:
    """Hours and weekly wages, and a noise step decided on the wage map's p99 target under a tight R_max."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"hours": rng.normal(38.0, 4.0, 120), "wage": rng.lognormal(6.5, 0.6, 120)})
    origin = {"map": "noise, wages [hours, wage]", "data": "f" * 64, "choice": "picked", "value": 0.05,
              "recommended": 1.6, "max_risk": 1.6e-05, "decision": "upper",
              "binding": {"target": "p99", "knowledge": "index"}, "targets": ["max", "p99"],
              "knowledge": ["index", "position"], "target_column": "wage"}
    return frame, Step("noise", {"lambda2_frac": 0.05}, columns=("hours", "wage"), seed=4, origin=origin)


def test_the_report_states_the_decision_and_flags_every_target_above_r_max(tmp_path):
    from rumap.maps.attacks import resolve_targets

    frame, step = _decided_wages()
    result = apply_plan(frame, ReleasePlan((step,)))
    report = release_report(frame, result, replicates=5)
    (s,) = report.steps
    snooper = {c.measure: c for c in s.checks if c.measure.startswith("snooper")}
    assert sorted(snooper) == ["snooper max/index", "snooper max/position", "snooper p99/index",
                               "snooper p99/position"]  # every target and knowledge state of the map
    wage, released = frame["wage"].to_numpy(), result.data["wage"].to_numpy()
    top, p99 = resolve_targets(["max", "p99"], wage)
    assert snooper["snooper max/index"].value == pytest.approx(1 / (released[top.record] - wage[top.record]) ** 2)
    assert (snooper["snooper max/index"].rank, snooper["snooper p99/index"].rank) == (120, p99.rank)
    assert all(c.max_risk == 1.6e-05 and c.above_bound for c in snooper.values())
    assert not any(c.above_bound for c in s.checks if not c.measure.startswith("snooper"))  # no bound of theirs
    decision = json.loads(release_report_json(report))["steps"][0]["decision"]
    assert {k: decision[k] for k in ("max_risk", "decision", "binding", "recommended", "choice")} == {
        "max_risk": 1.6e-05, "decision": "upper", "binding": {"target": "p99", "knowledge": "index"},
        "recommended": 1.6, "choice": "picked"}
    assert decision["decision_rule"] == "each judged by the upper end of its 95% band"
    assert [(a["measure"], a["rank"]) for a in decision["above_bound"]][2] == ("snooper p99/index", p99.rank)
    page = release_report_html(report)
    assert page.count("<td>no, but above R_max</td>") == sum(not c.outside for c in snooper.values()) > 0
    assert "R_max = 1.6e-05" in page and "binding target p99 under index knowledge" in page
    assert f'color:#b00020;font-weight:bold">Above R_max: snooper p99/index (its target, the record of rank {p99.rank}' \
        in page

    # the command line's --report and its summary say the same
    from cli_helpers import run_cli

    frame.to_csv(tmp_path / "wages.csv", index=False)
    (tmp_path / "plan.json").write_text(ReleasePlan((step,)).to_json())
    proc = run_cli("release", "--data", tmp_path / "wages.csv", "--plan", tmp_path / "plan.json", "--out",
                   tmp_path / "out.csv", "--report", tmp_path / "report.json", "--replicates", "5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("warning: step(s) 1 of the plan were decided on a map of other data than ")
    assert "R_max = 1.6e-05; decision rule: each judged by the upper end" in proc.stdout
    assert f"ABOVE R_max 1.6e-05 (target of rank {p99.rank})" in proc.stdout
    written = json.loads((tmp_path / "report.json").read_text())["steps"][0]
    assert written["decision"]["binding"] == {"target": "p99", "knowledge": "index"}
    assert {c["measure"] for c in written["checks"] if c["above_bound"]} == set(snooper)


def test_disclosure_is_measured_on_every_numeric_column_an_intruder_holds_as_the_linkage_page_does():
    from rumap.release.apply import apply_plan
    from rumap.release.plan import ReleasePlan, Step
    from rumap.release.report import release_report
    from rumap.risk.interval import interval_risk
    from rumap.specs.risk import MaskedRiskSpec

    rng = np.random.default_rng(4)
    original = pd.DataFrame({"wage": rng.lognormal(3, 0.5, 300), "hours": rng.integers(10, 60, 300).astype(float),
                             "region": rng.choice(list("NS"), 300)})
    result = apply_plan(original, ReleasePlan((Step("noise", {"lambda2_frac": 0.5}, columns=["wage"], seed=1),)))
    numeric = release_report(original, result, replicates=None).numeric
    assert numeric["columns"] == ["wage"] and numeric["intruder_columns"] == ["wage", "hours"]
    page = MaskedRiskSpec("original.csv", "masked.csv", keys=("wage", "hours"), method="distance",
                          aggregation="sum_of_squares", columns=("wage", "hours"), interval_method="rank")
    assert numeric["linkage"] == page.linkage(original, result.data).linked_correctly  # the Linkage page's figure
    assert numeric["interval_rank"] == pytest.approx(interval_risk(original[["wage", "hours"]].to_numpy(),
                                                                   result.data[["wage", "hours"]].to_numpy()))
    alone = release_report(original.drop(columns="hours"), apply_plan(original.drop(columns="hours"), ReleasePlan(
        (Step("noise", {"lambda2_frac": 0.5}, columns=["wage"], seed=1),))), replicates=None).numeric
    assert numeric["linkage"] > alone["linkage"]  # the unmasked hours help the intruder
