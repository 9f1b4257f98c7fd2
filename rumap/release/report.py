"""The release report: the file actually released measured against the original, beside the maps' predictions.

Numeric columns (those of the plan's numeric steps):

- ``linkage``: share of released records whose nearest original, by
  distance-based linkage on every such column (standardized with the original's
  mean and standard deviation), is their own (:func:`rumap.risk.linkage.distance_linkage`);
- ``interval_rank``, ``interval_sd``: interval disclosure, the share of
  original values inside a rank interval of 10% of the records, or within 5% of
  a standard deviation, around the released value (:mod:`rumap.risk.interval`);
- ``sse_sst``: ``sum (x - y)^2 / sum (x - mean x)^2`` over the columns, the
  information loss ``L = SSE / SST`` of microaggregation (Mas, Eq 1) when the
  plan is one microaggregation, and the same ratio for any other method;
- per column the relative change of the mean and of the variance, and per pair
  of columns the change of the correlation.

Categorical keys (those of the plan's categorical steps), before and after:
global risk and expected re-identifications (:func:`rumap.risk.individual.individual_risk`),
records violating k-anonymity (a missing value matches any value, as in
sdcMicro); suppressions and changed values per variable.

Each step with an R-U map (noise, microaggregation, rank swapping, PRAM) is set
beside a small simulation of its map (for the numeric methods: record linkage,
interval disclosure, and the snooper's risk ``1 / squared error`` for the
targets (default ``max``) of the step's first column under the knowledge
states ``index`` and ``position``) at the step's parameter value with the
step's settings, on the data the step got: the map's mean and its 95% band
(``mean +- 1.96 SE``, as the map draws it), and the 95% prediction interval of
one release, ``mean +- t(0.975, M - 1) SD sqrt(1 + 1/M)`` with SD = SE sqrt(M)
the spread of the M simulated releases. A release is one draw, not a mean: it
is flagged when it lies outside the prediction interval of one release.

The report holds counts, shares, changes and intervals of measures, never a
value of the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import InstanceOf, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.release.apply import STEP_METHODS, ReleaseResult, unreached
from rumap.release.plan import Step
from rumap.release.prediction import BAND_Z, SNOOPER_KNOWLEDGE, SNOOPER_TARGETS, MeasureCheck  # noqa: F401 (kept here)
from rumap.result import json_safe

__all__ = ["MeasureCheck", "StepReport", "ReleaseReport", "numeric_measures", "categorical_measures",
           "predict_step", "release_report", "step_decision", "ANONYMITY_KS", "SNOOPER_TARGETS"]

#: The k of the k-anonymity violations the report counts (and each suppression step's own k).
ANONYMITY_KS = (2, 3, 5)
@dataclass(frozen=True)
class StepReport:
    """One step of the release: what it did, and its measures beside its map's prediction.

    Parameters
    ----------
    step : Step
    summary : dict
        The step's counts (:class:`rumap.release.apply.StepOutcome`).
    checks : tuple of MeasureCheck
        Its measures beside the map (empty for a method without a simulated map).
    prediction : str
        How the prediction was made, or why there is none.
    decision : dict
        The decision that set the step's value, from the map it came from (:func:`step_decision`; empty for a
        step written by hand).
    """

    step: Step
    summary: dict
    checks: tuple[MeasureCheck, ...] = ()
    prediction: str = ""
    decision: dict = field(default_factory=dict)

    @property
    def above_bound(self) -> tuple[MeasureCheck, ...]:
        """The checks whose released risk exceeds the map's R_max."""
        return tuple(c for c in self.checks if c.above_bound)

    @property
    def what_it_did(self) -> str:
        """The step's summary in words, as its method words it ("" when it does not)."""
        words = STEP_METHODS[self.step.method].summary_words
        return words(self.summary) if words is not None and self.summary else ""

    def to_dict(self) -> dict[str, Any]:
        """The step (a plan entry), its summary, checks, the prediction's note and the decision behind it."""
        return {"step": self.step.to_dict(), "summary": dict(self.summary),
                "checks": [c.to_dict() for c in self.checks], "prediction": self.prediction,
                "decision": dict(self.decision)}


