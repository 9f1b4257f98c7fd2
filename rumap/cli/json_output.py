"""The command line's JSON forms of results: which keys a curve has, in which order.

The core's results are plain data (``to_dict``); this module projects them to
the keys each command's JSON promises, so that a change of a result's fields
does not change a command's output.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.result import RUMap, json_safe

if TYPE_CHECKING:
    from rumap.maps.optimum import Optimum
    from rumap.specs import Analysis

__all__ = ["curve_dict", "SIMULATION_CURVE_KEYS", "simulation_json", "OPTIMUM_KEYS", "optimum_json"]

#: An optimum of ``analytic --json``: its keys of :meth:`rumap.maps.optimum.Optimum.to_dict`, in order.
OPTIMUM_KEYS = ("lambda2", "risk", "utility", "efficiency")

#: A curve of ``simulate --json``: output key -> key of :meth:`rumap.result.RUMap.to_dict`.
SIMULATION_CURVE_KEYS = {key: key for key in ("method", "target", "knowledge", "parameter", "values", "risk", "risk_se",
                                              "utility", "utility_se", "efficiency", "risk_label", "utility_label")}


@validate_params({"m": InstanceOf(RUMap), "keys": InstanceOf(Mapping, "a mapping of output keys to RUMap.to_dict keys")},
                 example=lambda: {"m": RUMap(parameter="k", values=[2.0], risk=[1.0], utility=[3.0]),
                                  "keys": {"k": "values"}})
def curve_dict(m: RUMap, keys: Mapping[str, str]) -> dict[str, Any]:
    """A curve in one of the command line's JSON forms, made from :meth:`RUMap.to_dict`.

    Parameters
    ----------
    m : RUMap
    keys : mapping
        Output key -> key of :meth:`RUMap.to_dict`, in the order they are written.

    Returns
    -------
    dict
        JSON-ready (non-finite numbers are ``None``).

    Examples
    --------
    >>> from rumap.cli.json_output import curve_dict
    >>> from rumap.result import RUMap
    >>> m = RUMap(parameter="lambda2", values=[0.0, 1.0], risk=[float("inf"), 1.0], utility=[2.0, 1.0],
    ...           knowledge="record")
    >>> curve_dict(m, {"state": "knowledge", "lambda2": "values", "risk": "risk"})
    {'state': 'record', 'lambda2': [0.0, 1.0], 'risk': [None, 1.0]}
    """
    full = m.to_dict()
    return {out: full[key] for out, key in keys.items()}


@assumes_valid
def simulation_json(analysis: Analysis) -> dict[str, Any]:
    """The JSON object of ``simulate --json``: ``{"curves": [...], "config": {...}, "n": ...}``, of an empirical map.

    Each curve has the keys of :data:`SIMULATION_CURVE_KEYS`, with the rational
    snooper's best knowledge and the target's value and row where the map has
    them; then the common measures' curve and the effect of publishing lambda,
    where the run has them.

    Parameters
    ----------
    analysis : Analysis
        What :meth:`rumap.specs.EmpiricalSpec.run` gives.

    Returns
    -------
    dict
        JSON-ready.
    """
    from rumap.maps.simulation_result import lambda_publication

    config = analysis.spec.simulation
    curves = []
    for m in analysis.maps:
        curves.append({
            **curve_dict(m, SIMULATION_CURVE_KEYS),
            **({"best_knowledge": m.config["best_state"]} if m.knowledge == "rational" else {}),
            **({"target_value": m.config["target_value"], "target_row": m.config["target_row"]}
               if "target_value" in m.config else {}),
        })
    out: dict[str, Any] = {"curves": curves, "config": config.to_dict(), "n": analysis.n_records}
    if analysis.common is not None:
        out["common"] = curve_dict(analysis.common, SIMULATION_CURVE_KEYS)
    if analysis.subsample is not None:
        out["subsample"] = analysis.subsample.to_dict()
    publication = lambda_publication(analysis.maps, config.targets)
    if publication:
        out["lambda_publication"] = publication
    return json_safe(out)


@assumes_valid
def optimum_json(optimum: Optimum) -> dict[str, Any] | None:
    """An optimum in ``analytic --json``: its :data:`OPTIMUM_KEYS`, or ``None`` when the bound is unreachable.

    Parameters
    ----------
    optimum : Optimum

    Returns
    -------
    dict or None
    """
    if not optimum.reachable:
        return None
    full = optimum.to_dict()
    return {key: full[key] for key in OPTIMUM_KEYS}
