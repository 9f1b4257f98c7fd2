"""Identity disclosure on categorical keys (Mokken, Kooiman, Pannekoek & Willenborg 1992).

Population uniques on a key are estimated from the sample with the
Poisson-gamma model; the risk that an investigator with ``a`` acquaintances
identifies at least one record is ``R = 1 - (1 - (a/N) f_u)^n``. Two R-U maps
show what subsampling and global recoding buy: the parameter is the released
sample fraction, or the width of the bands of a recoded numeric key variable.
A thin layer over :mod:`rumap.risk.identity`; runs on its own (``streamlit run pages/identity.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from rumap.errors import InputError
from rumap.io.data import BUNDLED_DATA, read_table, read_table_bytes
from rumap.present.plotting import ru_map_figure
from rumap.risk.identity import identity_risk_from_data, multiple_investigators_risk, recoding_map, subsampling_map
from rumap.risk.poisson_gamma import BETA_ESTIMATORS

EXAMPLE = "persons (synthetic, categorical keys)"
DEFAULT_KEY = ("age", "sex", "marital", "region")


def load_data() -> tuple[pd.DataFrame, str]:
    source = st.sidebar.radio("data", ["bundled example", "upload a file"], key="identity_source")
    if source == "upload a file":
        upload = st.sidebar.file_uploader("sample file (CSV, Excel, Parquet, Stata, SPSS, SAS)", key="identity_upload")
        if upload is None:
            st.info("Upload the sample file to assess, or choose the bundled example.")
            st.stop()
        return read_table_bytes(upload.getvalue(), upload.name), upload.name
    path = BUNDLED_DATA[EXAMPLE]
    return read_table(path), path.name


def parse_widths(text: str) -> list[float]:
    try:
        widths = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"band widths must be numbers separated by commas, got {text!r}") from None
    if not widths:
        raise InputError("give at least one band width")
    return sorted(set(widths))


st.title("Identity disclosure: population uniques on a key")
st.caption("Mokken, Kooiman, Pannekoek & Willenborg (1992). R = 1 - (1 - (a/N) f_u)^n, f_u from the "
           "Poisson-gamma estimate of population uniques mu_u = N (1 + N beta)^-(1 + alpha) (Eq 5, 10).")

try:
    frame, name = load_data()
    columns = list(frame.columns)
    default_key = [c for c in DEFAULT_KEY if c in columns] or columns[: min(3, len(columns))]
    with st.sidebar:
        key = st.multiselect("key variables", columns, default=default_key, key="identity_key")
        n = int(frame.shape[0])
        population = st.number_input("population size N", min_value=float(n), value=float(max(50 * n, n)),
                                     step=float(n), format="%.0f", key="identity_N")
        acquaintances = st.number_input("acquaintances a of the investigator", min_value=0.0, value=300.0,
                                        step=50.0, key="identity_a")
        bound = st.number_input("maximum tolerable risk g", min_value=1e-6, max_value=0.999, value=0.01,
                                format="%.4g", key="identity_bound")
        estimator = st.selectbox("estimator of beta", list(BETA_ESTIMATORS), key="identity_estimator")
    if not key:
        st.info("Choose at least one key variable.")
        st.stop()
    result = identity_risk_from_data(frame, key, population, acquaintances, max_risk=bound, method=estimator,
                                     source=name)
    st.subheader(f"{name}: key {' x '.join(result.key)}")
    cols = st.columns(5)
    cols[0].metric("records n", f"{result.n:,}")
    cols[1].metric("sample uniques", f"{result.sample_uniques:,}")
    cols[2].metric("population uniques (est.)", f"{result.population_uniques:,.1f}")
    cols[3].metric("identification risk R", f"{result.risk:.4g}")
    cols[4].metric("largest safe sample fraction", f"{result.f_max:.4g}")
    st.write(f"{result.cells:,} possible key values, {result.observed_cells:,} observed; "
             f"Poisson-gamma beta = {result.beta:.4g} ({result.method}), f_u = {result.f_u:.4g}, "
             f"sample fraction f = {result.f:.4g}. "
             + ("The file is within the bound." if result.risk <= bound else
                f"The risk exceeds {bound:g}: release at most a fraction {result.f_max:.4g} of the population, "
                "or coarsen the key."))

    with st.expander("Several investigators (Mokken et al., Section 4)"):
        investigators = st.number_input("number of investigators m, each with a acquaintances", min_value=1,
                                        value=1, step=1, key="identity_investigators")
        risk_m = multiple_investigators_risk(result.f, min(acquaintances, population), result.f_u, population,
                                             int(investigators))
        st.metric("risk that at least one of them identifies someone", f"{risk_m:.4g}")
        st.caption("R_m = 1 - (1 - (E(a_m)/N) f_u)^n with E(a_m) = N - N (1 - a/N)^m (Eq 19, 21).")

    subsampling, recoding = st.tabs(["Subsampling map", "Global recoding map"])
    with subsampling:
        fractions = np.linspace(result.f / 40, result.f, 40)
        ru = subsampling_map(frame, key, population, acquaintances, fractions, method=estimator, source=name)
        st.plotly_chart(ru_map_figure([ru], max_risk=bound), key="identity_subsampling_chart")
        st.caption("Parameter: the released sample fraction f. Utility: precision of an estimated mean "
                   "relative to the whole file, (n'/n)(1 - f)/(1 - f').")
        st.dataframe(ru.to_frame(), hide_index=True)
    with recoding:
        numeric_keys = [c for c in result.key if pd.api.types.is_numeric_dtype(frame[c])]
        if not numeric_keys:
            st.info("Global recoding into bands needs a numeric key variable (such as age).")
        else:
            variable = st.selectbox("variable to recode into bands", numeric_keys, key="identity_variable")
            widths = parse_widths(st.text_input("band widths", "1, 2, 5, 10, 20", key="identity_widths"))
            ru = recoding_map(frame, key, variable, widths, population, acquaintances, method=estimator,
                              source=name)
            st.plotly_chart(ru_map_figure([ru], max_risk=bound), key="identity_recoding_chart")
            st.caption(f"Parameter: the width of the bands of {variable}. Utility: share of the variance of "
                       f"{variable} kept by the bands (1 - SSE/SST).")
            table = ru.to_frame().assign(sample_uniques=ru.config["sample_uniques"], cells=ru.config["cells"])
            st.dataframe(table, hide_index=True)
except InputError as exc:
    st.error(str(exc))
except Exception as exc:  # the page shows an error box, never a traceback
    st.error(f"could not compute the risk: {type(exc).__name__}: {exc}")
