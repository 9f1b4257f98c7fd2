"""Queries & granularity: camouflage answers, the query auditor, their R-U maps, and the granularity of tables.

Three protections from Mas, *Statistical Data Protection Techniques* (EUSTAT), on one file: a confidential numeric
column answered through confidentiality via camouflage (Gopal & Goes), the
same column behind an auditor of query sequences (Malvestuto & Moscarini), and
the index of granularity of the tables of 2 and 3 key variables, the seed's three types of granularity
and their elimination as a release step, with its R-U map over the critical level. A thin layer
over :mod:`rumap.databases`, :mod:`rumap.maps.databases` and
:mod:`rumap.tables.granularity`; runs on its own
(``python -m streamlit run pages/databases.py`` from the project's root).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.files import PageFile, example_or_upload
from dashboard.granularity import elimination_section
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.provenance import show_page_file
from dashboard.widgets import (
    errors_shown,
    keep_controls,
    multiselect,
    number,
    plot,
    remembered,
    reproduce,
    selectbox,
)
from rumap.databases.intervals import implied_ranges
from rumap.databases.queries import parse_queries, queries_from_text
from rumap.errors import InputError
from rumap.io.data import numeric_column, numeric_column_names
from rumap.present.plotting import ru_map_figure
from rumap.present.reproduce import to_python
from rumap.specs.calls import CallSpec
from rumap.tables.granularity import granularity

EXAMPLE = "persons (synthetic, categorical keys)"
DEFAULT_VALUE = "income"
DEFAULT_KEYS = ("sex", "marital", "region")
CAMOUFLAGE_QUERIES = "SUM:1-6\nMEAN:*\nMIN:1-4\nMAX:*\nCOUNT>30000:*"
AUDIT_QUERIES = "SUM:1-3\nSUM:1,2\nSUM:4-12\nMEAN:4-8\nSUM:1-12"


@dataclass(frozen=True)
class Settings:
    """The sidebar's choices."""

    value: str
    records: int
    protection: float
    k: int
    seed: int


def settings_block(file: PageFile) -> Settings:
    """The confidential column, the records in the database, the protection and the camouflage's k and seed.

    Parameters
    ----------
    file : PageFile

    Returns
    -------
    Settings
    """
    columns = numeric_column_names(file.frame)
    if not columns:
        raise InputError(f"{file.name}: has no numeric column to protect")
    value = selectbox("confidential column", columns, "databases_value",
                      DEFAULT_VALUE if DEFAULT_VALUE in columns else columns[0])
    records = int(number("workload_records", "records in the database (the first rows)", "databases_records", 12,
                         high=max(2, file.frame.shape[0]),
                         help="queries name records 1, 2, ... in the order of the file"))
    protection = float(number("camouflage_width", "protection, percent of each value", "databases_protection", 10.0,
                              help="camouflage width w and the auditor's protection interval: a_i +- w |a_i|"))
    k = int(number("camouflage_k", "camouflage vectors k", "databases_k", 3,
                   help="P^1 .. P^k, the last being the data (Gopal & Goes: 3 to 6)"))
    seed = int(number("seed", "seed", "databases_seed", 0))
    return Settings(value, records, protection, k, seed)


def typed_queries(key: str, default: str) -> list[str]:
    """Queries typed one per line (or as a JSON list).

    Parameters
    ----------
    key : str
        The text area's key.
    default : str
        Its first content.

    Returns
    -------
    list of str
    """
    text = remembered(st.text_area, "queries, one per line: SUM:1,2,3  MEAN:4-9  MIN:*  MAX:1-5  COUNT>=100:*",
                      key, default, height=140)
    return queries_from_text(text)


def _call(file: PageFile, s: Settings, function: str, **arguments) -> CallSpec:
    """``function`` of the database (the first records of the confidential column) with these arguments."""
    return CallSpec(function, file.path, arguments, column=s.value, records=s.records, source=file.name)


