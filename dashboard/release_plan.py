"""The session's release plan: the steps applied from the maps, kept in memory, and the "Apply" widget.

Every map page calls :func:`apply_controls` (through ``keep_controls``): for a
map whose masking is a release step (:func:`rumap.release.from_map.step_from_spec`)
it offers the recommended value, or another of the grid's, and "Apply" adds
the step to the plan. The Release page lists, reorders, removes and undoes the
steps and releases the session's data through the core
(:func:`rumap.release.apply.apply_plan`, :func:`rumap.release.report.release_report`).
Nothing is written to disk: the plan, the protected file and the report live in
the session and leave only by download.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.widget_memory import keep_shown
from rumap.errors import InputError
from rumap.fingerprint import config_digest
from rumap.io.data import BUNDLED_DATA, WRITERS
from rumap.maps.methods import METHODS
from rumap.maps.recommend import Recommendation
from rumap.present.commands import shown_path
from rumap.present.plotting import PARAMETER_SYMBOLS
from rumap.release.apply import STEP_METHODS, ReleaseResult
from rumap.release.from_map import (
    KEY_MAP_STEPS,
    TABLE_SWEEPS,
    decimals_of,
    map_origin,
    recode_step,
    step_from_key_map,
    step_from_spec,
    step_from_synthetic,
    table_steps,
    with_origin,
    with_precision,
)
from rumap.release.plan import ReleasePlan, Step, read_plan
from rumap.release.report import ReleaseReport, release_report
from rumap.release.spec import ReleaseSpec
from rumap.specs import Analysis, EmpiricalSpec
from rumap.specs.synthetic import SyntheticSpec

PLAN = "rumap_release_plan"
HISTORY = "rumap_release_history"
RELEASED = "rumap_release_result"

#: Formats the Release page offers besides the upload's own.
OFFERED_FORMATS = (".csv", ".parquet")


def steps() -> list[Step]:
    """The session's release plan, in order (empty when nothing was applied).

    Returns
    -------
    list of Step
    """
    return list(st.session_state.get(PLAN, []))


def set_steps(new: list[Step]) -> None:
    """Replace the plan, keeping the previous one for :func:`undo`.

    Parameters
    ----------
    new : list of Step
    """
    st.session_state.setdefault(HISTORY, []).append(steps())
    st.session_state[PLAN] = list(new)


def remove(index: int) -> None:
    """Remove the step at ``index`` (0-based).

    Parameters
    ----------
    index : int
    """
    current = steps()
    set_steps(current[:index] + current[index + 1:])


def move(index: int, by: int) -> None:
    """Move the step at ``index`` up (``by=-1``) or down (``by=1``); nothing happens at an end.

    Parameters
    ----------
    index : int
    by : int
    """
    current = steps()
    other = index + by
    if 0 <= other < len(current):
        current[index], current[other] = current[other], current[index]
        set_steps(current)


def undo() -> bool:
    """Go back to the plan before the last change.

    Returns
    -------
    bool
        Whether there was a change to undo.
    """
    history = st.session_state.get(HISTORY) or []
    if not history:
        return False
    st.session_state[PLAN] = history.pop()
    return True


def load_plan(content: bytes) -> ReleasePlan:
    """Make an uploaded plan file the session's plan (the previous one can be undone).

    Parameters
    ----------
    content : bytes
        The plan file's bytes (:func:`rumap.release.plan.read_plan`).

    Returns
    -------
    ReleasePlan
    """
    plan = read_plan(content)
    set_steps(list(plan.steps))
    return plan


def _shown_parameter(name: str, value: Any) -> str:
    """``name = value``, a float in short form, a recoding (``{VAR: {old: new}}``) as its groups."""
    if isinstance(value, float):
        return f"{name} = {value:g}"
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        groups = []
        for variable, merge in value.items():
            members: dict[str, list[str]] = {}
            for old, new in merge.items():
                members.setdefault(str(new), []).append(str(old))
            groups.append(f"{variable}: " + "; ".join(
                f"{new} ← {', '.join(olds) if len(olds) <= 4 else f'{olds[0]} … {olds[-1]} ({len(olds)} values)'}"
                for new, olds in members.items()))
        return f"{name} = {{{' | '.join(groups)}}}"
    return f"{name} = {value}"


def describe(step: Step) -> str:
    """One line: the method, the parameters it uses (not the unset ones), its columns or keys and its seed.

    Parameters
    ----------
    step : Step

    Returns
    -------
    str
    """
    parameters = dict(step.parameters)
    record = METHODS.get(STEP_METHODS[step.method].map_method or "")
    for name in record.idle_options(parameters) if record is not None else ():  # e.g. unequal noise's, unused
        parameters.pop(name, None)
    shown = ", ".join(_shown_parameter(k, v) for k, v in parameters.items()
                      if v is not None and v is not False and v != {})
    names = ", ".join(step.names)
    seed = "" if step.seed is None else f", seed {step.seed}"
    return f"{step.method} ({shown})" + (f" on {names}" if names else "") + seed


def _recommendation(analysis: Analysis) -> Recommendation | None:
    """The map's recommendation under its own bound, or None when it has none (no bound, no safe value)."""
    try:
        chosen = analysis.recommendation()
    except InputError:
        return None
    if chosen is None or not chosen.feasible or chosen.value is None or not math.isfinite(float(chosen.value)):
        return None
    return chosen


