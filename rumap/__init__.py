"""rumap: R-U confidentiality maps for statistical disclosure control.

The core package: masking procedures, snooper attacks, risk and utility
measures, analytic formulas, the simulation engine, data loading, plotting and
reports. It never imports streamlit.

The names below are imported on first use, so that ``python -m rumap`` starts
without loading every module.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> module that defines it.
_EXPORTS: dict[str, str] = {
    "AnalyticSetting": "rumap.maps.setting",
    "STATES": "rumap.maps.analytic",
    "analytic_map": "rumap.maps.analytic",
    "state_risk": "rumap.maps.analytic",
    "InputError": "rumap.errors",
    "Crossing": "rumap.maps.optimum",
    "Optimum": "rumap.maps.optimum",
    "crossings": "rumap.maps.optimum",
    "describe_optimum": "rumap.present.statements",
    "envelope": "rumap.maps.optimum",
    "max_tolerable_risk": "rumap.maps.optimum",
    "RUMap": "rumap.result",
    "SimulationConfig": "rumap.maps.simulation",
    "SimulationResult": "rumap.maps.simulation",
    "simulate": "rumap.maps.simulation",
    "microaggregate": "rumap.masking.microaggregation",
    "rank_swap": "rumap.masking.swapping",
    "add_noise": "rumap.masking.noise",
    "NoiseSpec": "rumap.masking.noise",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rumap' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))