def camouflage_tab(file: PageFile, s: Settings, values: np.ndarray) -> None:
    """Answers with guarantees, the hidden vectors and the intervals the answers imply.

    Parameters
    ----------
    file : PageFile
    s : Settings
    values : ndarray
        The database's confidential values.
    """
    queries = typed_queries("databases_camouflage_queries", CAMOUFLAGE_QUERIES)
    call = _call(file, s, "rumap.databases.camouflage.answer_with_camouflage", queries=queries,
                 protection=s.protection, k=s.k, seed=s.seed)
    released = call.apply(values)
    vectors, answers = released.vectors, released.answers
    st.markdown("**Answers**: the exact answer lies in answer ± guarantee.")
    st.dataframe(answers.to_frame(), hide_index=True)
    parsed = parse_queries(queries, values.size)
    known = np.zeros(values.size) if (values >= 0).all() else None
    low, high = implied_ranges(parsed, answers.low, answers.high, values.size, lower=known)
    st.markdown("**The hidden vectors** P1 .. Pk (the last is the data) and, per record, the interval "
                "[p_min, p_max] that holds [l, u], and the range the answers above imply"
                + (" for values known to be non-negative." if known is not None else "."))
    table = vectors.to_frame().assign(implied_low=low, implied_high=high)
    st.dataframe(table, hide_index=True)
    reproduce(call, what="these answers", command_caption="Command line:", key="databases_camouflage")


def audit_tab(file: PageFile, s: Settings, values: np.ndarray) -> None:
    """The auditor's log of accepted and refused queries, with its explanations.

    Parameters
    ----------
    file : PageFile
    s : Settings
    values : ndarray
    """
    queries = typed_queries("databases_audit_queries", AUDIT_QUERIES)
    exact_only = remembered(st.checkbox, "refuse exact disclosure only (protection 0)", "databases_exact_only", False)
    protection = 0.0 if exact_only else s.protection
    call = _call(file, s, "rumap.databases.audit.audit_queries", queries=queries, protection=protection)
    log = call.apply(values)
    cols = st.columns(2)
    cols[0].metric("queries answered", f"{log.answered} of {len(log.decisions)}")
    cols[1].metric("queries refused", f"{len(log.decisions) - log.answered}")
    st.dataframe(log.to_frame(), hide_index=True)
    st.markdown("**What the answered queries imply** about each record (values known to be non-negative).")
    st.dataframe(log.records_frame(), hide_index=True)
    reproduce(call, what="this audit", command_caption="Command line:", key="databases_audit")