def map_fingerprint(analysis: Analysis) -> str | None:
    """The fingerprint of the table the map was drawn on: a page's map records it in its settings, an empirical
    map's selection was chosen from the session's data (:func:`dashboard.state.fingerprint_of`); None: unknown.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    str or None
    """
    settings = getattr(analysis.spec, "settings", None) or {}
    if settings.get("fingerprint"):
        return str(settings["fingerprint"])
    return state.fingerprint_of(getattr(getattr(analysis.spec, "data", None), "digest", None))


def _step_maker(analysis: Analysis) -> Callable[[float], list[Step]] | None:
    """The steps at a value of the analysis's map, or None for a map whose masking is no release step."""
    spec = analysis.spec
    if not analysis.maps:
        return None
    if isinstance(spec, EmpiricalSpec):
        return lambda value: [step_from_spec(spec, value)]
    if isinstance(spec, SyntheticSpec):
        return lambda value: [step_from_synthetic(spec, value)]
    settings = getattr(spec, "settings", {}) or {}
    if len(analysis.maps) != 1:
        return None
    curve = analysis.maps[0]
    if getattr(spec, "page", None) == "tables" and "sweep" in settings:
        from dashboard.table_protection import SWEEPS

        if settings.get("layers") is not None:  # a plan's table spans rows and columns only
            return None
        sweep = dict(zip(SWEEPS, TABLE_SWEEPS, strict=True))[settings["sweep"]]
        return lambda value: list(table_steps(
            settings["rows"], settings.get("columns"), settings["rule"], dict(settings.get("params") or {}), sweep,
            value, response=settings.get("response"), shadow=settings.get("shadow"),
            protection=float(settings.get("protection", 10.0)), cost=settings.get("cost", "value")))
    if curve.method not in KEY_MAP_STEPS or not settings.get("keys"):
        return None
    recoded = recode_step(list(settings.get("merges") or ()))  # the recoding the map was drawn after, first
    return lambda value: [*([recoded] if recoded is not None else []),
                          step_from_key_map(curve, list(settings["keys"]), value, variable=settings.get("variable"),
                                            seed=int(settings.get("seed", 0)))]


def _precision_offer(analysis: Analysis, key: str) -> int | None:
    """For a map whose step can round its released values, offer the data's decimals; the decimals chosen, or None.

    The released values of noise have every decimal a float holds (a wage in cents comes back with 18); the
    step's record names the parameter that rounds them (``precision``), and this box offers it at the
    decimals of the map's columns in the session's data, stating what it does.
    """
    spec = analysis.spec
    if not isinstance(spec, EmpiricalSpec) or not any(
            r.precision for r in STEP_METHODS.values() if r.map_method == spec.simulation.method):
        return None
    data = state.loaded_data()
    columns = list(spec.data.columns)
    if data is None or not set(columns) <= set(map(str, data.frame.columns)):
        return None
    decimals = decimals_of(data.frame[columns].to_numpy(dtype=float))
    if decimals is None:
        return None
    keep_shown(f"{key}_apply_round", True)
    if st.checkbox(f"Round the released values to {decimals} decimal{'s' if decimals != 1 else ''}, as the data",
                   key=f"{key}_apply_round",
                   help="the map's noise has every decimal a computer keeps; rounding to the data's precision "
                        "changes each value by at most half a unit of its last decimal"):
        return decimals
    st.caption(f"Released with every decimal of the noise, where the data have {decimals}.")
    return None


