"""How a step's release is set beside its map simulated at the step's parameter: the records' predictors.

:attr:`rumap.release.methods.StepMethod.predictor` of a masking method of the maps' engine
(``_numeric_prediction``) and of PRAM (``_pram_prediction``); each measure of the release beside the
map's mean is a :class:`MeasureCheck`. :func:`rumap.release.report.predict_step` calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import DataMatrix
from rumap.budget import WorkBudget
from rumap.release.methods import Step, step_methods

__all__ = ["MeasureCheck", "BAND_Z", "SNOOPER_TARGETS", "SNOOPER_KNOWLEDGE"]

#: Half-width of the bands in standard errors (as the maps draw them).
BAND_Z = 1.96


@dataclass(frozen=True)
class MeasureCheck:
    """A measure of the released draw beside the map's prediction at the step's parameter.

    Parameters
    ----------
    measure : str
        The measure's name (a key of :data:`rumap.risk.measures.DATASET_RISK_MEASURES`
        or of :data:`rumap.maps.categorical_measures.CATEGORICAL_RISKS`).
    value : float
        The measure on this release.
    mean : float
        The map's mean at the parameter.
    band : tuple of float
        The map's 95% band of the mean, ``mean +- 1.96 SE``.
    draw_band : tuple of float
        The 95% prediction interval of one release (module docstring).
    replicates : int
        Simulated releases behind the prediction.
    max_risk : float, optional
        R_max of the map the step came from, for a measure that map bounded (None: no bound).
    rank : int, optional
        The 1-based rank of the snooper's target record in the attacked column (a snooper's check only).
    """

    measure: str
    value: float
    mean: float
    band: tuple[float, float]
    draw_band: tuple[float, float]
    replicates: int
    max_risk: float | None = None
    rank: int | None = None

    @property
    def outside(self) -> bool:
        """Whether this release lies outside the spread of single releases."""
        tolerance = 1e-9 * max(1.0, abs(self.mean))
        return bool(self.value < self.draw_band[0] - tolerance or self.value > self.draw_band[1] + tolerance)

    @property
    def above_bound(self) -> bool:
        """Whether this release's risk exceeds the R_max of the map the step came from."""
        return self.max_risk is not None and bool(self.value > self.max_risk)

    def to_dict(self) -> dict[str, Any]:
        """Measure, value, mean, bands, replicates and the flags; R_max and the target's rank where known."""
        return {"measure": self.measure, "value": self.value, "mean": self.mean, "band": list(self.band),
                "draw_band": list(self.draw_band), "replicates": self.replicates, "outside": self.outside,
                "max_risk": self.max_risk, "above_bound": self.above_bound, "rank": self.rank}


# --- predictions: each step's measures beside a small simulation of its map -----------------------------------

def _check(measure: str, value: float, mean: float, se: float, runs: int) -> MeasureCheck:
    """A measure beside a simulated map's mean and standard error over ``runs`` releases."""
    from scipy.stats import t

    spread = se * np.sqrt(runs) * t.ppf(0.975, runs - 1) * np.sqrt(1.0 + 1.0 / runs) if runs > 1 else 0.0

    def share(low: float, high: float) -> tuple[float, float]:  # every measure here is a share, in [0, 1]
        return float(max(low, 0.0)), float(min(high, 1.0))

    return MeasureCheck(measure, float(value), mean, share(mean - BAND_Z * se, mean + BAND_Z * se),
                        share(mean - spread, mean + spread), runs)


#: The snooper the report sets beside the map by default: the target ``max`` and the knowledge states of the
#: maps' defaults, on the step's first column.
SNOOPER_TARGETS = ("max",)
SNOOPER_KNOWLEDGE = ("index", "position")


def _snooper_checks(x: np.ndarray, y: np.ndarray, maps: Sequence[Any], runs: int,
                    names: Sequence[str], knowledge_states: Sequence[str] = SNOOPER_KNOWLEDGE, column: int = 0,
                    max_risk: float | None = None) -> list[MeasureCheck]:
    """The snooper's risk ``1 / squared error`` on this release beside the map's ``R = 1 / MSE`` (Eq 12).

    One release's squared error e is compared with the map's: mean ``1 / R`` and spread ``SD(e) = SE(R)
    sqrt(M) / R^2`` (the delta method of :func:`rumap.maps.attacks.risk_estimate`, undone); its prediction
    interval, as for the other measures and at least 0, is carried to the scale of R. Every target and
    knowledge state is checked on the attacked ``column``, each with its target's rank and ``max_risk``.
    """
    from scipy.stats import t

    from rumap.maps.attacks import attack_squared_errors, resolve_targets

    targets = resolve_targets(list(names), x[:, column])
    errors = attack_squared_errors(y[:, column][None], targets, list(knowledge_states))[0]
    checks = []
    for i, target in enumerate(names):
        for j, knowledge in enumerate(knowledge_states):
            m = next(m for m in maps if m.target == target and m.knowledge == knowledge)
            risk = float(m.risk[0])
            se = float(m.risk_se[0]) if m.risk_se is not None else 0.0
            error = float(errors[i * len(knowledge_states) + j])
            value = 1.0 / error if error > 0 else float("inf")
            if not (np.isfinite(risk) and risk > 0 and np.isfinite(se)):
                if max_risk is not None:  # an exact snooper: no spread, but the bound still judges the release
                    checks.append(MeasureCheck(f"snooper {target}/{knowledge}", value, risk, (risk, risk),
                                               (risk, risk), runs, max_risk, int(targets[i].rank)))
                continue
            mse, sd = 1.0 / risk, se * np.sqrt(runs) / risk**2
            spread = sd * t.ppf(0.975, runs - 1) * np.sqrt(1.0 + 1.0 / runs) if runs > 1 else 0.0
            low, high = max(mse - spread, 0.0), mse + spread
            checks.append(MeasureCheck(
                f"snooper {target}/{knowledge}", value, risk,
                (max(risk - BAND_Z * se, 0.0), risk + BAND_Z * se),
                (1.0 / high if high > 0 else float("inf"), 1.0 / low if low > 0 else float("inf")), runs,
                max_risk, int(targets[i].rank)))
    return checks


