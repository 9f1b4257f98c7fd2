"""The session's state: the loaded data set, the chosen columns, the kept analyses and a result cache.

Everything lives in ``st.session_state``, i.e. in this browser session's memory
only: nothing is written to disk and everything ends with the session.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from rumap import check_varies
from rumap.errors import InputError
from rumap.fingerprint import BoundedCache, bytes_digest, cache_key, config_digest
from rumap.io.data import BUNDLED_DATA, numeric_column_names, numeric_columns, read_table_bytes, text_among_numbers
from rumap.specs import Analysis, DataSource

DATA = "rumap_data"
SELECTION = "rumap_selection"
ANALYSES = "rumap_analyses"
CACHE = "rumap_cache"
STORE = "rumap_widgets"
CURRENT = "rumap_current"
REFUSED = "rumap_refused"


@dataclass(frozen=True)
class LoadedData:
    """A data set held in memory: where it came from, its table and a digest of its bytes."""

    kind: str
    name: str
    frame: pd.DataFrame
    digest: str


@dataclass(frozen=True)
class Selection:
    """The chosen numeric column(s) of the loaded data, after the missing-value policy."""

    source: DataSource
    values: np.ndarray  # shape (n, d)

    @property
    def column(self) -> np.ndarray:
        """The first chosen column, shape (n,).

        Returns
        -------
        ndarray, shape (n,)
        """
        return self.values[:, 0]


def load_bytes(kind: str, name: str, content: bytes, filename: str | None = None,
               require_numeric: bool = True) -> LoadedData:
    """Read a file held in memory (raises InputError naming the problem) and make it the session's data.

    ``filename`` (default ``name``) chooses the reader by its extension; with
    ``require_numeric`` a file without a numeric column is refused.

    Parameters
    ----------
    kind : {"bundled", "upload"}
        Where the file comes from.
    name : str
        The data set's name.
    content : bytes
        The file's bytes.
    filename : str, optional
        The name whose extension chooses the reader.
    require_numeric : bool
        Refuse a file without a numeric column (the maps need one; categorical keys do not).

    Returns
    -------
    LoadedData
    """
    try:
        frame = read_table_bytes(content, filename or name)
        if require_numeric and not numeric_column_names(frame) and not text_among_numbers(frame):
            raise InputError(f"{name}: no numeric column; the maps need numbers")
    except InputError as exc:
        refuse(f"the new file {name}", str(exc))
        raise
    data = LoadedData(kind=kind, name=name, frame=frame, digest=bytes_digest(content))
    st.session_state[DATA] = data
    return data


@dataclass(frozen=True)
class Refusal:
    """Data the user asked for and did not get: what it was and why it was refused."""

    what: str
    reason: str


def refuse(what: str, reason: str) -> None:
    """Note that ``what`` was refused (the earlier selection stays, and the pages say so).

    Parameters
    ----------
    what : str
        What was refused, e.g. ``"the new file x.csv"``.
    reason : str
        The error message.
    """
    st.session_state[REFUSED] = Refusal(what=what, reason=reason)


def refusal() -> Refusal | None:
    """The last refused file or column, while the earlier selection is still in use.

    Returns
    -------
    Refusal or None
    """
    return st.session_state.get(REFUSED)


def load_bundled(name: str) -> LoadedData:
    """Load a data set shipped with rumap.

    Parameters
    ----------
    name : str
        A key of :data:`rumap.io.data.BUNDLED_DATA`.

    Returns
    -------
    LoadedData
    """
    path = BUNDLED_DATA[name]
    with open(path, "rb") as handle:
        return load_bytes("bundled", name, handle.read(), filename=path.name)


def loaded_data() -> LoadedData | None:
    """The session's data set, if one is loaded.

    Returns
    -------
    LoadedData or None
    """
    return st.session_state.get(DATA)


def select(columns: list[str], missing: str) -> Selection:
    """Choose the column(s) of the loaded data (raises InputError for a bad choice).

    Parameters
    ----------
    columns : list of str
        Numeric columns of the loaded data.
    missing : {"refuse", "drop"}
        The missing-value policy.

    Returns
    -------
    Selection
    """
    data = loaded_data()
    try:
        values = numeric_columns(data.frame, list(columns), source=data.name, missing=missing)
        check_varies(values, data.name, list(columns))  # refused here, so no page draws a map of a constant
    except InputError as exc:
        refuse(f"{', '.join(map(str, columns))} of {data.name}", str(exc))
        raise
    source = DataSource.of(data.kind, data.name, columns, values, missing=missing)
    selection = Selection(source=source, values=values)
    st.session_state[SELECTION] = selection
    st.session_state.pop(REFUSED, None)
    return selection


def selection() -> Selection | None:
    """The chosen column(s) of the loaded data, if chosen.

    Returns
    -------
    Selection or None
    """
    return st.session_state.get(SELECTION)


def ensure_default_data() -> bool:
    """On a session's first run, load the first bundled data set and its first numeric column.

    Returns
    -------
    bool
        Whether this was the session's first run.
    """
    if DATA in st.session_state or st.session_state.get("rumap_default_tried"):
        return False
    st.session_state["rumap_default_tried"] = True
    for name, path in BUNDLED_DATA.items():
        try:
            if path.is_file():
                data = load_bundled(name)
                select(numeric_column_names(data.frame)[:1], "refuse")
        except Exception:  # a broken bundled file must not stop the app; the Data page will say why
            st.session_state.pop(DATA, None)
            st.session_state.pop(SELECTION, None)
        return True
    return True


def analyses() -> list[Analysis]:
    """The kept analyses (a list owned by the session).

    Returns
    -------
    list of Analysis
    """
    return st.session_state.setdefault(ANALYSES, [])


#: The widgets (on Compare, Pareto and Report) that choose among the kept analyses.
KEPT_CHOICES = ("compare_maps", "pareto_maps", "report_maps")


def keep(analysis: Analysis) -> str:
    """Keep an analysis for Compare, Pareto, Report and Presentation; returns the name it is kept under.

    Names stay unique: keeping the same map again replaces it, while a
    different map whose name is taken gets " (2)", " (3)", ... The new
    analysis is added to the maps chosen on those pages.

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    str
    """
    kept = analyses()
    digest = config_digest(analysis.spec.to_dict())
    same = [a for a in kept if a.name == analysis.name and config_digest(a.spec.to_dict()) == digest]
    if not same and any(a.name == analysis.name for a in kept):
        names = {a.name for a in kept}
        number = 2
        while f"{analysis.name} ({number})" in names:
            number += 1
        analysis = analysis.renamed(f"{analysis.name} ({number})")
    kept[:] = [a for a in kept if a.name != analysis.name] + [analysis]
    store = st.session_state.setdefault(STORE, {})
    for key in KEPT_CHOICES:
        chosen = store.get(key, st.session_state.get(key, [a.name for a in kept[:-1]]))
        set_widgets({key: [*[n for n in chosen if n != analysis.name], analysis.name]})
    return analysis.name


def focus(names: list[str]) -> None:
    """Choose exactly these kept analyses on Compare and Pareto (e.g. after loading an example).

    Parameters
    ----------
    names : list of str
        Names of kept analyses.
    """
    set_widgets({"compare_maps": list(names), "pareto_maps": list(names)})


def kept_choice(key: str) -> list[str]:
    """Prepare a multiselect of kept analyses: its remembered choice, limited to the kept names.

    Parameters
    ----------
    key : str
        The multiselect's key.

    Returns
    -------
    list of str
        The kept analyses' names (its options).
    """
    names = [a.name for a in analyses()]
    init_widget(key, names)
    st.session_state[key] = [n for n in st.session_state[key] if n in names]
    return names


def cache() -> BoundedCache:
    """The session's cache of computed analyses.

    Returns
    -------
    BoundedCache
        The session's cache of results.
    """
    return st.session_state.setdefault(CACHE, BoundedCache(max_entries=24))


_SHARED_LOCK = threading.Lock()


@st.cache_resource
def shared_cache() -> BoundedCache:
    """The results of specifications that use no uploaded data (the home map, the worked examples), for every session.

    Returns
    -------
    BoundedCache
    """
    return BoundedCache(max_entries=64)


def _cache_for(spec) -> BoundedCache:
    """The shared cache for a specification without uploaded data, else the session's own (uploads stay in it)."""
    source = getattr(spec, "data", None)
    drawn_from_data = bool(getattr(spec, "from_data", ()))  # a setting taken from the session's data stays in it
    shared = (source is None and not drawn_from_data) or (source is not None and source.kind == "bundled")
    return shared_cache() if shared else cache()