def apply_controls(analysis: Analysis, key: str) -> None:
    """"Apply": add the map on screen to the release plan, at its recommended value or the point the user picks.

    Drawn only for a map whose masking is a release step: an empirical map of
    a method whose record has one (noise, microaggregation, rank swapping), a map of categorical keys
    (local suppression, banding, PRAM; after the recoding the map was drawn with), or a map of a table built
    from microdata (its table, primaries and protection: three steps).

    The selector belongs to the map drawn: a new map (other settings, data or recommendation) sets it to
    its recommended value, so no value chosen under an earlier map is released. Each step records its
    origin (:func:`rumap.release.from_map.map_origin`): the map, the fingerprint of its data, whether its
    value was recommended or picked, and the decision behind it.

    Parameters
    ----------
    analysis : Analysis
        The map shown.
    key : str
        Prefix of the widgets' keys (``{key}_apply_value``, ``{key}_apply``).
    """
    make = _step_maker(analysis)
    if make is None:
        return
    grid = sorted({float(v) for m in analysis.maps for v in m.values})
    chosen = _recommendation(analysis)
    recommended = None if chosen is None else float(chosen.value)
    if recommended is not None and recommended not in grid:
        grid = sorted({*grid, recommended})
    parameter = analysis.maps[0].parameter
    parameter = PARAMETER_SYMBOLS.get(parameter, parameter or "value")
    label = {v: f"{v:g}" + (" (recommended)" if v == recommended else "") for v in grid}
    drawn = config_digest({"spec": analysis.spec.to_dict(), "grid": grid, "recommended": recommended})
    value_key, drawn_key = f"{key}_apply_value", f"{key}_apply_for"
    if st.session_state.get(drawn_key) != drawn or st.session_state.get(value_key) not in (*grid, None):
        st.session_state[drawn_key] = drawn  # a new map: its selector starts at its recommendation, or empty
        st.session_state[value_key] = recommended
    else:
        keep_shown(value_key, recommended)  # the pick on this map, sent with the widget again
    cols = st.columns([3, 1], vertical_alignment="bottom")
    value = cols[0].selectbox(f"Release at {parameter}", grid, format_func=label.get, key=value_key,
                              placeholder="no recommended value: pick one")
    if chosen is None:
        st.caption("This map has no recommended value" + (" (none meets its R_max)" if getattr(
            analysis.spec, "max_risk", None) is not None else "") + ": pick the value to apply; the plan says "
                   "it was picked.")
    decimals = _precision_offer(analysis, key)
    if cols[1].button("Apply", key=f"{key}_apply", help="add this masking to the release plan (Release page)"):
        if value is None:
            st.warning("Pick the value to apply first: this map recommends none.")
            return
        try:
            origin = map_origin(analysis, float(value), chosen, map_fingerprint(analysis))
            made = with_origin(with_precision(make(value), decimals), origin)
        except InputError as exc:
            st.error(str(exc))
            return
        set_steps([*steps(), *made])
        picked = "" if origin["choice"] == "recommended" else " (picked, not the recommended value)"
        st.toast(f"Added to the release plan: {'; '.join(describe(step) for step in made)}{picked}. "
                 f"{len(steps())} step(s).")
        data = state.loaded_data()
        absent = [n for step in made for n in step.names if data is None or n not in data.frame.columns]
        source = getattr(analysis.spec, "data", None)
        if getattr(source, "kind", None) == "server":  # released from where it lies, its path given there
            st.caption("The Release page releases the file on the server when its path is given there.")
        elif absent:
            st.warning(f"The Release page applies the plan to the session's data"
                       f"{'' if data is None else ' (' + data.name + ')'}, which has no column "
                       f"{', '.join(absent)}: load the data of this map on the Data page.")
    if steps():
        st.caption(f"Release plan: {len(steps())} step(s); see the Release page.")


