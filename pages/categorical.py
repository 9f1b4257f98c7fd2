"""Categorical key variables, the mu-Argus way: who is at risk, and what protection costs.

The page measures the individual risk of every record on the chosen keys
(mu-Argus/sdcMicro), the households' risk, k-anonymity and l-diversity, lists
the unsafe combinations of key variables, and draws the R-U maps of local
suppression (over k), PRAM (over the retention probability) and global
recoding (over the band width), each with a choice of R and U, and SUDA2's
special uniques. A thin layer over :mod:`rumap.risk.individual`,
:mod:`rumap.risk.keys`, :mod:`rumap.risk.suda`, :mod:`rumap.masking.categorical`
and :mod:`rumap.maps.categorical`; runs on its own
(``python -m streamlit run pages/categorical.py`` from the project's root).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from dashboard import server_categorical, state
from dashboard.files import PageFile, example_or_upload
from dashboard.markdown import plain
from dashboard.pagemaps import PageMapSpec, page_analysis
from dashboard.provenance import show_page_file
from dashboard.server_files import server_file_input
from dashboard.widgets import (
    errors_shown,
    keep_controls,
    multiselect,
    number,
    plot,
    remembered,
    reproduce,
    selectbox,
    tabbed_sections,
)
from rumap import PARAMETERS
from rumap.maps.categorical import CATEGORICAL_RISKS, CATEGORICAL_UTILITIES
from rumap.maps.swap_map import swapped_shares_sentence
from rumap.masking.categorical import (
    MAX_LISTED_PRAM_CATEGORIES,
    parse_merges,
    pram_matrix,
    recode,
    unmatched_categories,
)
from rumap.present.plotting import ru_map_figure
from rumap.present.report import csv_text
from rumap.present.reproduce import command_or_reason, to_python
from rumap.release.pram_step import PRAM_STEP
from rumap.release.recode_step import RECODE_STEP
from rumap.release.suppress_step import SUPPRESS_STEP
from rumap.release.swap_step import SWAP_STEP
from rumap.risk.individual import l_diversity
from rumap.risk.keys import key_analysis, unsafe_cells
from rumap.risk.suda import DEFAULT_DIS_FRACTION, DEFAULT_MAX_SIZE, max_size_choices
from rumap.specs.calls import CallSpec

EXAMPLE = "survey (synthetic, households and weights)"
DEFAULT_KEYS = ("age_band", "sex", "region", "marital", "occupation")
NONE = "(none)"
DEFAULT_MEASURE = "(the method's own)"
#: The key of the maps' tabs (``st.session_state[TAB_KEY]`` is the open tab's title).
TAB_KEY = "categorical_tab"


#: The file assessed (its table, name and how code refers to it).
File = PageFile


@dataclass(frozen=True)
class Settings:
    """The sidebar's choices."""

    keys: tuple[str, ...]
    weight: str | None
    household: str | None
    sensitive: str | None
    k: int
    threshold: int
    merges: tuple[str, ...] = ()


def file_block() -> File | None:
    """The bundled survey or an uploaded file (read in memory); ``None`` while the upload is missing.

    Returns
    -------
    File or None
    """
    return example_or_upload(EXAMPLE, "cat", "microdata file (CSV, Excel, Parquet, Stata, SPSS, SAS)",
                             server_files=True)


def _optional(label: str, columns: list[str], key: str, default: str | None) -> str | None:
    options = [NONE, *columns]
    chosen = remembered(st.selectbox, label, key, default if default in columns else NONE, options=options)
    return None if chosen == NONE else chosen


#: The button that applies the sidebar's settings form.
SETTINGS_APPLY = "cat_settings_apply"


