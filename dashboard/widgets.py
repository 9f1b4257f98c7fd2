"""Widgets shared by the pages: bounded inputs, error display, the reproduce panel, keeping a map."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from dashboard import state
from rumap._validation import PARAMETERS
from rumap.errors import InputError
from rumap.fingerprint import config_digest
from rumap.present.commands import cli_command, python_call
from rumap.present.figures import PLOTLY_CONFIG
from rumap.specs import Analysis


@contextmanager
def errors_shown() -> Iterator[None]:
    """Show bad input as an error box naming the problem, and any other failure without a traceback."""
    try:
        yield
    except InputError as exc:
        st.error(str(exc))
    except Exception as exc:  # never a traceback on the page
        st.error(f"Something went wrong ({type(exc).__name__}): {exc}")


def bounds(name: str) -> dict:
    """``min_value``/``max_value`` for a widget of parameter ``name``, from :data:`rumap._validation.PARAMETERS`."""
    interval = PARAMETERS[name]
    out: dict = {}
    if interval.kind == "int":
        if interval.low is not None:
            out["min_value"] = int(interval.low) + (0 if interval.closed in ("both", "left") else 1)
        if interval.high is not None:
            out["max_value"] = int(interval.high) - (0 if interval.closed in ("both", "right") else 1)
        return out
    if interval.low is not None:
        low = float(interval.low)
        out["min_value"] = low if interval.closed in ("both", "left") else math.nextafter(low, math.inf)
    if interval.high is not None:
        high = float(interval.high)
        out["max_value"] = high if interval.closed in ("both", "right") else math.nextafter(high, -math.inf)
    return out


def number(name: str, label: str, key: str, default: float, **kwargs):
    """A number input for parameter ``name`` with the table's bounds and description as help."""
    state.init_widget(key, default)
    kwargs.setdefault("help", PARAMETERS[name].description)
    if PARAMETERS[name].kind == "int":
        st.session_state[key] = int(st.session_state[key])
        return st.number_input(label, key=key, step=1, **bounds(name), **kwargs)
    st.session_state[key] = float(st.session_state[key])
    return st.number_input(label, key=key, format=kwargs.pop("format", "%.6g"), **bounds(name), **kwargs)


def plot(fig, key: str | None = None) -> None:
    """Draw a Plotly figure across the page, with the SVG export button."""
    st.plotly_chart(fig, width="stretch", config=PLOTLY_CONFIG, key=key, theme=None)


def reproduce(spec) -> None:
    """The equivalent command line and Python call of a map."""
    with st.expander("Reproduce this map: command line and Python", expanded=False):
        try:
            st.caption("Command line (prints JSON):")
            st.code(cli_command(spec), language="bash", wrap_lines=True)
        except (InputError, ImportError) as exc:
            st.caption(f"No command line: {exc}")
        st.caption("Python:")
        st.code(python_call(spec), language="python")


def keep_controls(analysis: Analysis, key: str) -> None:
    """A name field and a button that keep the analysis for Compare, Pareto, Report and Presentation."""
    digest = config_digest(analysis.spec.to_dict())
    if st.session_state.get(f"{key}_name_for") != digest:  # new settings: propose their name
        st.session_state[f"{key}_name_for"] = digest
        st.session_state[f"{key}_name"] = state.name_hint(digest) or analysis.name
    cols = st.columns([3, 1], vertical_alignment="bottom")
    name = cols[0].text_input("Name for this map", key=f"{key}_name")
    if cols[1].button("Keep this map", key=f"{key}_keep", type="primary"):
        state.keep(analysis.renamed(name.strip() or analysis.name))
        st.toast(f"Kept “{name}”. {len(state.analyses())} map(s) kept.")
    kept = [a.name for a in state.analyses()]
    if kept:
        st.caption("Kept maps: " + "; ".join(kept))
