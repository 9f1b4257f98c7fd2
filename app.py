"""rumap dashboard: R-U confidentiality maps in the browser (``make run``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from rumap.analytic import STATES, AnalyticSetting, analytic_map
from rumap.errors import InputError
from rumap.optimum import describe_optimum, max_tolerable_risk
from rumap.plotting import ru_map_figure

st.set_page_config(page_title="rumap: R-U confidentiality maps", layout="wide")
st.title("R-U confidentiality map: additive noise")
st.caption("Duncan, Keller-McNulty & Stokes (2001), Equations 1-10. Risk R = 1 / snooper's MSE; "
           "utility U = n / (sigma^2 + lambda^2).")

with st.sidebar:
    n = st.number_input("n (records)", min_value=3, value=200, step=1)
    sigma2 = st.number_input("sigma^2 (data variance)", min_value=1e-9, value=1.0, format="%.4g")
    p = st.slider("percentile p", min_value=0.01, max_value=0.99, value=0.99)
    states = st.multiselect("knowledge states", [s for s in STATES if s not in ("sample", "mean-target")],
                            default=["record", "population", "percentile", "maximum"])
    lam_max = st.number_input("largest lambda^2", min_value=0.01, value=3.0)
    max_risk = st.number_input("maximum tolerable risk", min_value=1e-6, value=5.0)
    log_y = st.checkbox("log risk axis", value=True)

try:
    setting = AnalyticSetting(n=int(n), sigma2=float(sigma2), p=float(p))
    maps = analytic_map(states, np.linspace(0, lam_max, 301), setting) if states else []
    optima = [max_tolerable_risk(s, setting, max_risk) for s in states]
except InputError as exc:
    st.error(str(exc))
    st.stop()

if maps:
    st.plotly_chart(ru_map_figure(maps, log_y=log_y, max_risk=max_risk, optima=optima), width="stretch")
    for opt in optima:
        st.write("- " + describe_optimum(opt))
else:
    st.info("Choose at least one knowledge state.")