def settings_block(columns: list[str]) -> Settings:
    """Keys, weight, household, sensitive variable, k and the unsafe-cell threshold.

    Parameters
    ----------
    columns : list of str

    Returns
    -------
    Settings

    The fields are one form: choosing several keys one after the other measures the file once, when the user
    presses the form's button, not once per key.
    """
    with st.form("cat_settings", border=False):
        keys = multiselect("key variables", columns, "cat_keys",
                           [c for c in DEFAULT_KEYS if c in columns] or columns[:3])
        weight = _optional("sampling weight", columns, "cat_weight", "weight")
        household = _optional("household identifier", columns, "cat_household", "hh")
        sensitive = _optional("sensitive variable (l-diversity)", columns, "cat_sensitive", "health")
        k = int(number("k", "k of k-anonymity", "cat_k", 3,
                       help="every combination of the key variables must be shared by at least k records"))
        threshold = int(number("k", "unsafe cell: fewer records than", "cat_threshold", 3,
                               help="a combination of key values shared by fewer records than this is listed as "
                                    "unsafe"))
        st.form_submit_button("Measure with these settings", key=SETTINGS_APPLY, type="primary", width="stretch")
    return Settings(tuple(keys), weight, household, sensitive, k, threshold)


@dataclass(frozen=True)
class Measures:
    """The R and U the maps draw (``None``: each method's own) and their options."""

    risk: str | None
    utility: str | None
    options: dict


def measures_block(frame: pd.DataFrame, s: Settings) -> Measures:
    """The R and U of the maps, and the option each needs.

    Parameters
    ----------
    frame : DataFrame
    s : Settings

    Returns
    -------
    Measures
    """
    left, right = st.columns(2)
    risks, utilities = [DEFAULT_MEASURE, *CATEGORICAL_RISKS], [DEFAULT_MEASURE, *CATEGORICAL_UTILITIES]
    with left:
        risk = remembered(st.selectbox, "R of the maps", "cat_map_risk", DEFAULT_MEASURE, options=risks,
                          format_func=lambda n: n if n == DEFAULT_MEASURE else CATEGORICAL_RISKS[n].label)
    with right:
        utility = remembered(st.selectbox, "U of the maps", "cat_map_utility", DEFAULT_MEASURE, options=utilities,
                             format_func=lambda n: n if n == DEFAULT_MEASURE else CATEGORICAL_UTILITIES[n].label)
    options: dict = {}
    if risk == "share_above":
        options["threshold"] = float(number("risk_bound", "risk threshold (share of records above it)",
                                            "cat_map_threshold", 0.1, format="%.3f"))
    if risk == "k_violations":
        options["k"] = max(2, s.k)
        st.caption(f"k-anonymity violations counted with k = {options['k']} (the sidebar's k).")
    columns = [str(c) for c in frame.columns]
    if utility == "cramers_v":
        a, b = st.columns(2)
        with a:
            first = remembered(st.selectbox, "first variable of Cramer's V", "cat_pair_first", s.keys[0],
                               options=columns)
        with b:
            others = [c for c in columns if c != first]
            second = remembered(st.selectbox, "second variable", "cat_pair_second",
                                next((c for c in others if c in ("health", "marital")), others[0]), options=others)
        options["pair"] = (first, second)
    if utility == "regression":
        numeric = [c for c in columns if c not in s.keys and pd.api.types.is_numeric_dtype(frame[c])]
        if not numeric:
            st.info("The regression utility needs a numeric response that is not a key.")
            utility = None
        else:
            options["response"] = remembered(st.selectbox, "response regressed on the keys", "cat_response",
                                              "weight" if "weight" in numeric else numeric[0], options=numeric)
    return Measures(None if risk == DEFAULT_MEASURE else risk, None if utility == DEFAULT_MEASURE else utility,
                    options)


def merge_lines(text: str) -> list[str]:
    """The recoding form's lines that hold a recoding (blank ones dropped).

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
    """
    return [line.strip() for line in text.splitlines() if line.strip()]


def _call(file: File, s: Settings, function: str, **arguments) -> CallSpec:
    """``function`` of the (recoded) file with these arguments: what a block computes and its reproduce code."""
    return CallSpec(function, file.path, arguments, merges=s.merges, source=file.name)


