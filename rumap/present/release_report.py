"""The release report as one standalone HTML page, or as JSON: counts, measures and intervals, never data values."""

from __future__ import annotations

import datetime as _dt
import html
import json
from typing import Any

import pandas as pd

from rumap import __version__
from rumap._validation import InstanceOf, validate_params
from rumap.present.examples import small_release_report
from rumap.present.report import _CSS, _table
from rumap.release.report import ReleaseReport
from rumap.result import json_safe

__all__ = ["release_report_json", "release_report_html", "decision_sentence", "above_sentences"]


def _example() -> dict[str, Any]:
    return {"report": small_release_report()}


@validate_params({"report": InstanceOf(ReleaseReport)}, example=_example)
def release_report_json(report: ReleaseReport) -> str:
    """The report as JSON text.

    Parameters
    ----------
    report : ReleaseReport

    Returns
    -------
    str

    Examples
    --------
    >>> import json
    >>> json.loads(release_report_json(_example()["report"]))["rows"]
    4
    """
    return json.dumps(json_safe({"rumap_version": __version__, **report.to_dict()}), indent=2, allow_nan=False) + "\n"


def _frame(rows: dict[str, dict[str, Any]], label: str) -> pd.DataFrame:
    return pd.DataFrame([{label: name, **values} for name, values in rows.items()])


def _numeric_section(numeric: dict[str, Any]) -> list[str]:
    measures = pd.DataFrame([
        {"measure": "records linked to their own original (distance linkage)", "value": numeric["linkage"]},
        {"measure": "interval disclosure, rank intervals of 10% of the records", "value": numeric["interval_rank"]},
        {"measure": "interval disclosure, 5% of a standard deviation", "value": numeric["interval_sd"]},
        {"measure": "information loss SSE/SST", "value": numeric["sse_sst"]},
    ])
    parts = [f"<h2>Numeric columns: {html.escape(', '.join(numeric['columns']))}</h2>"]
    held = numeric.get("intruder_columns") or numeric["columns"]
    parts.append(f"<p>Record linkage and interval disclosure on every numeric column an intruder holds of the "
                 f"released file, masked or not ({html.escape(', '.join(map(str, held)))}), as the Linkage page "
                 "measures them; the information loss on the masked columns.</p>")
    parts.append(_table(measures))
    parts += [f'<p class="note">{html.escape(note)}</p>' for note in numeric.get("notes", [])]
    parts += ["<h3>Relative change of each column's mean and variance</h3>",
              _table(_frame(numeric["columns_changed"], "column").astype({"mean": float, "variance": float}))]
    if numeric["correlations"]:
        parts += ["<h3>Change of the correlations</h3>",
                  _table(pd.DataFrame({"pair": list(numeric["correlations"]),
                                       "change": [float("nan") if v is None else v
                                                  for v in numeric["correlations"].values()]}))]
    return parts


def _categorical_section(categorical: dict[str, Any]) -> list[str]:
    rows = []
    for label in ("before", "after"):
        risk = categorical[label]
        rows.append({"file": label, "global risk": risk["global_risk"],
                     "expected re-identifications": risk["expected_reidentifications"],
                     **{f"records with f_k < {k}": v for k, v in risk["k_anonymity_violations"].items()}})
    per_variable = pd.DataFrame({"variable": categorical["keys"],
                                 "suppressed": [categorical["suppressed"][k] for k in categorical["keys"]],
                                 "changed": [categorical["changed"][k] for k in categorical["keys"]]})
    return [f"<h2>Categorical keys: {html.escape(', '.join(categorical['keys']))}</h2>",
            '<p class="note">k-anonymity counts a missing value as matching any value (as sdcMicro).</p>',
            _table(pd.DataFrame(rows)), "<h3>Per variable</h3>", _table(per_variable)]