def _key(spec) -> str:
    return cache_key(spec.data.digest if getattr(spec, "data", None) is not None else None, spec.to_dict())


def is_cached(spec) -> bool:
    """Whether the result of ``spec`` is at hand (drawn without running it again).

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    bool
    """
    return _key(spec) in _cache_for(spec)


def run_cached(spec, data: np.ndarray | None, progress: Callable[[float | None], None] | None = None,
               in_pool: bool = False, compute: Callable[[], Analysis] | None = None) -> Analysis:
    """Run a specification, reusing the result for the same data digest and configuration.

    Results on uploaded data are kept in the session's cache only; those of
    specifications without uploaded data in a cache shared by the sessions.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    data : ndarray, optional
        The data the specification was made for.
    progress : callable, optional
        Called with the fraction done (``None`` while a pool run waits for a worker).
    in_pool : bool
        Run in a worker process (:func:`dashboard.background.run_in_pool`), for long runs: the server
        keeps drawing the other sessions' pages meanwhile.
    compute : callable, optional
        Gives the result instead of running ``spec`` (one computed already).

    Returns
    -------
    Analysis
    """
    if compute is None and in_pool:
        from dashboard.background import run_in_pool

        def compute() -> Analysis:
            return run_in_pool(spec, data, progress)
    elif compute is None:
        def compute() -> Analysis:
            return spec.run(data, progress=None if progress is None else (lambda f: progress(f)))
    store = _cache_for(spec)
    if store is cache():
        return store.get_or_compute(_key(spec), compute)
    key = _key(spec)  # the shared cache: other sessions' threads use it too
    with _SHARED_LOCK:
        if key in store:
            return store.get_or_compute(key, compute)
    result = compute()  # outside the lock: a long run must not hold up the other sessions
    with _SHARED_LOCK:
        return store.get_or_compute(key, lambda: result)