def measures(file: File, s: Settings, frame: pd.DataFrame) -> None:
    """The risk figures of the (recoded) file.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    """
    spec = _call(file, s, "rumap.risk.individual.individual_risk", keys=list(s.keys), weight=s.weight,
                 household=s.household, k=s.k)
    result = spec.apply(frame)
    cols = st.columns(5)
    cols[0].metric("records", f"{result.n:,}")
    cols[1].metric("expected re-identifications", f"{result.expected_reidentifications:.2f}")
    cols[2].metric("global risk", f"{result.global_risk:.4g}")
    cols[3].metric(f"records with f_k < {s.k}", f"{result.k_anonymity_violations:,}")
    if result.household_risk is not None:
        cols[4].metric("household re-identifications", f"{result.household_expected_reidentifications:.2f}")
    if s.sensitive is not None:
        diversity = l_diversity(frame, list(s.keys), s.sensitive, source=file.name)
        st.caption(f"Distinct l-diversity of {plain(s.sensitive)}: {int((diversity == 1).sum()):,} record(s) sit in a "
                   "key group that shows a single value, which anyone knowing the key learns.")
    st.caption("Individual risk as mu-Argus and sdcMicro compute it (negative binomial posterior of 1/F_k given "
               "f_k; 1/f_k without weights); a missing key value matches any category.")
    if st.button("Per-record risk as CSV", key="cat_risk_prepare",
                 help="prepare a table of every record's keys, f_k, F_k and risk for download"):
        table = pd.concat([frame[list(s.keys)].reset_index(drop=True), result.to_frame()], axis=1)
        st.download_button("Download the per-record risk (CSV)", csv_text(table), file_name="rumap_record_risk.csv",
                           mime="text/csv", on_click="ignore", key="cat_risk_download")
    reproduce(spec, what="these figures", command_caption="Command line:", key="categorical_measures")


def combinations_block(file: File, s: Settings, frame: pd.DataFrame) -> None:
    """The unsafe combinations of key variables and the variables most often in them.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    """
    analysis = state.frame_cached(frame, "categorical", "keys", {"keys": list(s.keys), "threshold": s.threshold},
                                  lambda: key_analysis(frame, list(s.keys), dimension=min(3, len(s.keys)),
                                                       threshold=s.threshold, source=file.name))
    st.subheader("Unsafe combinations of key variables")
    st.caption(f"Every combination of up to {analysis.dimension} keys; a cell is unsafe with fewer than "
               f"{s.threshold} records. {int(analysis.records_at_risk.sum()):,} record(s) are in an unsafe cell.")
    left, right = st.columns([3, 2])
    left.dataframe(analysis.combinations.head(25), hide_index=True, width="stretch")
    right.dataframe(analysis.variables, hide_index=True, width="stretch")
    combos = analysis.combinations["variables"].tolist()
    chosen = remembered(st.selectbox, "unsafe cells of", "cat_combination", combos[0], options=combos)
    st.dataframe(unsafe_cells(frame, chosen.split(" x "), threshold=s.threshold, source=file.name).head(200),
                 hide_index=True)


def _keep(file: File, s: Settings, ru, label: str, settings: dict, call: CallSpec, key: str,
          measured: str = "") -> None:
    """Keep and Apply under the map; ``measured`` names what it measures when not the sidebar's keys."""
    spec = PageMapSpec(page="categorical", label=f"{label}, {file.name}: {measured or ' x '.join(s.keys)}",
                       settings={"data": file.path, "fingerprint": state.file_fingerprint(file.frame, file.session),
                                 "keys": list(s.keys), **settings,
                                 **({"merges": list(s.merges)} if s.merges else {})}, python=to_python(call),
                       command=command_or_reason(call)[0])
    reproduce(call, command_caption="Command line (prints the curve as JSON):", key=f"categorical_{key}")
    keep_controls(page_analysis([ru], spec), key)


def _measured(m: Measures) -> dict:
    return {"risk": m.risk, "utility": m.utility, "options": {k: list(v) if isinstance(v, tuple) else v
                                                              for k, v in m.options.items()}}