def _table_section(table: dict[str, Any]) -> list[str]:
    parts = [f"<h2>Table: {table['rows']} rows x {table['columns']} columns ({html.escape(table['kind'])})</h2>",
             f"<p>Primary cells: {len(table['primary'])}; protection: {html.escape(str(table['protection']))}.</p>"]
    if table["protection"] == "secondary suppression":
        parts.append(f"<p>Suppressed cells: {table['suppressed']} ({len(table['secondary'])} secondary); cost "
                     f"{table['cost']:g}{' (optimal)' if table['optimal'] else ''}; every primary protected: "
                     f"{'yes' if table['protected'] else 'no'}.</p>")
        if table["audit"]:
            parts += ["<h3>Audit interval of each primary</h3>", _table(pd.DataFrame(table["audit"]))]
    elif table["protection"] == "controlled rounding":
        parts.append(f"<p>Base {table['base']:g}; total absolute deviation {table['total_absolute_deviation']:g}, "
                     f"largest {table['max_absolute_deviation']:g}; largest cell risk {table['max_risk']:.3g}.</p>")
    return parts


#: How a released risk above R_max is shown: in red, whatever the prediction interval says.
_ABOVE = '<p class="above" style="color:#b00020;font-weight:bold">{}</p>'


@validate_params({"decision": InstanceOf(dict, "a step report's decision")}, example=lambda: {"decision": {}})
def decision_sentence(decision: dict[str, Any]) -> str:
    """The decision that set a step's value in one sentence: R_max, the rule, the binding target and knowledge
    state, the recommended value and whether the user picked another ("" for a step written by hand).

    Parameters
    ----------
    decision : dict
        A step report's ``decision`` (:func:`rumap.release.report.step_decision`).

    Returns
    -------
    str

    Examples
    --------
    >>> decision_sentence({"map": "noise of wage", "max_risk": 1.6e-05, "decision": "upper",
    ...                    "decision_rule": "each judged by the upper end of its 95% band",
    ...                    "binding": {"target": "p99", "knowledge": "index"}, "recommended": 1.6,
    ...                    "choice": "recommended", "value": 1.6})
    'From the map noise of wage: R_max = 1.6e-05; decision rule: each judged by the upper end of its 95% band; binding target p99 under index knowledge; recommended value 1.6, released.'
    """
    if not decision:
        return ""
    binding = decision.get("binding") or {}
    words = [f"R_max = {decision['max_risk']:.4g}" if decision.get("max_risk") is not None else "no R_max"]
    if decision.get("decision_rule"):
        words.append(f"decision rule: {decision['decision_rule']}")
    if binding:
        words.append(f"binding target {binding.get('target')} under {binding.get('knowledge')} knowledge")
    recommended = decision.get("recommended")
    chosen = "released" if decision.get("choice") != "picked" else f"the user picked {decision.get('value')}"
    words.append(f"recommended value {recommended:g}, {chosen}" if recommended is not None
                 else f"no recommendation, {chosen}")
    data = f" (data fingerprint {str(decision['data'])[:12]})" if decision.get("data") else ""
    return f"From the map {decision.get('map', '(unnamed)')}{data}: {'; '.join(words)}."


@validate_params({"decision": InstanceOf(dict, "a step report's decision")}, example=lambda: {"decision": {}})
def above_sentences(decision: dict[str, Any]) -> list[str]:
    """One sentence per released risk above R_max, with its target's rank (:func:`decision_sentence`'s dict).

    Parameters
    ----------
    decision : dict

    Returns
    -------
    list of str

    Examples
    --------
    >>> above_sentences({"above_bound": [{"measure": "snooper max/index", "value": 0.0144, "max_risk": 1.6e-05,
    ...                                   "rank": 534}]})
    ['Above R_max: snooper max/index (its target, the record of rank 534 in the attacked column, 1 the smallest) has risk 0.0144 in this release, above R_max = 1.6e-05.']
    """
    out = []
    for above in decision.get("above_bound", ()):
        rank = (f" (its target, the record of rank {above['rank']} in the attacked column, 1 the smallest)"
                if above.get("rank") is not None else "")
        out.append(f"Above R_max: {above['measure']}{rank} has risk {above['value']:.4g} in this release, "
                   f"above R_max = {above['max_risk']:.4g}.")
    return out


