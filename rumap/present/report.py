"""Exports of analyses: a standalone HTML report, the curves as CSV and JSON, and a configuration that loads back.

The HTML report is one file that works offline: Plotly's JavaScript is inlined
once, every figure stays interactive, and the configuration is embedded so the
report itself can be loaded back to reproduce its maps. The data enter the
configuration (and so the report) only with ``include_data=True``.
"""

from __future__ import annotations

import csv
import datetime as _dt
import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rumap import __version__
from rumap._validation import Boolean, InstanceOf, StrOptions, validate_params
from rumap._validation.fields import Fields, parse_json
from rumap.errors import InputError
from rumap.present.commands import cli_command, python_call
from rumap.present.examples import small_analysis
from rumap.present.figures import PLOTLY_CONFIG, analysis_figure
from rumap.present.images import figure_images
from rumap.present.numbers import format_numbers
from rumap.present.statements import summary_lines
from rumap.result import json_safe
from rumap.specs import Analysis, spec_from_dict

__all__ = ["config_dict", "config_json", "load_config", "curves_csv", "curves_json", "report_html",
           "figure_image", "csv_text", "CONFIG_FORMAT"]

#: Identifies rumap configuration files (and their version).
CONFIG_FORMAT = "rumap-config/1"

_EMBED_ID = "rumap-config"


@validate_params({"analyses": InstanceOf((list, tuple), "a list or tuple of Analysis"), "data_values": [None, InstanceOf(Mapping)],
                  "aggregates": Boolean()},
                 example=lambda: {"analyses": [small_analysis()]})
def config_dict(analyses: Sequence[Analysis], data_values: Mapping[str, Any] | None = None,
                aggregates: bool = False) -> dict[str, Any]:
    """The configuration of the analyses, to reproduce them exactly.

    By default it holds names, counts and digests of the data but no value,
    order statistic or aggregate of them: inputs taken from the data (an
    analytic map's variance, mean and target value) are ``null`` and are
    recomputed from the data when the configuration is loaded.

    Parameters
    ----------
    analyses : sequence of Analysis
    data_values : mapping, optional
        Data digest -> values (shape (n,) or (n, d)); the values of every data
        source whose digest is a key are stored in the configuration. Leave it
        out to keep data out of the file.
    aggregates : bool, default False
        Keep the inputs that are statistics of the data.

    Returns
    -------
    dict
    """
    entries = []
    for a in analyses:
        spec = a.spec
        spec_dict = a.export_dict(aggregates=aggregates)["spec"]
        source = getattr(spec, "data", None)
        if source is not None and data_values and source.digest in data_values:
            spec_dict["data"] = source.with_values(data_values[source.digest]).to_dict()
        entries.append({"name": a.name, "spec": spec_dict})
    return {"format": CONFIG_FORMAT, "rumap_version": __version__, "analyses": entries}


@validate_params({"analyses": InstanceOf((list, tuple), "a list or tuple of Analysis"), "data_values": [None, InstanceOf(Mapping)],
                  "aggregates": Boolean()},
                 example=lambda: {"analyses": [small_analysis()]})
def config_json(analyses: Sequence[Analysis], data_values: Mapping[str, Any] | None = None,
                aggregates: bool = False) -> str:
    """:func:`config_dict` as JSON text.

    Parameters
    ----------
    analyses : sequence of Analysis
    data_values : mapping, optional
        Data values to store, by data source name (only when the user asks).
    aggregates : bool, default False
        Keep the inputs that are statistics of the data.

    Returns
    -------
    str
    """
    return json.dumps(json_safe(config_dict(analyses, data_values, aggregates)), indent=2, allow_nan=False)


@validate_params({"text": InstanceOf((str, bytes), "text or bytes"), "data_values": [None, InstanceOf(Mapping)]},
                 example=lambda: {"text": config_json([small_analysis()])})