def suppression_tab(file: File, s: Settings, frame: pd.DataFrame, m: Measures) -> None:
    """The R-U map of local suppression over k.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    m : Measures
    """
    suppress = SUPPRESS_STEP.key_map
    top = int(number("k", "largest k", "cat_k_max", suppress.default_grid[1],
                     help="the map's last k of k-anonymity: local suppression is drawn for k = 2 up to this"))
    ks = suppress.values(stop=top)
    call = _call(file, s, suppress.function, keys=list(s.keys), ks=ks, weight=s.weight,
                 risk=m.risk, utility=m.utility, options=m.options)
    ru = state.frame_cached(frame, "categorical", "suppression", {"keys": list(s.keys), "ks": ks, "weight": s.weight, **_measured(m)},
                lambda: call.apply(frame))
    _show_map(ru, "cat_suppression_chart", "Each point suppresses key values (mu-Argus's rule) until the file is "
              "k-anonymous.")
    _keep(file, s, ru, "local suppression", {"ks": ks, "weight": s.weight, **_measured(m)}, call, "cat_suppression")


def _show_map(ru, key: str, what: str, after: str = "") -> None:
    """A categorical map: its figure, a caption saying what it draws and with which R and U, its table."""
    plot(ru_map_figure([ru]), key=key)
    st.caption(f"{what} {plain(ru.risk_label)}; {plain(ru.utility_label)}.{after}")
    st.dataframe(ru.to_frame(), hide_index=True)


def pram_tab(file: File, s: Settings, frame: pd.DataFrame, m: Measures) -> None:
    """The simulated R-U map of PRAM over the retention probability.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    m : Measures
    """
    replicates = int(number("replicates", "replicates", "cat_replicates", 10))
    thetas = PRAM_STEP.key_map.values()
    call = _call(file, s, PRAM_STEP.key_map.function, keys=list(s.keys), thetas=thetas, replicates=replicates,
                 seed=0, weight=s.weight, risk=m.risk, utility=m.utility, options=m.options)
    ru = state.frame_cached(frame, "categorical", "pram", {"keys": list(s.keys), "thetas": thetas, "replicates": replicates, **_measured(m),
                                "weight": s.weight},
                lambda: call.apply(frame))
    _show_map(ru, "cat_pram_chart", "Invariant PRAM keeps each key value with probability theta, else redraws it "
              "from the variable's distribution.", " Bands: 95% over the replicates.")
    with st.expander("Transition matrices"):
        theta = float(number("theta", "theta (probability that a value is kept)", "cat_theta", 0.8, format="%.2f"))
        variable = remembered(st.selectbox, "key variable", "cat_matrix_variable", s.keys[0], options=list(s.keys))
        counts = frame[variable].dropna().astype(str).value_counts(sort=False)
        st.caption("Row: the true category; column: the released one. P = theta I + (1 - theta) 1 pi^T keeps "
                   "the expected frequencies (pi P = pi).")
        if len(counts) > MAX_LISTED_PRAM_CATEGORIES:
            st.info(f"{variable} has {len(counts):,} categories: the matrix is too large to list here "
                    f"(up to {MAX_LISTED_PRAM_CATEGORIES}). Each row keeps its category with probability theta "
                    "and otherwise draws one from the variable's own distribution.")
        else:
            matrix = pram_matrix(counts.to_numpy(dtype=float), theta)
            st.dataframe(pd.DataFrame(matrix, index=counts.index, columns=counts.index).round(4), width="stretch")
    _keep(file, s, ru, "PRAM", {"thetas": thetas, "replicates": replicates, "seed": 0, **_measured(m)}, call,
          "cat_pram")


def banding_tab(file: File, s: Settings, frame: pd.DataFrame, m: Measures) -> None:
    """The R-U map of banding a numeric key over the band width.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    m : Measures
    """
    numeric = [c for c in s.keys if pd.api.types.is_numeric_dtype(frame[c])]
    if not numeric:
        st.info("Banding needs a numeric key variable (such as age): add one to the keys.")
        return
    variable = remembered(st.selectbox, "numeric key to band", "cat_band_variable", numeric[0], options=numeric)
    widths = RECODE_STEP.key_map.values()
    call = _call(file, s, RECODE_STEP.key_map.function, keys=list(s.keys), variable=variable, widths=widths,
                 weight=s.weight, risk=m.risk, utility=m.utility, options=m.options)
    ru = state.frame_cached(frame, "categorical", "banding", {"keys": list(s.keys), "variable": variable, "weight": s.weight, **_measured(m)},
                lambda: call.apply(frame))
    _show_map(ru, "cat_banding_chart", f"Global recoding of {plain(variable)} into bands.")
    _keep(file, s, ru, f"banding {variable}", {"variable": variable, "widths": widths, **_measured(m)}, call,
          "cat_banding")