def _decision_lines(decision: dict[str, Any]) -> list[str]:
    """The decision as a paragraph and, in red, each released risk above R_max; nothing for a step by hand."""
    if not decision:
        return []
    return ([f'<p class="decision">{html.escape(decision_sentence(decision))}</p>']
            + [_ABOVE.format(html.escape(text)) for text in above_sentences(decision)])


def _steps_section(report: ReleaseReport) -> list[str]:
    parts = ["<h2>Steps, each beside its map</h2>",
             '<p class="note">A release is one draw: each measure is set beside the map simulated at the '
             "step's parameter with the step's settings (its mean and 95% band), and flagged when it lies outside "
             "the 95% prediction interval of one release.</p>"]
    for i, s in enumerate(report.steps):
        parts.append(f"<h3>Step {i + 1}: {html.escape(s.step.method)}</h3>")
        parts.append(f"<pre>{html.escape(json.dumps(s.step.to_dict(), indent=1))}</pre>")
        parts += _decision_lines(s.decision)
        if s.what_it_did:
            parts.append(f"<p>What it did: {html.escape(s.what_it_did)}</p>")
        if s.summary:
            parts.append(f"<p>What it did{', counted' if s.what_it_did else ''}: "
                         f"<code>{html.escape(json.dumps(json_safe(s.summary)))}</code></p>")
        if s.checks:
            bounded = any(c.max_risk is not None for c in s.checks)
            frame = pd.DataFrame([{"measure": c.measure, "this release": c.value, "map mean": c.mean,
                                   "map band low": c.band[0], "map band high": c.band[1],
                                   "one release low": c.draw_band[0], "one release high": c.draw_band[1],
                                   "replicates": c.replicates,
                                   "outside": "yes" if c.outside else "no, but above R_max" if c.above_bound else "no",
                                   **({"R_max": float("nan") if c.max_risk is None else c.max_risk,
                                       "rank": "" if c.rank is None else str(c.rank),
                                       "above R_max": "YES" if c.above_bound else "no"} if bounded else {})}
                                  for c in s.checks])
            parts.append(_table(frame))
        parts.append(f'<p class="note">{html.escape(s.prediction)}</p>')
    return parts


@validate_params({"report": InstanceOf(ReleaseReport), "title": InstanceOf(str)}, example=_example)
def release_report_html(report: ReleaseReport, title: str = "Release report",
                        generated: _dt.datetime | None = None) -> str:
    """The report as one standalone HTML page.

    Parameters
    ----------
    report : ReleaseReport
    title : str
    generated : datetime, optional
        Time shown in the page (default: now, UTC).

    Returns
    -------
    str

    Examples
    --------
    >>> page = release_report_html(_example()["report"])
    >>> page.startswith("<!DOCTYPE html>"), "SSE/SST" in page
    (True, True)
    """
    stamp = (generated or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f'<p class="note">Generated by rumap {__version__} on {stamp}: {report.rows} records. The report holds '
             "counts, measures and intervals of measures, no value of the data.</p>"]
    parts += [f"<p><strong>Not reached:</strong> {html.escape(line)}</p>" for line in report.unreached]
    parts += [f"<p><strong>Note:</strong> {html.escape(note)}</p>" for note in report.notes]
    if report.numeric:
        parts += _numeric_section(report.numeric)
    if report.categorical:
        parts += _categorical_section(report.categorical)
    if report.table:
        parts += _table_section(report.table)
    parts += _steps_section(report)
    plan = {"steps": [s.step.to_dict() for s in report.steps]}
    parts += ["<h2>Plan</h2>", "<p>The steps as a plan for <code>python -m rumap release --plan</code>:</p>",
              f"<pre>{html.escape(json.dumps(plan, indent=2))}</pre>", "</body></html>"]
    return "\n".join(parts)