def keep_result(spec, analysis: Analysis) -> None:
    """Keep the result of ``spec`` computed elsewhere (a run that outlived its page) where :func:`run_cached` finds it.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    analysis : Analysis
    """
    run_cached(spec, None, compute=lambda: analysis)


#: Session-state key of the session's cache of drawn figures.
FIGURES = "rumap_figures"


@st.cache_resource
def shared_figures() -> BoundedCache:
    """The figures of specifications that use no uploaded data, for every session.

    Returns
    -------
    BoundedCache
    """
    return BoundedCache(max_entries=16)


def figure_cached(spec, build: Callable[[], object]):
    """The figure of ``spec``'s result, built once: a Plotly figure takes 0.1-0.3 s of the server's time to build.

    Kept as the result is (:func:`run_cached`): in a cache shared by the sessions for a
    specification without uploaded data, else in the session's own. Streamlit copies the
    figure it draws; the cached one is not changed.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    build : callable
        Builds the figure of the result of ``spec``.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if _cache_for(spec) is cache():
        return st.session_state.setdefault(FIGURES, BoundedCache(max_entries=8)).get_or_compute(_key(spec), build)
    with _SHARED_LOCK:
        return shared_figures().get_or_compute(_key(spec), build)


def set_name_hint(spec, name: str) -> None:
    """Propose ``name`` (e.g. an example's title) for maps made with exactly this specification.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec
    name : str
    """
    st.session_state.setdefault("rumap_name_hints", {})[config_digest(spec.to_dict())] = name


def name_hint(digest: str) -> str | None:
    """The name proposed for maps made with the specification of this digest.

    Parameters
    ----------
    digest : str
        :func:`rumap.fingerprint.config_digest` of a specification.

    Returns
    -------
    str or None
    """
    return st.session_state.get("rumap_name_hints", {}).get(digest)


def data_for(spec) -> np.ndarray | None:
    """The session's chosen data if they are the data ``spec`` was made for, else ``None``.

    With ``None`` a specification falls back to its stored or bundled data.

    Parameters
    ----------
    spec : AnalyticSpec or EmpiricalSpec

    Returns
    -------
    ndarray or None
    """
    source = getattr(spec, "data", None)
    sel = selection()
    if source is not None and sel is not None and sel.source.digest == source.digest:
        return sel.values
    return None


def set_current(page: str, analysis: Analysis | None) -> None:
    """Remember the analysis a page shows (for when the page is drawn again).

    Parameters
    ----------
    page : str
    analysis : Analysis or None
    """
    st.session_state.setdefault(CURRENT, {})[page] = analysis


def current(page: str) -> Analysis | None:
    """The analysis a page showed last.

    Parameters
    ----------
    page : str

    Returns
    -------
    Analysis or None
    """
    return st.session_state.get(CURRENT, {}).get(page)


def init_widget(key: str, default) -> None:
    """Give a widget its remembered value (or ``default``) before it is drawn.

    Streamlit forgets the state of widgets on pages that are not shown; the
    values are kept in a separate store so they survive a change of page.

    Parameters
    ----------
    key : str
    default
        The value before the user sets one.
    """
    store = st.session_state.setdefault(STORE, {})
    if key not in st.session_state:
        st.session_state[key] = store.get(key, default)


def remember(*keys: str) -> None:
    """Save the widgets' current values so they survive a change of page."""
    store = st.session_state.setdefault(STORE, {})
    for key in keys:
        if key in st.session_state:
            store[key] = st.session_state[key]


def set_widgets(values: dict) -> None:
    """Set widgets' values (e.g. from an example) for the next time their page is drawn.

    Parameters
    ----------
    values : dict
        Widget key -> value.
    """
    store = st.session_state.setdefault(STORE, {})
    for key, value in values.items():
        store[key] = value
        st.session_state.pop(key, None)