@dataclass(frozen=True)
class ReleaseReport:
    """The released file measured against the original.

    Parameters
    ----------
    rows : int
    numeric : dict
        :func:`numeric_measures` of the plan's numeric columns (empty without any).
    categorical : dict
        :func:`categorical_measures` of the plan's keys (empty without any).
    steps : tuple of StepReport
    table : dict
        The table a plan built and protected (:meth:`rumap.release.tables.TableState.summary`:
        suppressed cells, the audit interval of each primary, the cost), empty without one.
    notes : tuple of str
        What a reader should know about the plan (steps that share a seed draw the same random numbers).
    unreached : tuple of str
        The goals steps did not reach, and why (:func:`rumap.release.apply.unreached`): the released file is
        not protected as those steps asked.
    """

    rows: int
    numeric: dict = field(default_factory=dict)
    categorical: dict = field(default_factory=dict)
    steps: tuple[StepReport, ...] = ()
    table: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    unreached: tuple[str, ...] = ()

    def risk(self) -> dict[str, Any]:
        """The risk measures of the released file (numeric and categorical)."""
        out: dict[str, Any] = {}
        if self.numeric:
            out["numeric"] = {k: self.numeric.get(k) for k in ("linkage", "interval_rank", "interval_sd")}
        if self.categorical:
            out["categorical"] = {"before": self.categorical["before"], "after": self.categorical["after"]}
        if self.table:
            out["table"] = {k: v for k, v in self.table.items() if k in ("primary", "suppressed", "secondary",
                                                                          "protected", "audit", "max_risk")}
        return out

    def utility(self) -> dict[str, Any]:
        """The information loss of the released file (numeric and categorical)."""
        out: dict[str, Any] = {}
        if self.numeric:
            out["numeric"] = {k: self.numeric.get(k) for k in ("sse_sst", "columns_changed", "correlations")}
        if self.categorical:
            out["categorical"] = {k: self.categorical[k] for k in ("suppressed", "changed")}
        if self.table:
            out["table"] = {k: v for k, v in self.table.items() if k in ("cost", "optimal", "total_absolute_deviation",
                                                                          "max_absolute_deviation")}
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every measure, JSON-ready; no value of the data."""
        return json_safe({"rows": self.rows, "numeric": self.numeric, "categorical": self.categorical,
                          "table": self.table, "steps": [s.to_dict() for s in self.steps], "risk": self.risk(),
                          "utility": self.utility(), "notes": list(self.notes), "unreached": list(self.unreached)})

    def to_frame(self) -> pd.DataFrame:
        """One row per check of a step against its map: step, method, measure, value, mean, bands, flag."""
        rows = [{"step": i + 1, "method": s.step.method, **c.to_dict()} for i, s in enumerate(self.steps)
                for c in s.checks]
        return pd.DataFrame(rows, columns=["step", "method", "measure", "value", "mean", "band", "draw_band",
                                           "replicates", "outside"])


def _relative(after: float, before: float) -> float | None:
    if not (np.isfinite(after) and np.isfinite(before)):
        return None
    return float((after - before) / abs(before)) if before != 0 else (0.0 if after == 0 else None)


@validate_params({"original": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "released": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"original": pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]}),
                                  "released": pd.DataFrame({"a": [1.5, 1.5, 6.0, 6.0]}), "columns": ["a"]})
def numeric_measures(original: pd.DataFrame, released: pd.DataFrame, columns: Sequence[str],
                     budget: WorkBudget = DEFAULT_BUDGET, intruder: Sequence[str] | None = None) -> dict[str, Any]:
    """Risk and information loss of released numeric columns against the original ones.

    Parameters
    ----------
    original, released : DataFrame
        The same records before and after protection (row i of ``released``
        is record i of ``original``).
    columns : sequence of str
        The numeric columns compared.
    budget : WorkBudget
        Limits the linkage's work.
    intruder : sequence of str, optional
        The numeric columns an intruder holds of the released file, masked or
        not (default: ``columns``): record linkage and interval disclosure are
        measured on them, as the Linkage page measures them by default; the
        information loss stays on ``columns``.

    Returns
    -------
    dict
        ``intruder_columns``, ``linkage``, ``interval_rank``, ``interval_sd``, ``sse_sst`` (None with
        the reason in ``notes`` when a column has missing values),
        ``columns_changed`` (per column the relative change of the mean and
        variance) and ``correlations`` (per pair, the change).

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]})
    >>> out = numeric_measures(original, pd.DataFrame({"a": [1.5, 1.5, 6.0, 6.0]}), ["a"])
    >>> round(out["sse_sst"], 4), out["columns_changed"]["a"]["mean"]
    (0.2957, 0.0)
    """
    from rumap.risk.interval import interval_risk, sdid_risk
    from rumap.risk.linkage import distance_linkage

    names = list(columns)
    if original.shape[0] != released.shape[0]:
        raise InputError("the original and released files must have the same records")
    x = original[names].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    y = released[names].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    held = list(dict.fromkeys([*names, *(intruder or ())]))
    xi = original[held].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    yi = released[held].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    out: dict[str, Any] = {"columns": names, "intruder_columns": held, "linkage": None, "interval_rank": None,
                           "interval_sd": None, "sse_sst": None, "notes": []}
    complete = np.isfinite(xi).all() and np.isfinite(yi).all()
    if complete:
        out["linkage"] = distance_linkage(xi, yi, budget=budget).linked_correctly
        out["interval_rank"] = interval_risk(xi, yi)
        out["interval_sd"] = sdid_risk(xi, yi)
        sst = float(((x - x.mean(axis=0)) ** 2).sum())
        out["sse_sst"] = float(((x - y) ** 2).sum()) / sst if sst > 0 else None
    else:
        out["notes"].append("a numeric column has missing values: linkage, interval disclosure and SSE/SST "
                            "need complete columns")
    out["columns_changed"] = {
        name: {"mean": _relative(float(np.nanmean(y[:, j])), float(np.nanmean(x[:, j]))),
               "variance": _relative(float(np.nanvar(y[:, j], ddof=1)), float(np.nanvar(x[:, j], ddof=1)))}
        for j, name in enumerate(names)}
    change = (pd.DataFrame(y).corr() - pd.DataFrame(x).corr()).to_numpy()  # pairwise complete
    out["correlations"] = {f"{names[a]}|{names[b]}": float(change[a, b]) if np.isfinite(change[a, b]) else None
                           for a, b in combinations(range(len(names)), 2)}
    return out


def _numeric_in_both(original: pd.DataFrame, released: pd.DataFrame, name: Any) -> bool:
    """Whether a column is numbers (not booleans) in the original and in the released file."""
    return all(pd.api.types.is_numeric_dtype(f[name]) and not pd.api.types.is_bool_dtype(f[name])
               for f in (original, released))


def _as_text(frame: pd.DataFrame, name: str) -> np.ndarray:
    column = frame[name]
    text = column.map(lambda v: str(int(v)) if isinstance(v, float) and v.is_integer() else str(v),
                      na_action="ignore")
    return text.to_numpy(dtype=object)


@validate_params({"original": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "released": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "weight": [None, InstanceOf(str, "a column name")], "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"original": pd.DataFrame({"s": ["f", "f", "m"]}),
                                  "released": pd.DataFrame({"s": ["f", "f", None]}), "keys": ["s"]})
def categorical_measures(original: pd.DataFrame, released: pd.DataFrame, keys: Sequence[str],
                         weight: str | None = None, ks: Sequence[int] = ANONYMITY_KS,
                         budget: WorkBudget = DEFAULT_BUDGET) -> dict[str, Any]:
    """Disclosure risk on categorical keys before and after, suppressions and changed values per variable.

    Parameters
    ----------
    original, released : DataFrame
        The same records before and after protection.
    keys : sequence of str
        The key variables.
    weight : str, optional
        Sampling weight column (for the individual risk).
    ks : sequence of int
        The k of the k-anonymity violations counted.
    budget : WorkBudget

    Returns
    -------
    dict
        ``before`` and ``after`` (``global_risk``, ``expected_reidentifications``,
        ``k_anonymity_violations`` by k: records whose key value, a missing value
        matching any, is shared by fewer than k records), ``suppressed`` (values
        present before and missing after) and ``changed`` (present in both and
        different) per variable.

    Examples
    --------
    >>> import pandas as pd
    >>> out = categorical_measures(pd.DataFrame({"s": ["f", "f", "m"]}), pd.DataFrame({"s": ["f", "f", None]}), ["s"])
    >>> out["after"]["k_anonymity_violations"], out["suppressed"]
    ({'2': 0, '3': 0, '5': 3}, {'s': 1})
    """
    from rumap.risk.individual import individual_risk

    names = list(keys)
    if original.shape[0] != released.shape[0]:
        raise InputError("the original and released files must have the same records")
    out: dict[str, Any] = {"keys": names}
    for label, frame in (("before", original), ("after", released)):
        risk = individual_risk(frame, names, weight=weight, budget=budget)
        out[label] = {"global_risk": risk.global_risk, "expected_reidentifications": risk.expected_reidentifications,
                      "k_anonymity_violations": {str(k): int((risk.fk < k).sum()) for k in ks}}
    out["suppressed"], out["changed"] = {}, {}
    for name in names:
        was, now = original[name].notna().to_numpy(), released[name].notna().to_numpy()
        out["suppressed"][name] = int((was & ~now).sum())
        both = was & now
        out["changed"][name] = int((_as_text(original, name)[both] != _as_text(released, name)[both]).sum())
    return out

def __getattr__(name: str) -> Any:
    """``PREDICTORS``: how each step method's map is simulated at its parameter, from the records of the methods
    registered now (:attr:`rumap.release.methods.StepMethod.predictor`); methods without a simulated map are
    absent. Each is ``predictor(before, after, step, replicates, budget, targets, applied=...)``; ``applied``
    says the step was applied to ``before``, which compared its value with the number of records once."""
    if name == "PREDICTORS":
        return {method: record.predictor for method, record in STEP_METHODS.items() if record.predictor is not None}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@validate_params({"step": InstanceOf(Step), "before": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "after": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "replicates": "replicates",
                  "budget": InstanceOf(WorkBudget), "targets": InstanceOf((list, tuple), "a list of target names")},
                 example=lambda: {"step": Step("rankswap", {"swap_percent": 20.0}, columns=("a",), seed=1),
                                  "before": pd.DataFrame({"a": np.arange(20.0)}),
                                  "after": pd.DataFrame({"a": np.arange(20.0)}), "replicates": 5})
def predict_step(step: Step, before: pd.DataFrame, after: pd.DataFrame, replicates: int = 50,
                 budget: WorkBudget = DEFAULT_BUDGET, targets: Sequence[str] = SNOOPER_TARGETS) -> tuple[tuple[MeasureCheck, ...], str]:
    """A step's measures on its release beside its map simulated at the step's parameter.

    Parameters
    ----------
    step : Step
    before, after : DataFrame
        The data the step got and the data it gave.
    replicates : int
        Simulated releases behind the prediction.
    budget : WorkBudget
    targets : sequence of str
        The snooper's targets on the step's first column (``max``, ``min``,
        ``pXX``, ``row:I``; :func:`rumap.maps.attacks.parse_target`).

    Returns
    -------
    checks : tuple of MeasureCheck
        Empty when the method has no simulated map.
    note : str
        How the prediction was made, or why there is none.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from rumap.release.apply import apply_step
    >>> step = Step("noise", {"lambda2_frac": 0.5}, columns=("a",), seed=2)
    >>> before = pd.DataFrame({"a": np.random.default_rng(0).normal(size=200)})
    >>> after, _ = apply_step(before, step)
    >>> checks, note = predict_step(step, before, after, replicates=20)
    >>> [c.measure for c in checks][:3], checks[0].draw_band[0] <= checks[0].mean <= checks[0].draw_band[1]
    (['record-linkage', 'interval-disclosure', 'snooper max/index'], True)
    """
    return _predict(step, before, after, replicates, budget, targets, applied=False)


def _predict(step: Step, before: pd.DataFrame, after: pd.DataFrame, replicates: int, budget: WorkBudget,
             targets: Sequence[str], applied: bool) -> tuple[tuple[MeasureCheck, ...], str]:
    """:func:`predict_step` of checked arguments (``applied``: as the records' predictors take it)."""
    record = STEP_METHODS[step.method]
    if record.predictor is None:
        return (), record.no_prediction
    return record.predictor(before, after, step, replicates, budget, targets, applied=applied)


@validate_params({"step": InstanceOf(Step), "checks": InstanceOf((list, tuple), "a list of MeasureCheck")},
                 example=lambda: {"step": Step("pram", {"theta": 0.8}, keys=("s",), origin={"max_risk": 0.1})})
def step_decision(step: Step, checks: Sequence[MeasureCheck] = ()) -> dict[str, Any]:
    """The decision that set a step's value, as the report states it: empty for a step written by hand.

    Parameters
    ----------
    step : Step
        A step whose ``origin`` names the map it came from (:data:`rumap.release.plan.ORIGIN_KEYS`).
    checks : sequence of MeasureCheck
        The step's checks against its map.

    Returns
    -------
    dict
        The origin's keys, ``decision_rule`` (the rule in words, :data:`rumap.maps.recommend.DECISIONS`) and
        ``above_bound``: each check whose released risk exceeds R_max (measure, value, R_max, rank).

    Examples
    --------
    >>> step = Step("noise", {"lambda2_frac": 0.5}, columns=("a",), seed=2,
    ...             origin={"max_risk": 2.0, "decision": "upper", "binding": {"target": "p99", "knowledge": "index"}})
    >>> d = step_decision(step, [MeasureCheck("snooper p99/index", 3.0, 1.5, (1, 2), (0.5, 2.5), 20, 2.0, 99)])
    >>> d["decision_rule"], d["above_bound"][0]["rank"]
    ('each judged by the upper end of its 95% band', 99)
    """
    from rumap.maps.recommend import DECISIONS

    if step.origin is None:
        return {}
    out = dict(step.origin)
    out["decision_rule"] = DECISIONS.get(str(out.get("decision", "")), None)
    out["above_bound"] = [{"measure": c.measure, "value": c.value, "max_risk": c.max_risk, "rank": c.rank}
                          for c in checks if c.above_bound]
    return out


def _union(steps: Sequence[Step], target: str, every: Sequence[str] = ()) -> list[str]:
    """The names the steps on ``target`` name or are measured on (``every``, the data's columns, for a step that
    names none)."""
    names: dict[str, None] = {}
    for step in steps:
        record = STEP_METHODS[step.method]
        if record.target == target:
            names.update(dict.fromkeys((record.measured(step) if record.measured else step.names) or every))
    return list(names)


@validate_params({"original": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "result": InstanceOf(ReleaseResult),
                  "weight": [None, InstanceOf(str, "a column name")],
                  "replicates": [None, "prediction_replicates"],
                  "budget": InstanceOf(WorkBudget), "targets": InstanceOf((list, tuple), "a list of target names")},
                 example=lambda: _report_example())
def release_report(original: pd.DataFrame, result: ReleaseResult, weight: str | None = None,
                   replicates: int | None = 50, budget: WorkBudget = DEFAULT_BUDGET,
                   targets: Sequence[str] = SNOOPER_TARGETS) -> ReleaseReport:
    """The report of a release: the released file against the original, each step beside its map.

    Parameters
    ----------
    original : DataFrame
        The data the plan was applied to.
    result : ReleaseResult
        :func:`rumap.release.apply.apply_plan` of it.
    weight : str, optional
        Sampling weight column for the risk on categorical keys.
    replicates : int or None, default 50
        Simulated releases per step for the maps' predictions; None leaves the
        predictions out.
    budget : WorkBudget
    targets : sequence of str, default ("max",)
        The snooper's targets beside the maps of the numeric steps.

    Returns
    -------
    ReleaseReport

    Examples
    --------
    >>> report = release_report(**_report_example())
    >>> round(report.numeric["sse_sst"], 4), report.steps[0].checks[0].outside
    (0.2957, False)
    """
    steps = [o.step for o in result.outcomes]
    microdata_steps = [s for s in steps if STEP_METHODS[s.method].stage == "microdata"]
    columns, keys = _union(microdata_steps, "columns", list(original.columns)), _union(microdata_steps, "keys")
    ks = sorted({*ANONYMITY_KS, *(s.parameters[STEP_METHODS[s.method].anonymity] for s in steps
                                  if STEP_METHODS[s.method].anonymity)})
    released = result.microdata
    # an intruder holds every numeric column of the released file, masked or not (as the Linkage page measures)
    intruder = [c for c in released.columns if c in original.columns and _numeric_in_both(original, released, c)]
    columns = [c for c in columns if _numeric_in_both(original, released, c)]  # a synthesis step names every column
    numeric = numeric_measures(original, released, columns, budget=budget, intruder=intruder) if columns else {}
    categorical = categorical_measures(original, released, keys, weight=weight, ks=ks, budget=budget) \
        if keys else {}
    reports = []
    outputs = [*result.inputs[1:], result.table if result.table is not None else result.data]
    for outcome, before, after in zip(result.outcomes, result.inputs, outputs, strict=True):
        if replicates is None:
            checks, note = (), "predictions not asked for"
        else:
            try:
                # the result is apply_plan's: each step was applied to ``before`` (k compared with its records)
                checks, note = _predict(outcome.step, before, after, replicates, budget, targets, applied=True)
            except InputError as exc:
                checks, note = (), f"no prediction: {exc}"
        reports.append(StepReport(outcome.step, dict(outcome.summary), checks, note,
                                  step_decision(outcome.step, checks)))
    table = result.table.summary() if result.table is not None else {}
    return ReleaseReport(int(result.data.shape[0]), numeric, categorical, tuple(reports), table,
                         _shared_seeds(steps), tuple(unreached(steps, [o.summary for o in result.outcomes])))


def _shared_seeds(steps: Sequence[Step]) -> tuple[str, ...]:
    """A note for each seed that several steps drawing random numbers share."""
    by_seed: dict[int, list[int]] = {}
    for i, step in enumerate(steps):
        if STEP_METHODS[step.method].random:
            by_seed.setdefault(int(step.seed or 0), []).append(i + 1)
    return tuple(f"steps {', '.join(map(str, numbers))} share the seed {seed}: they draw the same random numbers, "
                 "so their perturbations are not independent (and a step's map prediction assumes they are); "
                 "give each step its own seed" for seed, numbers in by_seed.items() if len(numbers) > 1)


def _report_example() -> dict[str, Any]:
    from rumap.release.apply import apply_plan
    from rumap.release.plan import ReleasePlan

    original = pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]})
    plan = ReleasePlan((Step("microaggregation", {"k": 2}, columns=("a",)),))
    return {"original": original, "result": apply_plan(original, plan), "replicates": 2}