def _map_snooper(step: Step, targets: Sequence[str]) -> tuple[list[str], list[str], int, float | None]:
    """The targets, knowledge states, attacked column and R_max the report checks a numeric step against: the
    report's own, with every target and knowledge state of the map the step came from (``step.origin``)."""
    origin = step.origin or {}
    names = list(dict.fromkeys([*targets, *origin.get("targets", ())]))
    knowledge = list(dict.fromkeys([*SNOOPER_KNOWLEDGE, *origin.get("knowledge", ())]))
    attacked = origin.get("target_column")
    column = list(step.columns).index(attacked) if attacked in (step.columns or ()) else 0
    bound = origin.get("max_risk")
    by_targets = bool(origin.get("targets")) and not origin.get("risk_measures")
    return names, knowledge, column, float(bound) if by_targets and bound is not None else None


def _numeric_prediction(before: pd.DataFrame, after: pd.DataFrame, step: Step, replicates: int,
                        budget: WorkBudget, targets: Sequence[str] = SNOOPER_TARGETS,
                        applied: bool = False) -> tuple[tuple[MeasureCheck, ...], str]:
    """The map of a numeric step at its value; ``applied``: the step was applied to ``before`` (which compared
    its value with the number of records, microaggregation's k <= n), so the simulation trusts it."""
    from rumap.io.data import numeric_columns
    from rumap.maps.methods import METHODS
    from rumap.maps.simulation import SimulationConfig, simulate_kernel
    from rumap.risk.measures import DATASET_RISK_MEASURES

    x = DataMatrix(min_rows=2).check("data", numeric_columns(before, list(step.columns), source="the step's data"))
    y = numeric_columns(after, list(step.columns), source="the released data")
    method = step_methods()[step.method].map_method
    options, value = METHODS[method].map_options(dict(step.parameters), step.columns)
    names, knowledge, column, snooper_bound = _map_snooper(step, targets)
    origin = step.origin or {}
    bounded = set(origin.get("risk_measures", ())) if origin.get("max_risk") is not None else set()
    measures = tuple(dict.fromkeys(["record-linkage", "interval-disclosure", *origin.get("risk_measures", ())]))
    config = SimulationConfig(method=method, values=(value,), method_options=options, targets=tuple(names),
                              knowledge=tuple(knowledge), target_column=column, risk_measures=measures,
                              replicates=replicates, seed=step.seed or 0)
    if not applied:
        config.check_records(x.shape[0])
    result = simulate_kernel(x, config, budget=budget)
    runs = 1 if config.deterministic else replicates
    checks = []
    for name in measures:
        m = next(m for m in result.maps if m.knowledge == name)
        mean, se = float(m.risk[0]), float(m.risk_se[0]) if m.risk_se is not None else 0.0
        check = _check(name, DATASET_RISK_MEASURES[name].measure(x, y), mean, se, runs)
        checks.append(replace(check, max_risk=float(origin["max_risk"])) if name in bounded else check)
    checks += _snooper_checks(x, y, result.maps, runs, config.targets, knowledge, column, snooper_bound)
    how = (f"the map at this {config.parameter} (deterministic: one run)" if config.deterministic
           else f"the map at this value, {replicates} simulated releases")
    return tuple(checks), how


def _pram_prediction(before: pd.DataFrame, after: pd.DataFrame, step: Step, replicates: int,
                     budget: WorkBudget, targets: Sequence[str] = SNOOPER_TARGETS,
                     applied: bool = False) -> tuple[tuple[MeasureCheck, ...], str]:
    from rumap.maps.categorical import pram_map, pram_reidentification

    m = pram_map(before, list(step.keys), [step.parameters["theta"]], replicates=replicates, seed=step.seed or 0,
                 budget=budget)
    check = _check("key_matching", pram_reidentification(before, after, list(step.keys)), float(m.risk[0]),
                   float(m.risk_se[0]), replicates)
    return (check,), f"the map at this theta, {replicates} simulated releases"
