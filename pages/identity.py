"""Identity disclosure on categorical keys (Mokken, Kooiman, Pannekoek & Willenborg 1992).

Population uniques on a key are estimated from the sample with the
Poisson-gamma model; the risk that an investigator with ``a`` acquaintances
identifies at least one record is ``R = 1 - (1 - (a/N) f_u)^n``. Two R-U maps
show what subsampling and global recoding buy: the parameter is the released
sample fraction, or the width of the bands of a recoded numeric key variable.
A thin layer over :mod:`rumap.risk.identity`; runs on its own
(``python -m streamlit run pages/identity.py`` from the project's root).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.files import PageFile, example_or_upload
from dashboard.markdown import plain, plain_list
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
from rumap.errors import InputError
from rumap.present.plotting import ru_map_figure
from rumap.present.reproduce import to_python
from rumap.risk.identity import IdentityResult, multiple_investigators_risk
from rumap.risk.poisson_gamma import BETA_ESTIMATORS
from rumap.specs.calls import CallSpec

EXAMPLE = "persons (synthetic, categorical keys)"
DEFAULT_KEY = ("age", "sex", "marital", "region")
#: Points of the subsampling map: released fractions f/40, 2f/40, ..., f.
SUBSAMPLING_POINTS = 40


#: The file assessed (its table, name and how code refers to it).
Sample = PageFile


@dataclass(frozen=True)
class Settings:
    """The sidebar's choices."""

    key: tuple[str, ...]
    population: float
    acquaintances: float
    bound: float
    estimator: str


def sample_block() -> Sample | None:
    """The bundled example or an uploaded sample file; ``None`` while the upload is missing.

    Returns
    -------
    Sample or None
    """
    return example_or_upload(EXAMPLE, "identity", "sample file (CSV, Excel, Parquet, Stata, SPSS, SAS)")


def settings_block(columns: list[str], n: int) -> Settings:
    """The key, the population, the investigator and the risk bound.

    Parameters
    ----------
    columns : list of str
        The sample's columns.
    n : int
        The sample's number of records (the population has at least as many).

    Returns
    -------
    Settings
    """
    default_key = [c for c in DEFAULT_KEY if c in columns] or columns[: min(3, len(columns))]
    key = multiselect("key variables", columns, "identity_key", default_key)
    population = number("N", "population size N", "identity_N", float(max(50 * n, n)), low=float(n),
                        step=float(n), format="%.0f")
    acquaintances = number("a", "acquaintances a of the investigator", "identity_a", 300.0, step=50.0)
    bound = number("risk_bound", "maximum tolerable risk g", "identity_bound", 0.01, format="%.4g")
    estimator = selectbox("estimator of beta", list(BETA_ESTIMATORS), "identity_estimator", list(BETA_ESTIMATORS)[0])
    return Settings(tuple(key), float(population), float(acquaintances), float(bound), estimator)


def parse_widths(text: str) -> list[float]:
    """Band widths typed as numbers separated by commas, sorted and without repeats.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of float
    """
    try:
        widths = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"band widths must be numbers separated by commas, got {text!r}") from None
    if not widths:
        raise InputError("give at least one band width")
    return sorted(set(widths))


def _call(sample: Sample, function: str, **arguments) -> CallSpec:
    """``function`` of the sample with these arguments: what the page computes and its reproduce code."""
    return CallSpec(f"rumap.risk.identity.{function}", sample.path, arguments, source=sample.name)


def estimate_call(sample: Sample, s: Settings) -> CallSpec:
    """The estimate of population uniques and of the risk.

    Parameters
    ----------
    sample : Sample
    s : Settings

    Returns
    -------
    CallSpec
    """
    return _call(sample, "identity_risk_from_data", key=list(s.key), N=s.population, a=s.acquaintances,
                 max_risk=s.bound, method=s.estimator)


def show_estimate(sample: Sample, s: Settings, result: IdentityResult) -> None:
    """The estimate: uniques, risk and the largest safe sample fraction.

    Parameters
    ----------
    sample : Sample
    s : Settings
    result : IdentityResult
    """
    st.subheader(f"{plain(sample.name)}: key {plain_list(result.key, ' x ')}")
    cols = st.columns(5)
    cols[0].metric("records n", f"{result.n:,}")
    cols[1].metric("sample uniques", f"{result.sample_uniques:,}")
    cols[2].metric("population uniques (est.)", f"{result.population_uniques:,.1f}")
    cols[3].metric("identification risk R", f"{result.risk:.4g}")
    cols[4].metric("largest safe sample fraction", f"{result.f_max:.4g}")
    st.write(f"{result.cells:,} possible key values, {result.observed_cells:,} observed; "
             f"Poisson-gamma beta = {result.beta:.4g} ({result.method}), f_u = {result.f_u:.4g}, "
             f"sample fraction f = {result.f:.4g}. "
             + ("The file is within the bound." if result.risk <= s.bound else
                f"The risk exceeds {s.bound:g}: release at most a fraction {result.f_max:.4g} of the population, "
                "or coarsen the key."))


