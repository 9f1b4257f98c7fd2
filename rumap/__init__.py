"""rumap: R-U confidentiality maps for statistical disclosure control.

The core package, by domain: ``maps`` (analytic formulas, the simulation
engine, attacks, utilities, optima), ``masking``, ``risk``, ``tables``,
``present`` (figures, statements, reports), ``io``, ``release`` (from map to release); specifications
(:mod:`rumap.specs`) that every front end builds and runs. It never imports
streamlit, and needs only numpy, scipy, pandas and plotly.

The names below are imported on first use, so that ``python -m rumap`` starts
without loading every module.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> module that defines it: the public API, by domain.
_EXPORTS: dict[str, str] = {
    # errors, the bounds of every parameter and the result type
    "InputError": "rumap.errors",
    "PARAMETERS": "rumap._validation.constraints",
    "check_varies": "rumap._validation.data",
    "RUMap": "rumap.result",
    # specifications: what the command line, the dashboard and configuration files run
    "AnalyticSpec": "rumap.specs",
    "EmpiricalSpec": "rumap.specs",
    "DataSource": "rumap.specs",
    "Analysis": "rumap.specs",
    "spec_from_dict": "rumap.specs",
    # analytic maps and their decisions (Duncan et al. 2001, Eq 1-10)
    "AnalyticInputs": "rumap.maps.setting",
    "AnalyticSetting": "rumap.maps.setting",
    "STATES": "rumap.maps.analytic",
    "KnowledgeState": "rumap.maps.analytic",
    "check_state": "rumap.maps.analytic",
    "analytic_map": "rumap.maps.analytic",
    "state_risk": "rumap.maps.analytic",
    "Crossing": "rumap.maps.optimum",
    "Optimum": "rumap.maps.optimum",
    "crossings": "rumap.maps.optimum",
    "envelope": "rumap.maps.optimum",
    "max_tolerable_risk": "rumap.maps.optimum",
    "pareto_frontier": "rumap.maps.pareto",
    "best_under_risk": "rumap.maps.pareto",
    "Recommendation": "rumap.maps.recommend",
    "recommend": "rumap.maps.recommend",
    "recommend_exact": "rumap.maps.recommend",
    # empirical maps: the simulation engine, its masking methods, attacks and utilities
    "SimulationConfig": "rumap.maps.simulation_config",
    "SimulationResult": "rumap.maps.simulation_result",
    "simulate": "rumap.maps.simulation",
    "METHODS": "rumap.maps.methods",
    "MaskingMethod": "rumap.maps.method_records",
    "GridParameter": "rumap.maps.method_records",
    "MethodOption": "rumap.maps.method_records",
    "register_method": "rumap.maps.methods",
    "KNOWLEDGE": "rumap.maps.attacks",
    "UTILITIES": "rumap.maps.utility",
    # masking
    "add_noise": "rumap.masking.noise",
    "NoiseSpec": "rumap.masking.noise",
    "microaggregate": "rumap.masking.microaggregation",
    "rank_swap": "rumap.masking.swapping",
    # disclosure risk of microdata
    "record_linkage": "rumap.risk.linkage",
    "distance_linkage": "rumap.risk.linkage.distance",
    "probabilistic_linkage": "rumap.risk.linkage.probabilistic",
    "interval_disclosure": "rumap.risk.interval",
    "identification_risk": "rumap.risk.identity",
    "identity_risk_from_data": "rumap.risk.identity",
    # tables
    "apply_rule": "rumap.tables.rules",
    "PublishedTable": "rumap.tables.published",
    "suppression_bounds": "rumap.tables.bounds",
    "insider_bounds": "rumap.tables.insider",
    "redesign_bounds": "rumap.tables.redesign",
    "linked_bounds": "rumap.tables.linked",
    "rounding_ru_map": "rumap.tables.rounding",
    # n-dimensional hierarchical tables from microdata, their secondary suppression (alone or linked), the JJ format
    "Hierarchy": "rumap.tables.hierarchy",
    "read_hrc": "rumap.tables.hierarchy",
    "read_parent_child": "rumap.tables.hierarchy",
    "from_prefixes": "rumap.tables.hierarchy",
    "NDTable": "rumap.tables.ndtable",
    "build_table": "rumap.tables.ndtable",
    "suppress_table": "rumap.tables.table_suppression",
    "suppress_linked_tables": "rumap.tables.table_suppression",
    "read_jj": "rumap.tables.jj",
    "write_jj": "rumap.tables.jj",
    # differential privacy: OpenDP's accounting of a mechanism, a table released with noise, its map over epsilon
    "calibrate": "rumap.privacy.accounting",
    "PrivacyLoss": "rumap.privacy.accounting",
    "dp_table": "rumap.tables.dp",
    "DPTable": "rumap.tables.dp",
    "dp_table_map": "rumap.maps.dp_tables",
    # from map to release: a plan of masking steps, applied, and the report of what was released
    "Step": "rumap.release.methods",
    "ReleasePlan": "rumap.release.plan",
    "read_plan": "rumap.release.plan",
    "apply_plan": "rumap.release.apply",
    "release_report": "rumap.release.report",
    # reading data and presenting results
    "read_table": "rumap.io.data",
    "read_published_table": "rumap.tables.table_files",
    "describe_optimum": "rumap.present.statements",
    "report_html": "rumap.present.report",
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