def load_config(text: str | bytes, data_values: Mapping[str, Any] | None = None) -> list[tuple[str, Any]]:
    """Read a configuration (JSON, or an HTML report that embeds one).

    Parameters
    ----------
    text : str or bytes
        The file's content.
    data_values : mapping, optional
        Data digest -> values (shape (n,) or (n, d)) of loaded data: inputs the
        configuration withholds are recomputed from the data of the same digest.

    Returns
    -------
    list of (name, spec)
        The analyses' names and specifications, in order; run each with
        ``spec.run(data)`` to reproduce it.

    Raises
    ------
    InputError
        Not JSON, not a rumap configuration, or a bad specification.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError("the configuration file is not UTF-8 text") from None
    stripped = text.lstrip()
    if stripped.startswith("<"):
        match = re.search(rf'<script type="application/json" id="{_EMBED_ID}">(.*?)</script>', text, re.S)
        if match is None:
            raise InputError("this HTML file holds no rumap configuration")
        stripped = html.unescape(match.group(1))
    data = parse_json(stripped)
    if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT:
        raise InputError(f"not a rumap configuration (expected \"format\": \"{CONFIG_FORMAT}\")")
    entries = data.get("analyses")
    if not isinstance(entries, list) or not entries:
        raise InputError("the configuration holds no analyses")
    out = []
    for i, entry in enumerate(entries):
        fields = Fields(entry, f"analyses[{i}]")
        name = fields.text("name", "")
        spec_dict = fields.object("spec").data
        source = spec_dict.get("data")
        digest = source.get("digest") if isinstance(source, dict) else None
        values = (data_values or {}).get(digest) if isinstance(digest, str) else None
        out.append((name, spec_from_dict(spec_dict, None if values is None else np.asarray(values, dtype=float),
                                         f"analyses[{i}].spec")))
    return out


def curves_frame(analyses: Sequence[Analysis]) -> pd.DataFrame:
    """Every curve of every analysis in one long table (column ``analysis`` first)."""
    frames = [a.to_frame() for a in analyses]
    if not frames:
        raise InputError("no maps to export")
    frame = pd.concat(frames, ignore_index=True)
    return frame[["analysis", *[c for c in frame.columns if c != "analysis"]]]


@validate_params({"analyses": InstanceOf((list, tuple), "a list or tuple of Analysis")}, example=lambda: {"analyses": [small_analysis()]})
def curves_csv(analyses: Sequence[Analysis]) -> str:
    """The curves as CSV text.

    Parameters
    ----------
    analyses : sequence of Analysis

    Returns
    -------
    str
    """
    return csv_text(curves_frame(analyses))


#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _neutralised(value: Any) -> Any:
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame")},
                 example=lambda: {"frame": pd.DataFrame({"map": ["=1+1"], "risk": [0.5]})})
def csv_text(frame: pd.DataFrame) -> str:
    """A table as CSV text that a spreadsheet shows as text: no cell or header is read as a formula.

    A text cell or column name that starts with ``=``, ``+``, ``-``, ``@``, a
    tab or a carriage return gets a leading ``'`` (OWASP's rule against CSV
    injection), and every text cell is quoted; numbers are written as they are.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.present.report import csv_text
    >>> print(csv_text(pd.DataFrame({"=name": ['=HYPERLINK("http://x","y")', "plain"], "value": [-1.5, 2.0]})))
    "'=name","value"
    "'=HYPERLINK(""http://x"",""y"")",-1.5
    "plain",2.0
    <BLANKLINE>
    """
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(_neutralised)
    safe.columns = [_neutralised(str(c)) for c in safe.columns]
    return safe.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)


@validate_params({"analyses": InstanceOf((list, tuple), "a list or tuple of Analysis"), "aggregates": Boolean(),
                  "values": Boolean()}, example=lambda: {"analyses": [small_analysis()]})
def curves_json(analyses: Sequence[Analysis], aggregates: bool = False, values: bool = False) -> str:
    """The curves, optima and specifications as JSON text (non-finite numbers as null).

    Parameters
    ----------
    analyses : sequence of Analysis
    aggregates : bool, default False
        Keep the inputs that are statistics of the data (see :func:`config_dict`).
    values : bool, default False
        Keep the targets' values and the data's extremes (``rumap.specs.DATA_VALUE_KEYS``).

    Returns
    -------
    str
    """
    if not analyses:
        raise InputError("no maps to export")
    return json.dumps(json_safe({"format": "rumap-curves/1", "analyses": [a.export_dict(aggregates, values) for a in analyses]}),
                      indent=2, allow_nan=False)


@validate_params({"fmt": StrOptions(("png", "svg"))}, example=lambda: {"fig": go.Figure(), "fmt": "svg"})
def figure_image(fig, fmt: str = "png") -> bytes | None:
    """The figure as PNG or SVG bytes, or ``None`` where no image engine (kaleido) is installed.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    fmt : {"png", "svg"}

    Returns
    -------
    bytes or None
    """
    return figure_images([fig], fmt)[0]


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.8em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.9em;margin:.5em 0}th,td{border:1px solid #ddd;padding:.25em .6em;
text-align:right}th{background:#f4f4f4}pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:.85em}
.summary li{margin:.3em 0}details{margin:.6em 0}.note{color:#555;font-size:.9em}
"""