def swap_tab(file: File, s: Settings, frame: pd.DataFrame, m: Measures) -> None:
    """The simulated R-U map of targeted record swapping over the swap rate.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    m : Measures
    """
    if not remembered(st.toggle, "Draw the map of targeted swapping (households swapped between areas)",
                      "cat_swap_draw", False):
        st.caption("Targeted swapping exchanges the geography of households at risk with households of other areas "
                   "that agree on the similarity variables; its map is simulated when asked.")
        return
    columns = [str(c) for c in frame.columns]
    c1, c2, c3 = st.columns(3)
    with c1:
        hierarchy = remembered(st.multiselect, "geography, top level first", "cat_swap_hierarchy",
                               [c for c in ("region", "district") if c in columns], options=columns)
    with c2:
        household = selectbox("household identifier", [NONE, *columns], "cat_swap_household",
                              "hh" if "hh" in columns else NONE)
    with c3:
        similar = remembered(st.multiselect, "similarity variables (the partner agrees on them)", "cat_swap_similar",
                             [c for c in ("hh_size",) if c in columns], options=columns)
    if not hierarchy or household == NONE:
        st.info("Choose the geographic variables and the household identifier.")
        return
    replicates = int(number("replicates", "replicates", "cat_swap_replicates", 3))
    rates = SWAP_STEP.key_map.values()
    keys = [k for k in s.keys if k not in hierarchy]
    call = _call(file, s, "rumap.maps.swap_map.swap_map", keys=keys, swaprates=rates, hierarchy=list(hierarchy),
                 household=household, similar=[list(similar)], replicates=replicates, seed=0, weight=s.weight,
                 risk=m.risk, utility=m.utility, options=m.options)
    ru = state.frame_cached(frame, "categorical", "swap", {"keys": keys, "rates": rates, "replicates": replicates,
                                                         "hierarchy": list(hierarchy), "household": household,
                                                         "similar": list(similar), **_measured(m),
                                                         "weight": s.weight},
                            lambda: call.apply(frame))
    _show_map(ru, "cat_swap_chart", "Targeted swapping exchanges the geography of every household holding a record "
              "whose keys fewer than 3 records share in its area, and of random others up to the swap rate, with a "
              "household of another area that agrees on the similarity variables.",
              f" Bands: 95% over the replicates. {swapped_shares_sentence(ru)}".rstrip())
    _keep(file, s, ru, "targeted swapping", {"keys": keys, "rates": rates, "replicates": replicates, "seed": 0,
                                             "hierarchy": list(hierarchy), "household": household,
                                             "similar": list(similar), **_measured(m)}, call, "cat_swap",
          measured=ru.target)  # the geography with the keys