def investigators_block(s: Settings, result: IdentityResult) -> int:
    """The risk from several investigators; returns their number.

    Parameters
    ----------
    s : Settings
    result : IdentityResult

    Returns
    -------
    int
    """
    with st.expander("Several investigators (Mokken et al., Section 4)"):
        investigators = int(number("investigators", "number of investigators m, each with a acquaintances",
                                   "identity_investigators", 1))
        risk_m = multiple_investigators_risk(result.f, min(s.acquaintances, s.population), result.f_u, s.population,
                                             investigators)
        st.metric("risk that at least one of them identifies someone", f"{risk_m:.4g}")
        st.caption("R_m = 1 - (1 - (E(a_m)/N) f_u)^n with E(a_m) = N - N (1 - a/N)^m (Eq 19, 21).")
    return investigators


def subsampling_tab(sample: Sample, s: Settings, result: IdentityResult) -> None:
    """The R-U map of subsampling, its reproduce panel and its keep button.

    Parameters
    ----------
    sample : Sample
    s : Settings
    result : IdentityResult
    """
    fractions = np.linspace(result.f / SUBSAMPLING_POINTS, result.f, SUBSAMPLING_POINTS)
    call = _call(sample, "subsampling_map", key=list(s.key), N=s.population, a=s.acquaintances,
                 fractions=fractions.tolist(), method=s.estimator)
    ru = call.run(sample.frame)
    plot(ru_map_figure([ru], max_risk=s.bound), key="identity_subsampling_chart")
    st.caption("Parameter: the released sample fraction f. Utility: precision of an estimated mean "
               "relative to the whole file, (n'/n)(1 - f)/(1 - f').")
    st.dataframe(ru.to_frame(), hide_index=True)
    reproduce(call, key="identity_subsampling")
    spec = PageMapSpec(page="identity", label=f"subsampling, {sample.name}: {' x '.join(s.key)}",
                       settings={"data": sample.path, "key": list(s.key), "N": s.population, "a": s.acquaintances,
                                 "estimator": s.estimator, "fractions": fractions},
                       python=to_python(call), max_risk=s.bound)
    keep_controls(page_analysis([ru], spec), "identity_subsampling")


def recoding_tab(sample: Sample, s: Settings, result: IdentityResult) -> None:
    """The R-U map of global recoding, its reproduce panel and its keep button.

    Parameters
    ----------
    sample : Sample
    s : Settings
    result : IdentityResult
    """
    numeric_keys = [c for c in result.key if pd.api.types.is_numeric_dtype(sample.frame[c])]
    if not numeric_keys:
        st.info("Global recoding into bands needs a numeric key variable (such as age).")
        return
    variable = selectbox("variable to recode into bands", numeric_keys, "identity_variable", numeric_keys[0])
    widths = parse_widths(remembered(st.text_input, "band widths", "identity_widths", "1, 2, 5, 10, 20"))
    call = _call(sample, "recoding_map", key=list(s.key), variable=variable, widths=widths, N=s.population,
                 a=s.acquaintances, method=s.estimator)
    ru = call.run(sample.frame)
    plot(ru_map_figure([ru], max_risk=s.bound), key="identity_recoding_chart")
    st.caption(f"Parameter: the width of the bands of {plain(variable)}. Utility: share of the variance of "
               f"{plain(variable)} kept by the bands (1 - SSE/SST).")
    table = ru.to_frame().assign(sample_uniques=ru.config["sample_uniques"], cells=ru.config["cells"])
    st.dataframe(table, hide_index=True)
    reproduce(call, key="identity_recoding")
    spec = PageMapSpec(page="identity", label=f"recoding {variable}, {sample.name}: {' x '.join(s.key)}",
                       settings={"data": sample.path, "key": list(s.key), "N": s.population, "a": s.acquaintances,
                                 "estimator": s.estimator, "variable": variable, "widths": widths},
                       python=to_python(call), max_risk=s.bound)
    keep_controls(page_analysis([ru], spec), "identity_recoding")


st.title("Identity disclosure: population uniques on a key")
st.caption("Mokken, Kooiman, Pannekoek & Willenborg (1992). R = 1 - (1 - (a/N) f_u)^n, f_u from the "
           "Poisson-gamma estimate of population uniques mu_u = N (1 + N beta)^-(1 + alpha) (Eq 5, 10).")

with errors_shown():
    with st.sidebar:
        sample = sample_block()
    if sample is None:
        st.info("Upload the sample file to assess, or choose the bundled example.")
        st.stop()
    show_page_file(sample.name, int(sample.frame.shape[0]), session=sample.session)
    with st.sidebar:
        settings = settings_block(list(sample.frame.columns), int(sample.frame.shape[0]))
    if not settings.key:
        st.info("Choose at least one key variable.")
        st.stop()
    estimated = estimate_call(sample, settings)
    estimate = estimated.run(sample.frame)
    show_estimate(sample, settings, estimate)
    investigators_block(settings, estimate)
    reproduce(estimated, what="this estimate", key="identity_estimate")
    subsampling, recoding = st.tabs(["Subsampling map", "Global recoding map"])
    with subsampling, errors_shown():
        subsampling_tab(sample, settings, estimate)
    with recoding, errors_shown():
        recoding_tab(sample, settings, estimate)
