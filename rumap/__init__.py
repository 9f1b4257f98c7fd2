"""rumap: R-U confidentiality maps for statistical disclosure control.

The core package: masking procedures, snooper attacks, risk and utility
measures, analytic formulas, the simulation engine, data loading, plotting and
reports. It never imports streamlit.
"""

from rumap.analytic import STATES, AnalyticSetting, analytic_map, state_risk
from rumap.errors import InputError
from rumap.optimum import Crossing, Optimum, crossings, describe_optimum, envelope, max_tolerable_risk
from rumap.result import RUMap

__version__ = "0.1.0"

__all__ = [
    "AnalyticSetting",
    "Crossing",
    "InputError",
    "Optimum",
    "RUMap",
    "STATES",
    "analytic_map",
    "crossings",
    "describe_optimum",
    "envelope",
    "max_tolerable_risk",
    "state_risk",
]