def origin_line(step: Step) -> str:
    """Where a step came from, in words: its map, recommended or picked, and the fingerprint of the map's data.

    Parameters
    ----------
    step : Step
        A step of the session's plan.

    Returns
    -------
    str
        "" for a step without an origin (written by hand or loaded from a plan file without one).
    """
    origin = step.origin
    if not origin:
        return ""
    choice = ("its recommended value" if origin.get("choice") == "recommended"
              else "a value picked by the user" + (f" (recommended {origin['recommended']:g})"
                                                   if origin.get("recommended") is not None else ""))
    data = f"data fingerprint {origin['data'][:12]}" if origin.get("data") else "data of unknown fingerprint"
    return f"from the map {origin.get('map', '(unnamed)')}, at {choice}; {data}"


def other_data(plan: list[Step], fingerprint: str) -> list[int]:
    """The 1-based numbers of the steps whose map was drawn on other data than ``fingerprint``'s.

    Parameters
    ----------
    plan : list of Step
    fingerprint : str
        The fingerprint of the data the plan is about to be applied to.

    Returns
    -------
    list of int
    """
    return [i + 1 for i, step in enumerate(plan)
            if step.origin and step.origin.get("data") and step.origin["data"] != fingerprint]


def checks_frame(report: ReleaseReport) -> pd.DataFrame:
    """Each step's measures beside its map, one row each, the bands as numbers (NaN: no bound that side).

    Parameters
    ----------
    report : ReleaseReport

    Returns
    -------
    DataFrame
        ``step``, ``method``, ``measure``, ``released`` (the draw's value), ``map mean``, ``one release from``,
        ``to``, ``replicates``, ``outside``; for a step whose map had a bound, ``R_max``, the target's
        ``rank`` and ``above R_max``.
    """
    rows = []
    for i, s in enumerate(report.steps):
        bounded = any(c.max_risk is not None for c in s.checks)
        for c in s.checks:
            low, high = (float("nan") if v is None or not math.isfinite(v) else float(v) for v in c.draw_band)
            rows.append({"step": i + 1, "method": s.step.method, "measure": c.measure, "released": float(c.value),
                         "map mean": float(c.mean), "one release from": low, "to": high,
                         "replicates": int(c.replicates), "outside": bool(c.outside),
                         **({"R_max": float("nan") if c.max_risk is None else float(c.max_risk),
                             "rank": c.rank, "above R_max": c.above_bound} if bounded else {})})
    return pd.DataFrame(rows)


def data_file_name(kind: str, name: str) -> str:
    """The file of the session's data: the bundled file's path as commands show it, or the upload's name.

    Parameters
    ----------
    kind : {"bundled", "upload"}
    name : str
        The data set's name in the session.

    Returns
    -------
    str
    """
    if kind == "bundled" and name in BUNDLED_DATA:
        return shown_path(BUNDLED_DATA[name])
    return PurePath(name).name


def out_names(file_name: str) -> list[str]:
    """The protected file's names offered: the upload's format first, then CSV and Parquet.

    Parameters
    ----------
    file_name : str
        The data file's name.

    Returns
    -------
    list of str
    """
    path = PurePath(file_name)
    own = path.suffix.lower()
    formats = ([own] if own in WRITERS else []) + [f for f in OFFERED_FORMATS if f != own]
    return [f"{path.stem}_protected{f}" for f in formats]


@dataclass(frozen=True)
class Release:
    """A plan applied to the session's data: the result, the report and what each step left."""

    plan: ReleasePlan
    out_name: str
    result: ReleaseResult
    report: ReleaseReport
    after_steps: pd.DataFrame
    content: bytes


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[prefix] = value


