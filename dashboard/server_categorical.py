"""The Categorical keys page on a file on the server: its risk, key frequencies and local suppression, out of core.

What :mod:`rumap.scale` computes without holding the file: individual and household risk,
k-anonymity and l-diversity (:func:`rumap.scale.individual_risk`), the frequencies of the key
values (:func:`rumap.scale.key_frequencies`) and local suppression to k-anonymity
(:func:`rumap.scale.suppress_file`, counted, nothing written). Each pass draws a progress bar and
its result is kept for the session (:func:`dashboard.server_files.file_cached`). What needs the file
in memory (the combinations of fewer keys, recoding first, the R-U maps, SUDA2) is named as such.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import pandas as pd
import streamlit as st

from dashboard.markdown import plain
from dashboard.provenance import show_source
from dashboard.server_files import ServerFile, file_cached, progress_bar
from dashboard.widgets import errors_shown, reproduce
from rumap.scale import key_frequencies, scan
from rumap.scale.protect import suppress_file
from rumap.specs.scale import ScaleRiskSpec

__all__ = ["IN_MEMORY_ONLY", "UnsafeRows", "columns_of", "show"]

T = TypeVar("T")

PAGE = "categorical"
#: What the page computes only on a file in memory.
IN_MEMORY_ONLY = ("the unsafe combinations of fewer keys, recoding before measuring, the R-U maps of local "
                  "suppression, PRAM and banding, and SUDA2's special uniques need the file in memory: upload it "
                  "(up to 200 MB) to draw them")
#: Rows of the unsafe key combinations listed.
LISTED = 200
#: Session-state key: the settings of the local suppression asked for.
SUPPRESSION_ASKED = "cat_server_suppression_asked"


@dataclass(frozen=True)
class UnsafeRows:
    """The combinations of all keys shared by fewer than ``threshold`` records: how many, and the first ones."""

    distinct: int
    records: int
    threshold: int
    first: pd.DataFrame


def columns_of(file: ServerFile) -> list[str]:
    """The file's columns (its header only is read).

    Parameters
    ----------
    file : ServerFile

    Returns
    -------
    list of str
    """
    return list(scan(file.path).columns)


def _computed(file: ServerFile, records: int, what: str, settings: dict, compute: Callable[[], T]) -> T:
    """``compute()`` kept for the session, with a progress bar while it runs."""
    def run() -> T:
        with progress_bar(file, records):
            return compute()

    return file_cached(file, PAGE, what, settings, run)


def _unsafe_rows(file: ServerFile, keys: list[str], weight: str | None, threshold: int) -> UnsafeRows:
    frequencies = key_frequencies(scan(file.path), keys, weight)
    table = frequencies.to_frame()
    unsafe = table[table["fk"] < threshold].sort_values("fk", kind="stable")
    return UnsafeRows(int(len(unsafe)), int(unsafe["count"].sum()), threshold, unsafe.head(LISTED).reset_index(drop=True))


def risk_spec(file: ServerFile, s) -> ScaleRiskSpec:
    """The specification of the risk figures of the file, from the page's choices.

    Parameters
    ----------
    file : ServerFile
    s : Settings
    """
    return ScaleRiskSpec(file.path, tuple(s.keys), weight=s.weight, household=s.household, k=s.k,
                         sensitive=s.sensitive)


def measures(file: ServerFile, s, records: int) -> None:
    """The risk figures, as the page shows them for a file in memory.

    Parameters
    ----------
    file : ServerFile
    s : Settings
        The page's sidebar choices (keys, weight, household, sensitive, k).
    records : int
    """
    spec = risk_spec(file, s)
    result = _computed(file, records, "risk", spec.to_dict(), spec.run)
    cols = st.columns(4 if result.household_expected_reidentifications is None else 5)
    cols[0].metric("records", f"{result.n:,}")
    cols[1].metric("expected re-identifications", f"{result.expected_reidentifications:.2f}")
    cols[2].metric("global risk", f"{result.global_risk:.4g}")
    cols[3].metric(f"records with f_k < {s.k}", f"{result.k_anonymity_violations:,}")
    if result.household_expected_reidentifications is not None:
        cols[4].metric("household re-identifications", f"{result.household_expected_reidentifications:.2f}")
    if s.sensitive is not None:
        st.caption(f"Distinct l-diversity of {plain(s.sensitive)}: {result.l_diversity_one:,} record(s) sit in a "
                   "key group that shows a single value, which anyone knowing the key learns.")
    st.caption("Individual risk as mu-Argus and sdcMicro compute it (negative binomial posterior of 1/F_k given "
               "f_k; 1/f_k without weights); a missing key value matches any category. Computed out of core "
               "(rumap.scale); the per-record risk is not offered for download from a file on the server.")
    reproduce(spec, what="these figures", key="categorical_server_measures")


def unsafe_block(file: ServerFile, s, records: int) -> None:
    """The combinations of all the keys shared by fewer records than the threshold.

    Parameters
    ----------
    file : ServerFile
    s : Settings
    records : int
    """
    keys = list(s.keys)
    unsafe = _computed(file, records, "unsafe", {"keys": keys, "weight": s.weight, "threshold": s.threshold},
                       lambda: _unsafe_rows(file, keys, s.weight, s.threshold))
    st.subheader("Unsafe combinations of all the key variables")
    st.caption(f"{unsafe.distinct:,} combination(s) of the {len(keys)} keys are shared by fewer than "
               f"{unsafe.threshold} records (f_k, a missing value matching any category); "
               f"{unsafe.records:,} record(s) hold one." + (f" The first {LISTED} by f_k:" if unsafe.distinct > LISTED
                                                             else ""))
    st.dataframe(unsafe.first, hide_index=True)


def suppression_block(file: ServerFile, s, records: int) -> None:
    """Local suppression of the key values to k-anonymity, on request: what it would suppress (nothing written).

    Parameters
    ----------
    file : ServerFile
    s : Settings
    records : int
    """
    st.subheader("Local suppression to k-anonymity")
    settings = {"keys": list(s.keys), "weight": s.weight, "k": s.k}
    if st.button(f"Count the suppressions for k = {s.k}", key="cat_server_suppress",
                 help="mu-Argus's rule, out of core: the values to suppress are counted, no file is written"):
        st.session_state[SUPPRESSION_ASKED] = settings
    if st.session_state.get(SUPPRESSION_ASKED) != settings:
        return
    result = _computed(file, records, "suppression", settings, lambda: suppress_file(
        scan(file.path), list(s.keys), None, k=s.k, weight=s.weight, progress=False))
    if not result.feasible:
        st.warning(plain(result.reason))
        return
    cols = st.columns(3)
    cols[0].metric("values suppressed", f"{sum(result.per_variable):,}")
    cols[1].metric("share of key values", f"{result.suppressed_share:.2%}")
    cols[2].metric("rounds", f"{result.rounds:,}")
    st.dataframe(result.to_frame(), hide_index=True)


def show(file: ServerFile, s) -> None:
    """The page on a file on the server: where it is, its risk, its unsafe combinations and local suppression.

    Parameters
    ----------
    file : ServerFile
    s : Settings
    """
    with st.spinner("counting the records"):
        records = file_cached(file, PAGE, "records", {}, lambda: scan(file.path).count())
    show_source(f"Data: a file on the server, {plain(file.name)}, n = {records:,} (read where it lies, "
                "out of core; nothing of it is copied).", None, uses_data=False)
    st.caption(f"File: {plain(file.name)} ({records:,} records); keys: " + ", ".join(plain(k) for k in s.keys))
    for block in (measures, unsafe_block, suppression_block):
        with errors_shown():  # a refusal (the work limit of suppression) leaves the other blocks drawn
            block(file, s, records)
    st.info(f"On a file on the server, {IN_MEMORY_ONLY}.")
