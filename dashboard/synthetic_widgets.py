"""The widgets of a synthetic-data generator on the Empirical page, drawn from its records.

The generator's grid comes from its record (:data:`rumap.synthesis.GENERATORS`: its parameter's
:data:`rumap.PARAMETERS` entry, default grid and spacing; for a generator with differential privacy, what the
grid's ends promise in words, by the Tables page's :func:`rumap.present.privacy.privacy_statement`), the risks and utilities from
:data:`rumap.maps.synthetic.SYNTHETIC_RISKS` and ``SYNTHETIC_UTILITIES`` (what each needs: keys, a target;
its bound to start from). :func:`synthetic_spec` turns them into a :class:`rumap.specs.synthetic.SyntheticSpec`
on the page's data. No generator or measure is named here.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard import state
from dashboard.risk_bound import bound_key, max_risk_input
from dashboard.widgets import multiselect, number, remembered, selectbox
from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES
from rumap.present.privacy import privacy_statement
from rumap.specs.synthetic import SyntheticSpec
from rumap.synthesis import GENERATORS

__all__ = ["generator_names", "synthetic_settings", "synthetic_spec"]

#: The prefix of the widgets' session-state keys.
PREFIX = "em_syn_"


def generator_names() -> dict[str, str]:
    """The generators a page offers beside the masking methods, with their descriptions.

    Returns
    -------
    dict
        Name -> description.
    """
    return {name: f"synthetic data, {record.description}" for name, record in GENERATORS.items()}


def _grid(method: str) -> list:
    record = GENERATORS[method]
    low, high, count = record.grid
    key = f"{PREFIX}{method}_"
    label = record.label or record.parameter
    start = number(record.entry, f"smallest {label}", key + "start", low)
    stop = number(record.entry, f"largest {label}", key + "stop", high)
    num = number("grid_num", f"number of {record.parameter} values", key + "num", count,
                 help="spaced by a constant factor" if record.geometric else "evenly spaced")
    values = record.values(start, stop, int(num))
    if record.privacy is not None:  # a generator with differential privacy: what its grid's ends promise, in words
        for value in dict.fromkeys((values[0], values[-1])):
            st.caption(privacy_statement(record.privacy(value)))
    return values


def synthetic_settings(columns: list[str], method: str) -> dict[str, Any]:
    """The generator's grid, the map's measures, copies, holdout, replicates, seed and bound (sidebar).

    Parameters
    ----------
    columns : list of str
        The data's columns (the keys and target of the measures that need them are chosen among them).
    method : str
        A key of :data:`rumap.synthesis.GENERATORS`.

    Returns
    -------
    dict
        The fields of :class:`rumap.specs.synthetic.SyntheticSpec` but its data.
    """
    out: dict[str, Any] = {"method": method, "values": _grid(method)}
    out["copies"] = int(number("copies", "synthetic copies m per fit", PREFIX + "copies", 1))
    out["holdout_share"] = float(number("holdout_share", "holdout share", PREFIX + "holdout", 0.5,
                                        help="the share of the records the generator does not see, against which "
                                             "the distance measures judge copying"))
    st.header("Risk")
    risk = selectbox("Risk of the synthetic data", list(SYNTHETIC_RISKS), PREFIX + "risk", "dcr_share",
                     help="; ".join(f"{name}: {m.label}" for name, m in SYNTHETIC_RISKS.items()))
    needs = SYNTHETIC_RISKS[risk].needs
    out.update(risk=risk, keys=None, target=None)
    if "keys" in needs:
        out["keys"] = tuple(multiselect("Key variables", columns, PREFIX + "keys", columns[:1],
                                        help="the variables an intruder matches on")) or None
    if "target" in needs:
        out["target"] = selectbox("Target variable", columns, PREFIX + "target", columns[-1],
                                  help="the variable whose value an intruder learns")
    st.header("Utility and simulation")
    out["utility"] = selectbox("Utility of the synthetic data", list(SYNTHETIC_UTILITIES), PREFIX + "utility", "pmse",
                               help="; ".join(f"{name}: {m.label}" for name, m in SYNTHETIC_UTILITIES.items()))
    out["replicates"] = int(number("replicates", "replicates (random splits)", PREFIX + "replicates", 20))
    out["seed"] = int(number("seed", "seed", PREFIX + "seed", 2001))
    label = SYNTHETIC_RISKS[risk].label
    out["max_risk"] = max_risk_input(PREFIX + "max_risk", bound_key(label), default=SYNTHETIC_RISKS[risk].bound,
                                     label="R_max")
    out["log_x"] = remembered(st.checkbox, "log utility axis", PREFIX + "log_x", False)
    out["log_y"] = remembered(st.checkbox, "log risk axis", PREFIX + "log_y", False)
    return out


def synthetic_spec(sel: state.Selection, settings: dict[str, Any]) -> SyntheticSpec:
    """The map's specification on the page's data (its chosen columns, in the order of synthesis).

    Parameters
    ----------
    sel : Selection
        The page's data.
    settings : dict
        :func:`synthetic_settings`.

    Returns
    -------
    SyntheticSpec
    """
    return SyntheticSpec(data=sel.source, **settings)
