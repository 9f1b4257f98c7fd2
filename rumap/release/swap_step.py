"""Targeted record swapping as a step of a release plan: its parameters, their check, its applier and prediction.

The step runs :func:`rumap.masking.targeted_swap.targeted_swap` with the
step's keys as the key variables of the risk, as ``python -m rumap protect
swap`` does with the same parameters and seed (the same file, to the byte)::

    {"method": "swap", "keys": ["sex", "age_band"], "seed": 1,
     "parameters": {"hierarchy": ["region", "district"], "household": "hid", "similar": [["hsize"]],
                    "carry_along": [], "k": 3, "swaprate": 0.05}}

``similar`` lists the similarity sets tried in order, each a list of
variables. Its summary holds counts only: the households and records
swapped per level and the households at risk left unswapped, with why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rumap._validation import ListOf, check_parameter
from rumap._validation.text import check_flag, similar_sets, split_names
from rumap.errors import InputError
from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import Flag
from rumap.release.methods import REQUIRED, StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step

__all__ = ["SWAP_STEP"]

def _names(name: str, value: Any, least: int) -> list[str]:
    """A parameter that lists column names: each non-empty text, none twice, at least ``least`` of them."""
    names = [v.strip() for v in check_parameter(name, value, ListOf(str, "a list of column names", least))]
    if not all(names):
        raise InputError(f"parameter {name} holds an empty column name")
    if len(set(names)) != len(names):
        raise InputError(f"parameter {name} names a column twice: {', '.join(names)}")
    return names


def _check(parameters: dict, names: tuple[str, ...]) -> dict:
    household = parameters["household"]
    if not isinstance(household, str) or not household.strip():
        raise InputError(f"parameter household must be a column name, got {household!r}")
    similar = check_parameter("similar", parameters["similar"], ListOf((list, tuple), "a list of lists of column names"))
    return {"hierarchy": _names("hierarchy", parameters["hierarchy"], 1), "household": household.strip(),
            "similar": [_names(f"similar[{i}]", s, 1) for i, s in enumerate(similar)],
            "carry_along": _names("carry_along", parameters["carry_along"], 0),
            "k": int(check_parameter("k", parameters["k"])),
            "swaprate": float(check_parameter("swaprate", parameters["swaprate"]))}


def _columns(parameters: dict, keys: Sequence[str]) -> list[tuple[str, str]]:
    """Every column the step reads, each with the parameter that names it."""
    p = parameters
    return [*(("keys", c) for c in keys), ("household", p["household"]), *(("hierarchy", c) for c in p["hierarchy"]),
            *(("similar", c) for s in p["similar"] for c in s), *(("carry_along", c) for c in p["carry_along"])]


def _apply(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.masking.targeted_swap import targeted_swap

    p = step.parameters
    for name, column in _columns(p, step.keys):
        if column not in frame.columns:
            raise InputError(f"{'' if name == 'keys' else 'parameter '}{name}: no column {column!r} in {source}")
    result = targeted_swap(frame, p["hierarchy"], list(step.keys), p["household"], p["similar"],
                           carry_along=p["carry_along"], k=p["k"], swaprate=p["swaprate"], seed=step.seed)
    summary = {name: value for name, value in result.to_dict().items() if name != "config"}
    return result.data, summary


def _measured(step: Step) -> list[str]:
    """The geography, top level first, then the keys: what the swap's map and the report measure."""
    hierarchy = step.parameters["hierarchy"]
    return [*hierarchy, *[k for k in step.keys if k not in hierarchy]]


def _predict(before: pd.DataFrame, after: pd.DataFrame, step: Step, replicates: int, budget: WorkBudget,
             targets: Sequence[str] = (), applied: bool = False) -> tuple[tuple, str]:
    """Key matching on the geography and the keys, of this release beside the swap's map at its rate."""
    from rumap.maps.categorical_measures import pram_reidentification
    from rumap.maps.swap_map import swap_map
    from rumap.release.prediction import _check

    p = step.parameters
    m = swap_map(before, list(step.keys), [p["swaprate"]], hierarchy=p["hierarchy"], household=p["household"],
                 similar=p["similar"], carry_along=p["carry_along"], k=p["k"], replicates=replicates,
                 seed=step.seed or 0, budget=budget)
    check = _check("key_matching", pram_reidentification(before, after, _measured(step)), float(m.risk[0]),
                   float(m.risk_se[0]), replicates)
    return (check,), f"the map at this swap rate, {replicates} simulated releases"