def suda_tab(file: File, s: Settings, frame: pd.DataFrame) -> None:
    """SUDA2's special uniques: every record's minimal sample uniques, SUDA score and DIS score.

    Parameters
    ----------
    file : File
    s : Settings
    frame : DataFrame
    """
    left, right = st.columns(2)
    with left:
        size = selectbox("largest MSU searched", max_size_choices(len(s.keys)), "cat_suda_max", DEFAULT_MAX_SIZE,
                         format_func=lambda m: f"all {len(s.keys)} keys (default)" if m is None else str(m),
                         help=PARAMETERS["max_size"].description)
    with right:
        fraction = float(number("dis_fraction", "sampling fraction (DIS)", "cat_suda_fraction", DEFAULT_DIS_FRACTION,
                                format="%.4f"))
    call = _call(file, s, "rumap.risk.suda.suda2", keys=list(s.keys), max_size=size, dis_fraction=fraction)
    result = state.frame_cached(frame, "categorical", "suda", {"keys": list(s.keys), "max_size": size, "dis_fraction": fraction},
                    lambda: call.apply(frame))
    cols = st.columns(4)
    cols[0].metric("special uniques", f"{result.special_uniques:,}")
    cols[1].metric("sample uniques", f"{result.sample_uniques:,}")
    cols[2].metric("DIS", f"{result.dis:.4g}")
    cols[3].metric("highest SUDA score", f"{result.score.max():g}")
    st.caption("A minimal sample unique (MSU) is a set of a record's key values no other record shares, none of "
               "its subsets unique; an MSU of size k scores the product of (keys - i) for i = k..min(M, keys - 1). "
               "The DIS score turns the SUDA score into a probability of a correct match (sdcMicro's suda2).")
    table = pd.concat([frame[list(s.keys)].reset_index(drop=True), result.to_frame()], axis=1)
    table.insert(0, "record", range(1, len(table) + 1))
    left, right = st.columns([3, 1])
    left.dataframe(table.sort_values(["score", "record"], ascending=[False, True]).head(200), hide_index=True,
                   width="stretch")
    right.dataframe(result.variable_msus, hide_index=True, width="stretch")
    reproduce(call, what="these scores", command_caption="Command line:", key="categorical_scores")


st.title("Categorical key variables: individual risk and its protection")
st.caption("mu-Argus's methods, as Mas's *Statistical Data Protection Techniques* (EUSTAT) describes them: "
           "individual and household risk, unsafe combinations of key "
           "variables, local suppression, PRAM and global recoding, each with its R-U map.")

with errors_shown():
    with st.sidebar:
        source = file_block()
        server = server_file_input("cat_server")
    if server is not None:  # read out of core where it lies: the measures that map cleanly, with progress
        with st.sidebar:
            server_settings = settings_block(server_categorical.columns_of(server))
        if not server_settings.keys:
            st.info("Choose at least one key variable.")
        else:
            server_categorical.show(server, server_settings)
        st.stop()
    if source is None:
        st.info("Upload the microdata file to assess, or choose the bundled example.")
        st.stop()
    show_page_file(source.name, int(source.frame.shape[0]), session=source.session)
    columns = [str(c) for c in source.frame.columns]
    with st.sidebar:
        settings = settings_block(columns)
        merges = remembered(st.text_area, "recode before measuring (VAR: A, B = NEW per line)", "cat_recode", "",
                            help="global recoding applied to the file first, e.g. region: R01, R02 = north; an "
                                 "integer-coded variable's categories are written as numbers (education: 1, 2 = "
                                 "basic), a range of them as A..B (age: 18..24 = 18-24); a recoded variable's "
                                 "categories become text")
    if not settings.keys:
        st.info("Choose at least one key variable.")
        st.stop()
    settings = replace(settings, merges=tuple(merge_lines(merges)))
    working = source.frame
    if settings.merges:
        mapping = parse_merges(merges.splitlines())
        for variable, missing in unmatched_categories(source.frame, mapping, source=source.name).items():
            listed = ", ".join(missing[:10]) + (f" and {len(missing) - 10:,} more" if len(missing) > 10 else "")
            st.warning(f"Recoding of {plain(variable)}: {plain(listed)} matches no value of the "
                       "variable, so nothing of it was recoded.")
        working = recode(source.frame, mapping, source=source.name)
    st.caption(f"File: {plain(source.name)} ({working.shape[0]:,} records); keys: "
               + ", ".join(plain(k) for k in settings.keys))
    measures(source, settings, working)
    combinations_block(source, settings, working)
    st.subheader("R-U maps of the protections")
    chosen = measures_block(working, settings)
    tabbed_sections({  # a run draws the open tab's map only
        "Local suppression map": lambda: suppression_tab(source, settings, working, chosen),
        "PRAM map": lambda: pram_tab(source, settings, working, chosen),
        "Banding map": lambda: banding_tab(source, settings, working, chosen),
        "Targeted swapping map": lambda: swap_tab(source, settings, working, chosen),
        "Special uniques (SUDA2)": lambda: suda_tab(source, settings, working),
    }, TAB_KEY)
