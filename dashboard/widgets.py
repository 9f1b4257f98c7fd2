"""Widgets shared by the pages: bounded inputs, error display, the reproduce panel, keeping a map.

Every input of a page goes through :func:`remembered` (directly or through
:func:`number`, :func:`slider`, :func:`selectbox` and :func:`multiselect`):
it starts from the value the user last gave, even after a change of page, and
numeric inputs take their bounds and help from the constraint table
:data:`rumap.PARAMETERS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from dashboard import state
from dashboard.markdown import plain, plain_list
from rumap import PARAMETERS
from rumap.errors import InputError
from rumap.fingerprint import config_digest
from rumap.present.figures import PLOTLY_CONFIG
from rumap.present.numbers import distinct_digits
from rumap.present.plotting import zero_risk_note
from rumap.present.reproduce import to_command, to_python
from rumap.specs import Analysis

T = TypeVar("T")


@contextmanager
def errors_shown() -> Iterator[None]:
    """Show bad input as an error box naming the problem, and any other failure without a traceback.

    Yields
    ------
    None
        Inside the block, an exception becomes an error box.
    """
    try:
        yield
    except InputError as exc:
        st.error(plain(str(exc)))
    except Exception as exc:  # never a traceback on the page
        st.error(f"Something went wrong ({type(exc).__name__}): {plain(exc)}")


def bounds(name: str, low: float | None = None, high: float | None = None) -> dict:
    """``min_value``/``max_value`` for a widget of parameter ``name``, from :data:`rumap.PARAMETERS`.

    Parameters
    ----------
    name : str
        The parameter's entry in the table.
    low, high : float, optional
        Narrower limits a page needs (such as the data's own range); the
        result is the intersection with the table's interval.

    Returns
    -------
    dict
        The keyword arguments ``min_value`` and ``max_value`` where bounded.
    """
    interval = PARAMETERS[name]
    out: dict = {}
    if interval.kind == "int":
        if interval.low is not None:
            out["min_value"] = int(interval.low) + (0 if interval.closed in ("both", "left") else 1)
        if interval.high is not None:
            out["max_value"] = int(interval.high) - (0 if interval.closed in ("both", "right") else 1)
    else:
        if interval.low is not None:
            lo = float(interval.low)
            out["min_value"] = lo if interval.closed in ("both", "left") else math.nextafter(lo, math.inf)
        if interval.high is not None:
            hi = float(interval.high)
            out["max_value"] = hi if interval.closed in ("both", "right") else math.nextafter(hi, -math.inf)
    cast = int if interval.kind == "int" else float
    if low is not None:
        out["min_value"] = max(out.get("min_value", -math.inf), cast(low))
    if high is not None:
        out["max_value"] = min(out.get("max_value", math.inf), cast(high))
    return out


def remembered(draw: Callable[..., T], label: str, key: str, default: Any, **kwargs) -> T:
    """Draw a widget whose value survives a change of page; returns its value.

    Parameters
    ----------
    draw : callable
        A Streamlit widget function such as ``st.checkbox``.
    label : str
        The widget's label.
    key : str
        Its session-state key (the page's prefix and a name).
    default
        The value before the user sets one.
    **kwargs
        Passed to ``draw`` (never a value: the value comes from the session).

    Returns
    -------
    The widget's value.
    """
    state.init_widget(key, default)
    value = draw(label, key=key, **kwargs)
    state.remember(key)
    return value


def number(name: str, label: str, key: str, default: float, low: float | None = None, high: float | None = None,
           **kwargs):
    """A number input for parameter ``name`` with the table's bounds and description as help.

    Parameters
    ----------
    name : str
        The parameter's entry in :data:`rumap.PARAMETERS`.
    label, key : str
        The widget's label and session-state key.
    default : float
        The value before the user sets one.
    low, high : float, optional
        Narrower limits than the table's (see :func:`bounds`).
    **kwargs
        Passed to ``st.number_input`` (``help`` defaults to the table's description).

    Returns
    -------
    int or float
        The value, an ``int`` for integer parameters.
    """
    state.init_widget(key, default)
    kwargs.setdefault("help", PARAMETERS[name].description)
    limits = bounds(name, low, high)
    if PARAMETERS[name].kind == "int":
        st.session_state[key] = _clipped(int(st.session_state[key]), limits)
        value = st.number_input(label, key=key, step=1, **limits, **kwargs)
    else:
        st.session_state[key] = _clipped(float(st.session_state[key]), limits)
        value = st.number_input(label, key=key, format=kwargs.pop("format", "%.6g"), **limits, **kwargs)
    state.remember(key)
    return value


def slider(name: str, label: str, key: str, default: float, low: float | None = None, high: float | None = None,
           **kwargs):
    """A slider for parameter ``name`` over the range and step its table entry gives for sliders.

    Parameters
    ----------
    name : str
        The parameter's entry in :data:`rumap.PARAMETERS`; its ``slider``
        ``(low, high, step)`` gives the slider's range and step.
    label, key : str
        The widget's label and session-state key.
    default : float
        The value before the user sets one.
    low, high : float, optional
        Narrower limits a page needs (such as its data's own scale); the range
        is the intersection with the entry's.
    **kwargs
        Passed to ``st.slider`` (``help`` defaults to the table's description).

    Returns
    -------
    int or float
        The value, an ``int`` for integer parameters.
    """
    interval = PARAMETERS[name]
    if interval.slider is None:
        raise ValueError(f"the entry {name} gives no slider range")
    shown_low, shown_high, step = interval.slider
    cast = int if interval.kind == "int" else float
    limits = bounds(name, shown_low if low is None else max(shown_low, low),
                    shown_high if high is None else min(shown_high, high))
    if limits["min_value"] > limits["max_value"]:
        raise ValueError(f"the slider range {low}..{high} is outside the values allowed for {name}")
    state.init_widget(key, default)
    st.session_state[key] = _clipped(cast(st.session_state[key]), limits)
    kwargs.setdefault("help", interval.description)
    value = st.slider(label, key=key, step=cast(step), **limits, **kwargs)
    state.remember(key)
    return value


def _clipped(value: float, limits: dict) -> float:
    return min(max(value, limits.get("min_value", value)), limits.get("max_value", value))


def selectbox(label: str, options: Sequence[T], key: str, default: T, **kwargs) -> T:
    """A remembered selectbox; a remembered value no longer among ``options`` falls back to ``default``.

    Parameters
    ----------
    label : str
    options : sequence
    key : str
    default
        One of ``options``.
    **kwargs
        Passed to ``st.selectbox``.

    Returns
    -------
    The chosen option.
    """
    state.init_widget(key, default)
    if st.session_state[key] not in options:
        st.session_state[key] = default
    value = st.selectbox(label, options, key=key, **kwargs)
    state.remember(key)
    return value


def multiselect(label: str, options: Sequence[T], key: str, default: Sequence[T], **kwargs) -> list[T]:
    """A remembered multiselect, limited to the current ``options``.

    Parameters
    ----------
    label : str
    options : sequence
    key : str
    default : sequence
        The choice before the user makes one.
    **kwargs
        Passed to ``st.multiselect``.

    Returns
    -------
    list
        The chosen options.
    """
    state.init_widget(key, list(default))
    st.session_state[key] = [v for v in st.session_state[key] if v in options]
    value = st.multiselect(label, options, key=key, **kwargs)
    state.remember(key)
    return value


def plot(fig, key: str | None = None) -> None:
    """Draw a Plotly figure across the page, with the SVG export button.

    A caption under it says where its log risk axis draws risks of 0 (:func:`rumap.present.plotting.zero_risk_note`).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    key : str, optional
        The chart's element key.
    """
    st.plotly_chart(fig, width="stretch", config=PLOTLY_CONFIG, key=key, theme=None)
    note = zero_risk_note(fig)
    if note:
        st.caption(plain(note))


#: The app's own style rules, sent with every run of every page. Streamlit's running indicator cycles through five
#: icons every 0.2 s while a run goes on, a render, style and layout each time: a tab waiting for a long map kept
#: its browser busy six times as long as without it (Chromium's performance metrics), time taken from every other
#: tab on the machine. The icon is hidden; the indicator's Stop button, the sign that a run goes on, stays.
APP_STYLE = '[data-testid="stStatusWidgetRunningIcon"] {display: none;}'


def app_style() -> None:
    """Send :data:`APP_STYLE` (a style element that takes no space on the page)."""
    st.html(f"<style>{APP_STYLE}</style>")


#: The element key of the hidden figure that loads the interactive figures' script ahead of the first map.
PRELOAD_KEY = "rumap_plotly_preload"


#: Seconds after the home page's run reaches the browser before the browser asks for the hidden figure. The sooner
#: its script is loaded, the less a quick click waits for it: a fresh browser's first Analytic map, the link clicked
#: 1 s after the home page was drawn, by the page's clock (``benchmarks/bench_dashboard.py``), idle machine, two
#: alternating runs of 8 each: median 2.00 and 1.76 s after 0.5 s, 1.06 and 0.95 s after 0.2 s; the home page
#: itself 1.42 and 1.21 s, 1.48 and 1.40 s.
PRELOAD_DELAY = 0.2
#: Session-state flag: the home page has been drawn once in this session (later runs send the hidden figure).
PRELOAD_WAITED = f"{PRELOAD_KEY}_waited"
#: Seconds a fresh browser takes to load the scripts the hidden figure asks for (1.5 s here when idle).
PRELOAD_DRAW = 2.0
#: Session-state flag: the hidden figure has been sent in this session.
PRELOAD_SENT = f"{PRELOAD_KEY}_sent"


def preload_interactive_figures() -> None:
    """Have the browser load the interactive figures' script while the page is read, not at the first map.

    The script (Plotly) is several megabytes that the browser fetches, parses and
    compiles the first time a page shows an interactive figure: seconds on a busy
    machine. A small figure in a hidden container at the end of a light page (the
    home page) starts that work; a formula and a table beside it load the scripts
    that draw those (KaTeX, the data grid) too. The first time, it comes :data:`PRELOAD_DELAY`
    seconds after the page's run has reached the browser (a fragment on a timer reruns the page once),
    so that the script's long compile does not hold up the page itself; every
    later run of the page sends it at once. The maps being computed stay paused
    :data:`PRELOAD_DRAW` seconds after the run that first sends it, while the browser loads the scripts.
    """
    # the rule that hides the container comes with every run, so it is in place before the container's first run
    st.html(f"<style>.st-key-{PRELOAD_KEY} {{display: none;}}</style>")
    if st.session_state.get(PRELOAD_WAITED):
        _hidden_figure()
        return
    st.session_state[PRELOAD_WAITED] = True
    inline = [True]  # the fragment's first call is part of this run; its next one comes from the timer

    @st.fragment(run_every=PRELOAD_DELAY)
    def after_a_while() -> None:
        if inline[0]:
            inline[0] = False
            return
        st.rerun()  # the whole page, now with the hidden figure and without this timer

    after_a_while()


def _hidden_figure() -> None:
    import plotly.graph_objects as go

    from dashboard.background import drawing_takes

    if not st.session_state.get(PRELOAD_SENT):  # the session's browser has not loaded the scripts yet
        st.session_state[PRELOAD_SENT] = True
        drawing_takes(PRELOAD_DRAW)
    # what a map draws (a line with markers and labels, a log axis), so that drawing code is ready too; a formula
    # and a table load the scripts that draw them
    figure = go.Figure(go.Scatter(x=[1.0, 2.0, 3.0], y=[1.0, 10.0, 100.0], mode="lines+markers+text",
                                  text=["", "", "λ² = 1"]), layout={"yaxis": {"type": "log"}})
    with st.container(key=PRELOAD_KEY):
        st.plotly_chart(figure, config=PLOTLY_CONFIG, theme=None, key=f"{PRELOAD_KEY}_figure")
        st.latex(r"U = \frac{n}{\sigma^2 + \lambda^2}")
        st.dataframe({"λ²": [1.0]}, hide_index=True)


#: Prefix of the reproduce panels' keys (each panel remembers whether it is open).
REPRODUCE_KEY = "rumap_reproduce"


def tabbed_sections(sections: Mapping[str, Callable[[], None]], key: str) -> None:
    """One tab per section, each drawn by its function inside its own error box, the open tab's alone.

    Choosing a tab reruns the page, and a run draws the open tab only: a widget in one tab
    no longer recomputes the others. The open tab is ``st.session_state[key]`` (its title).

    Parameters
    ----------
    sections : mapping of str to callable
        Each tab's title and the function that draws its body.
    key : str
        The tabs' key: the session remembers the open tab under it.
    """
    for tab, section in zip(st.tabs(list(sections), key=key, on_change="rerun"), sections.values(), strict=True):
        if tab.open:
            with tab, errors_shown():
                section()


def reproduce_code(python: str, command: str | None = None, what: str = "this map", no_command: str = "",
                   command_caption: str = "Command line:", *, key: str) -> None:
    """The reproduce panel: the Python (and, where there is one, the command line) giving the shown result.

    The code is drawn only while the panel is open (opening it reruns the page): a
    code block loads the browser's syntax highlighter, over a second of work on a busy
    machine, which a page would otherwise pay on every first visit, open or not.

    Parameters
    ----------
    python : str
        A Python script that computes the result from the values the page used.
    command : str, optional
        The equivalent ``python -m rumap ...`` command.
    what : str
        What is reproduced, for the panel's title.
    no_command : str
        Why there is no command line (shown when ``command`` is ``None``).
    command_caption : str
        The caption above the command.
    key : str
        Names the panel, unique on its page (the element key is ``rumap_reproduce_<key>``).
    """
    panel = st.expander(f"Reproduce {what}: command line and Python", key=f"{REPRODUCE_KEY}_{key}",
                        on_change="rerun")
    if not panel.open:
        return
    with panel:
        if command is not None:
            st.caption(command_caption)
            st.code(command, language="bash", wrap_lines=True)
        elif no_command:
            st.caption(f"No command line: {plain(no_command)}")
        st.caption("Python:")
        st.code(python, language="python")


def reproduce(spec, key: str, what: str = "this map", command_caption: str = "Command line (prints JSON):") -> None:
    """The reproduce panel of a result made from a specification of :data:`rumap.present.reproduce.REPRODUCERS`.

    The command and the Python are generated from the specification
    (:func:`rumap.present.reproduce.to_command`, :func:`~rumap.present.reproduce.to_python`);
    a specification the command line cannot run shows why.

    Parameters
    ----------
    spec : a specification of :data:`rumap.present.reproduce.REPRODUCERS`
    key : str
        Names the panel on its page (see :func:`reproduce_code`).
    what : str
        What is reproduced, for the panel's title.
    command_caption : str
        The caption above the command.
    """
    try:
        command, reason = to_command(spec), ""
    except (InputError, ImportError) as exc:
        command, reason = None, str(exc)
    reproduce_code(to_python(spec), command, what=what, no_command=reason, command_caption=command_caption,
                   key=key)


def keep_controls(analysis: Analysis, key: str) -> None:
    """A name field and a button that keep the analysis for Compare, Pareto, Report and Presentation, and "Apply".

    "Apply" (:func:`dashboard.release_plan.apply_controls`) adds the map's masking to the release plan.

    Parameters
    ----------
    analysis : Analysis
        The map(s) shown, with the specification that made them.
    key : str
        Prefix of the widgets' keys (``{key}_name``, ``{key}_keep``).
    """
    digest = config_digest(analysis.spec.to_dict())
    if st.session_state.get(f"{key}_name_for") != digest:  # new settings: propose their name
        st.session_state[f"{key}_name_for"] = digest
        st.session_state[f"{key}_name"] = state.name_hint(digest) or analysis.name
    cols = st.columns([3, 1], vertical_alignment="bottom")
    name = cols[0].text_input("Name for this map", key=f"{key}_name")
    if cols[1].button("Keep this map", key=f"{key}_keep", type="primary"):
        kept_as = state.keep(analysis.renamed(name.strip() or analysis.name))
        st.toast(f"Kept “{plain(kept_as)}”. {len(state.analyses())} map(s) kept.")
    kept = [a.name for a in state.analyses()]
    if kept:
        st.caption("Kept maps: " + plain_list(kept, "; "))
    from dashboard.release_plan import apply_controls  # the release's modules load with the first map

    apply_controls(analysis, key)


def table(data, **kwargs) -> None:
    """A dataframe whose number columns show as few significant digits as keep different values different.

    Parameters
    ----------
    data : pandas.DataFrame or list of dict
    **kwargs
        Passed to ``st.dataframe``.
    """
    frame = pd.DataFrame(data)
    config = dict(kwargs.pop("column_config", {}) or {})
    for column in frame.columns:
        if column not in config and pd.api.types.is_float_dtype(frame[column]):
            config[column] = st.column_config.NumberColumn(format=f"%.{distinct_digits(frame[column].to_numpy())}g")
    st.dataframe(frame, column_config=config, **kwargs)