#: Words for the report's measure names in the table of the Release page.
MEASURE_WORDS = {
    "linkage": "share linked to their own record", "interval_rank": "interval disclosure (rank)",
    "interval_sd": "interval disclosure (sd)", "sse_sst": "SSE/SST", "columns_changed": "change",
    "global_risk": "global risk", "expected_reidentifications": "expected re-identifications",
    "k_violations": "records violating k-anonymity", "total_absolute_deviation": "total absolute deviation",
    "max_absolute_deviation": "largest absolute deviation", "max_risk": "largest risk",
}


#: The report's ``utility()`` measures that are losses (0 is no change; more is worse), labelled as such.
LOSSES = frozenset({"sse_sst", "columns_changed", "correlations", "total_absolute_deviation",
                    "max_absolute_deviation"})


def measure_label(path: str) -> str:
    """A column of :func:`after_each_step` in words: ``utility.numeric.sse_sst`` reads ``information loss: SSE/SST``.

    A utility measure that is a loss (:data:`LOSSES`: more means less utility) is named a loss.

    Parameters
    ----------
    path : str
        ``risk.…`` or ``utility.…``, the report's keys joined by dots.

    Returns
    -------
    str
    """
    kind, *rest = path.split(".")
    if kind == "utility" and LOSSES.intersection(rest):
        kind = "information loss"
    parts = [MEASURE_WORDS.get(p, p.replace("_", " ")) for p in rest if p not in ("numeric", "categorical", "table")]
    return f"{kind}: {', '.join(parts)}" if parts else kind


def after_each_step(frame: pd.DataFrame, result: ReleaseResult) -> pd.DataFrame:
    """Risk and utility of the data after each step (one row per step), from the core's report.

    Parameters
    ----------
    frame : DataFrame
        The original data.
    result : ReleaseResult
        The plan applied (:func:`rumap.release.apply.apply_plan`).

    Returns
    -------
    DataFrame
        ``step``, ``method``, then the numbers of the report's ``risk()`` and
        ``utility()`` of the release that stops after the step (``risk.`` and
        ``utility.`` before their paths).
    """
    rows = []
    n = len(result.outcomes)
    for k in range(1, n + 1):
        state = result.table if k == n and result.table is not None else (result.inputs[k] if k < n else result.data)
        if isinstance(state, pd.DataFrame):
            prefix = ReleaseResult(state, result.outcomes[:k], result.inputs[:k])
        else:
            prefix = ReleaseResult(state.to_frame(), result.outcomes[:k], result.inputs[:k], table=state)
        report = release_report(frame, prefix, replicates=None)
        row: dict[str, Any] = {"step": k, "method": result.outcomes[k - 1].step.method}
        _flat("risk", report.risk(), row)
        _flat("utility", report.utility(), row)
        rows.append(row)
    return pd.DataFrame(rows)


def release(frame: pd.DataFrame, source: str, plan: ReleasePlan, out_name: str, replicates: int | None = 50) -> Release:
    """Apply the plan to the data as ``python -m rumap release`` does, in memory (:class:`~rumap.release.spec.ReleaseSpec`).

    Parameters
    ----------
    frame : DataFrame
        The session's data.
    source : str
        Its name, for messages.
    plan : ReleasePlan
    out_name : str
        The protected file's name; its extension is the format, and between
        steps the data pass through it as the command line's do.
    replicates : int or None
        Simulated releases per step for the maps' predictions (None: none).

    Returns
    -------
    Release
    """
    spec = ReleaseSpec(plan, source, out_name, replicates=replicates)
    result = spec.run(frame)
    return Release(plan, out_name, result, spec.released_report(frame, result), after_each_step(frame, result),
                   spec.content(result))


def cached_release(digest: str, frame: pd.DataFrame, source: str, plan: ReleasePlan, out_name: str,
                   replicates: int = 50) -> Release:
    """:func:`release`, kept in the session for the same data, plan and file name (one at a time).

    Parameters
    ----------
    digest : str
        The data's digest.
    frame, source, plan, out_name, replicates
        As :func:`release`.

    Returns
    -------
    Release
    """
    key = (digest, plan.to_json(), out_name, replicates)
    kept = st.session_state.get(RELEASED)
    if kept is not None and kept[0] == key:
        return kept[1]
    done = release(frame, source, plan, out_name, replicates)
    st.session_state[RELEASED] = (key, done)
    return done