def _table(frame: pd.DataFrame, max_rows: int | None = None) -> str:
    shown = (frame if max_rows is None or len(frame) <= max_rows else frame.iloc[:max_rows]).copy()
    for column in shown.columns:  # as few significant digits as keep different values different
        if pd.api.types.is_float_dtype(shown[column]):
            values = shown[column].to_numpy(dtype=float)
            shown[column] = [text if np.isfinite(v) or np.isinf(v) else ""
                             for v, text in zip(values, format_numbers(values), strict=True)]
    return shown.to_html(index=False, na_rep="", border=0, escape=True)


def _optima_frame(a: Analysis) -> pd.DataFrame | None:
    if not a.optima:
        return None
    return pd.DataFrame([{"state": o.state, "max_risk": o.max_risk, "reachable": o.reachable, "lambda2": o.lambda2,
                          "risk": o.risk, "utility": o.utility, "efficiency": o.efficiency} for o in a.optima])


@validate_params({"analyses": InstanceOf((list, tuple), "a list or tuple of Analysis"), "title": InstanceOf(str), "data_values": [None, InstanceOf(Mapping)],
                  "aggregates": Boolean()},
                 example=lambda: {"analyses": [small_analysis()]})
def report_html(analyses: Sequence[Analysis], *, title: str = "R-U confidentiality maps",
                data_values: Mapping[str, Any] | None = None, data_summary: pd.DataFrame | None = None,
                generated: _dt.datetime | None = None, aggregates: bool = False) -> str:
    """One standalone HTML file: summary, interactive figures, configuration, commands and tables.

    Parameters
    ----------
    analyses : sequence of Analysis
    title : str
    data_values : mapping, optional
        Data to embed in the configuration (see :func:`config_dict`); the
        default keeps data out of the report.
    data_summary : DataFrame, optional
        A summary table of the data (e.g. :func:`rumap.io.data.summary_table`).
    generated : datetime, optional
        Time stamp shown in the report (default: now, UTC).
    aggregates : bool, default False
        Keep the inputs that are statistics of the data (see :func:`config_dict`).

    Returns
    -------
    str
        The HTML document. Plotly's JavaScript is inlined once, so the file
        works without a network connection.
    """
    if not analyses:
        raise InputError("no maps to report: keep at least one map first")
    stamp = (generated or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    config = config_json(analyses, data_values, aggregates)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="note">Generated by rumap {__version__} on {stamp}. Risk R is what a data snooper gains, '
        "utility U what a data user keeps; each curve traces (U, R) as the masking parameter varies "
        "(Duncan, Keller-McNulty &amp; Stokes 2001).</p>",
        "<h2>Summary</h2>",
    ]
    for a in analyses:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in summary_lines(a))
        parts.append(f'<h3>{html.escape(a.name)}</h3><ul class="summary">{items}</ul>')
    if data_summary is not None:
        parts += ["<h2>Data</h2>", _table(data_summary)]
    for i, a in enumerate(analyses):
        fig = analysis_figure(a, title=a.name)
        parts.append(f"<h2>{i + 1}. {html.escape(a.name)}</h2>")
        parts.append(fig.to_html(full_html=False, include_plotlyjs=(i == 0), config=PLOTLY_CONFIG,
                                 div_id=f"figure-{i + 1}"))
        optima = _optima_frame(a)
        if optima is not None:
            parts += ["<h3>Optimum under the maximum tolerable risk</h3>", _table(optima)]
        chosen = a.recommendation()
        if chosen is not None:
            parts += ["<h3>Recommendation</h3>", f"<p>{html.escape(chosen.reason)}</p>", _table(chosen.to_frame())]
        parts += [
            "<h3>Reproduce</h3><p>Command line:</p>", f"<pre>{html.escape(_safe_command(a))}</pre>",
            "<p>Python:</p>", f"<pre>{html.escape(python_call(a.spec))}</pre>",
            "<details><summary>Configuration (JSON)</summary>",
            f"<pre>{html.escape(json.dumps(a.export_dict(aggregates)['spec'], indent=2))}</pre></details>",
            "<details><summary>Table of the curves</summary>", _table(a.to_frame()), "</details>",
        ]
    parts += [
        "<h2>Configuration</h2>",
        "<p>Load this file (or the JSON below) on the dashboard's Report page to reproduce every map.</p>",
        f'<script type="application/json" id="{_EMBED_ID}">{html.escape(config, quote=False)}</script>',
        f"<details><summary>Configuration file</summary><pre>{html.escape(config)}</pre></details>",
        "</body></html>",
    ]
    return "\n".join(parts)


def _safe_command(a: Analysis) -> str:
    try:
        return cli_command(a.spec)
    except (InputError, ImportError) as exc:
        return f"# no command line: {exc}"