def _words(summary: dict) -> str:
    """What the swap did: the households swapped (of how many, to another area of which level), those at risk."""
    households = int(summary.get("households", 0))
    swapped = int(summary.get("swapped_households", 0))
    levels = summary.get("levels") or {}
    moved = ", ".join(f"{int(c['households']):,} to another {level}" for level, c in levels.items() if c.get("households"))
    risky = ", ".join(f"{int(c['households_at_risk']):,} in their {level}" for level, c in levels.items()
                      if c.get("households_at_risk"))
    left = int(summary.get("unswapped_at_risk", 0))
    return (f"swapped the geography of {swapped:,} of {households:,} households "
            f"({swapped / households if households else 0.0:.1%}, {int(summary.get('records_swapped', 0)):,} records)"
            + (f": {moved}" if moved else "")
            + f"; households holding a record at risk: {risky or 'none'}"
            + (f"; {left:,} of them left unswapped: {summary.get('unswapped_reason')}" if left else "") + ".")


def _draw(*args: Any, **kwargs: Any) -> Any:
    from rumap.maps.swap_map import draw_swap

    return draw_swap(*args, **kwargs)


_HOUSEHOLD = Flag("--household", "the household identifier column", str, "H")
_SIMILAR = Flag("--similar", "similarity sets tried in order, comma-separated; a set's variables joined by +", str,
                "S[+T][,S2...]")
_CARRY_ALONG = Flag("--carry-along", "household variables swapped with the geography", str, "X,...")
_HIERARCHY = Flag("--hierarchy", "geographic variables, top level first", str, "A,B,C")


def _read_flags(given: Mapping[str, Any]) -> dict:
    """The step's ``hierarchy``, ``household``, ``similar`` and ``carry_along`` from their flags' text."""
    out: dict[str, Any] = {}
    if "--household" in given:
        out["household"] = given["--household"]
    if "--similar" in given:
        out["similar"] = similar_sets(given["--similar"])
    if "--carry-along" in given:
        out["carry_along"] = split_names(given["--carry-along"], "--carry-along")
    if "--hierarchy" in given:
        hierarchy = given["--hierarchy"]
        if not isinstance(hierarchy, str):  # simulate's --hierarchy, repeatable for the tables' maps
            if len(hierarchy) > 1 or "=" in hierarchy[0]:
                raise InputError("--hierarchy of swap is given once: the geographic variables A,B,C, top level first")
            hierarchy = hierarchy[0]
        out["hierarchy"] = split_names(hierarchy, "--hierarchy")
    return out


def _read_map_flags(given: Mapping[str, Any]) -> dict:
    """The swap map's options (:data:`rumap.maps.swap_map.SWAP_OPTIONS`) from the flags of ``simulate``."""
    out = _read_flags(given)
    if "--swap-k" in given:
        out["swap_k"] = check_flag("--swap-k", "k", given["--swap-k"])
    return out


#: The ``swap`` step (:data:`rumap.release.registry.STEP_METHODS`).
SWAP_STEP = StepMethod(
    "keys", {"hierarchy": REQUIRED, "household": REQUIRED, "similar": REQUIRED, "carry_along": [], "k": 3,
             "swaprate": 0.05},
    True, _check, _apply, None,
    "targeted record swapping: households at risk (and others up to the swap rate) exchange their geography with "
    "similar households of other areas",
    not_streamed="targeted swapping pairs households anywhere in the file: it needs every household's keys and "
                 "geography at once (run it in memory)",
    predictor=_predict,
    flags=(Flag("--k", "a record is at risk where fewer than K share its keys in its area (default 3)", int),
           Flag("--swaprate", "least share of households swapped (default 0.05)")),
    text_flags=(_HIERARCHY, _HOUSEHOLD, _SIMILAR, _CARRY_ALONG), read_flags=_read_flags,
    key_map=CategoricalMethod("swaprate", False, True, _draw,
                              "targeted record swapping of households, over the swap rate", (0.01, 0.1, 5), "swap",
                              grid_help="the swap rates (or R1,R2,...)",
                              flags=(_HOUSEHOLD, _SIMILAR, _CARRY_ALONG,
                                     Flag("--swap-k", "a record is at risk where fewer than K share its keys in its "
                                                      "area (default 3)", int, "K"), _HIERARCHY),
                              read_flags=_read_map_flags),
    summary_words=_words, measured=_measured)