def parse_levels(text: str) -> list[float]:
    """Protection levels typed as numbers separated by commas, sorted, without repeats.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of float
    """
    try:
        levels = sorted({float(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise InputError(f"protection levels must be numbers separated by commas, got {text!r}") from None
    if not levels:
        raise InputError("give at least one protection level")
    return levels


def maps_tab(file: PageFile, s: Settings, values: np.ndarray) -> None:
    """The R-U maps of camouflage and auditing over the protection, on a random workload of SUM queries.

    Parameters
    ----------
    file : PageFile
    s : Settings
    values : ndarray
    """
    levels = parse_levels(remembered(st.text_input, "protection levels, percent", "databases_levels", "5, 20, 50"))
    queries = int(number("workload_queries", "random SUM queries in the workload", "databases_workload", 10,
                         help="each over a random set of 2 to n/2 records, the same at every level"))
    calls = (_call(file, s, "rumap.maps.databases.camouflage_map", protections=levels, k=s.k, queries=queries,
                   records=s.records, seed=s.seed),
             _call(file, s, "rumap.maps.databases.audit_map", protections=levels, queries=queries, records=s.records,
                   seed=s.seed))
    camouflage, audit = (call.apply(values) for call in calls)
    left, right = st.columns(2)
    with left:
        st.markdown("**Camouflage** over its width")
        plot(ru_map_figure([camouflage]), key="databases_camouflage_chart")
        st.dataframe(camouflage.to_frame(), hide_index=True)
        reproduce(calls[0], what="this map", key="databases_camouflage_map")
    with right:
        st.markdown("**Query auditing** over its protection level")
        plot(ru_map_figure([audit]), key="databases_audit_chart")
        st.dataframe(audit.to_frame(), hide_index=True)
        reproduce(calls[1], what="this map", key="databases_audit_map")
    st.caption("R = 1 / the narrowest interval (relative to the value) an intruder derives for any record from the "
               "answers; U = 1 / the mean relative guarantee width (camouflage) or the share of the queries "
               "answered (auditing).")
    settings = {"data": file.path, "value": s.value, "records": s.records, "levels": levels, "queries": queries,
                "k": s.k, "seed": s.seed}
    spec = PageMapSpec(page="databases", label=f"camouflage and auditing, {file.name}: {s.value}",
                       settings=settings, python="\n\n".join(to_python(call) for call in calls))
    keep_controls(page_analysis([camouflage, audit], spec), "databases_maps")


def granularity_tab(file: PageFile) -> None:
    """Mas's procedure: tables of 2 and 3 key variables, their index of granularity, the unit cells.

    Parameters
    ----------
    file : PageFile
    """
    columns = [str(c) for c in file.frame.columns]
    default = [c for c in DEFAULT_KEYS if c in columns] or columns[: min(3, len(columns))]
    keys = multiselect("key variables", columns, "databases_keys", default)
    threshold = float(number("granularity_threshold", "index of granularity at which a hyper-row is unsafe, percent",
                             "databases_threshold", 50.0,
                             help="Mas's rule: under 50% no action on the hyper-row is required"))
    if len(keys) < 2:
        st.info("Choose at least two key variables.")
        return
    call = CallSpec("rumap.tables.granularity.granularity_analysis", file.path, {"keys": keys, "threshold": threshold},
                    source=file.name)
    result = call.run(file.frame)
    unsafe = int((~result.tables["safe"]).sum())
    st.metric("tables with a hyper-row at or above the threshold", f"{unsafe} of {len(result.tables)}")
    st.dataframe(result.tables, hide_index=True)
    st.markdown(f"**Unit cells** ({len(result.unit_cells):,}; "
                f"{int(result.records_in_unit_cells.sum()):,} records alone in a cell of some table)")
    st.dataframe(result.unit_cells, hide_index=True)
    chosen = selectbox("hyper-rows of the table", list(result.tables["variables"]), "databases_granularity_table",
                       str(result.tables["variables"].iloc[0]))
    variables = chosen.split(" x ")
    cells = file.frame[variables].dropna().astype(str).value_counts(sort=False).rename("count").reset_index()
    table = granularity(cells, threshold=threshold)
    st.dataframe(table.to_frame(), hide_index=True)
    reproduce(call, what="this analysis", key="databases_granularity")
    st.caption(f"Keys: {', '.join(plain(k) for k in keys)}.")
    elimination_section(file, keys, threshold)


st.title("Queries & granularity")
st.caption("From Mas, *Statistical Data Protection Techniques* (EUSTAT): confidentiality via camouflage "
           "(Gopal & Goes), audits for databases "
           "(Malvestuto & Moscarini) and the index of granularity (unit cells / cells with a value x 100).")

with errors_shown():
    with st.sidebar:
        file = example_or_upload(EXAMPLE, "databases", "database file (CSV, Excel, Parquet, Stata, SPSS, SAS)")
    if file is None:
        st.info("Upload the database file, or choose the bundled example.")
        st.stop()
    show_page_file(file.name, int(file.frame.shape[0]), session=file.session)
    with st.sidebar:
        settings = settings_block(file)
    database = numeric_column(file.frame, settings.value, source=file.name)[: settings.records]
    st.subheader(f"{plain(file.name)}: {plain(settings.value)} of records 1 to {database.size}")
    st.dataframe(pd.DataFrame({"record": np.arange(1, database.size + 1), settings.value: database}).T,
                 hide_index=False)
    tabs = st.tabs(["Camouflage", "Auditor", "R-U maps", "Granularity"])
    with tabs[0], errors_shown():
        camouflage_tab(file, settings, database)
    with tabs[1], errors_shown():
        audit_tab(file, settings, database)
    with tabs[2], errors_shown():
        maps_tab(file, settings, database)
    with tabs[3], errors_shown():
        granularity_tab(file)
