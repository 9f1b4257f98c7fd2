"""Global recoding as a step of a release plan, and its R-U map: banding a numeric key, merging categories.

The step bands ``variable`` into bands of ``band_width`` from ``origin``
(:func:`rumap.masking.categorical.band`), merges the categories of ``merge``
(:func:`rumap.masking.categorical.recode`), or both; its summary holds the
number of categories of each changed key before and after. Its map
(:func:`rumap.maps.categorical.banding_map`) runs over the band width.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rumap._validation import StepName, check_parameter
from rumap.errors import InputError
from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import Flag
from rumap.release.chunked import coding_stream
from rumap.release.methods import StepMethod

if TYPE_CHECKING:
    import pandas as pd

    from rumap.budget import WorkBudget
    from rumap.release.methods import Step
    from rumap.result import RUMap

__all__ = ["RECODE_STEP"]


def _draw_banding(frame, keys, values, *, weight, variable, replicates, seed, source, budget, risk=None,
                  utility=None, options=None) -> RUMap:
    if variable is None:
        raise InputError("recode needs the numeric key to band (--band-variable)")
    from rumap.maps.categorical import banding_map

    return banding_map(frame, keys, variable, values, weight=weight, source=source, budget=budget, risk=risk,
                       utility=utility, options=options)



def _check_recode(parameters: dict, names: tuple[str, ...]) -> dict:
    merge = parameters["merge"]
    if not isinstance(merge, Mapping) or not all(
            isinstance(v, str) and isinstance(m, Mapping) and all(isinstance(a, str) and isinstance(b, str)
                                                                  for a, b in m.items()) for v, m in merge.items()):
        raise InputError("parameter merge must map a variable to {old category: new category} (all text)")
    for variable in merge:
        check_parameter("merge", variable, StepName(names, "keys"))
    out: dict[str, Any] = {"merge": {v: dict(m) for v, m in merge.items()}}
    if parameters["band_width"] is None:
        if parameters["variable"] is not None:
            raise InputError("parameter variable goes with band_width (the variable banded)")
        if not merge:
            raise InputError("recode needs band_width with variable (banding), merge (categories merged), or both")
        out.update(band_width=None, variable=None, origin=0.0)
        return out
    out["band_width"] = float(check_parameter("band_width", parameters["band_width"]))
    if parameters["variable"] is None:
        raise InputError("parameter band_width needs variable (the numeric key banded)")
    out["variable"] = check_parameter("variable", parameters["variable"], StepName(names, "keys"))
    out["origin"] = check_parameter("origin", parameters["origin"], [None, "value"])
    if out["origin"] is None:
        raise InputError("parameter origin must be a finite number")
    return out


def _as_text(column: pd.Series) -> pd.Series:
    """The values as text (``3`` for a whole number read as 3.0), missing values kept missing."""
    def text(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    return column.astype(object).where(column.isna(), column.map(text, na_action="ignore"))


def _apply_recode(frame: pd.DataFrame, step: Step, source: str, budget: WorkBudget) -> tuple[pd.DataFrame, dict]:
    from rumap.masking.categorical import band, recode
    from rumap.release.step_apply import category_counts, known_columns

    p = step.parameters
    out = frame
    if p["merge"]:
        out = frame.copy()
        for variable in p["merge"]:
            (name,) = known_columns(frame, [variable], source)
            out[name] = _as_text(out[name])
        out = recode(out, p["merge"], source=source)
    if p["band_width"] is not None:
        out = band(out, p["variable"], p["band_width"], origin=p["origin"], source=source)
    changed = sorted({*p["merge"], *([p["variable"]] if p["variable"] else [])}, key=list(step.keys).index)
    return out, {"categories": category_counts(frame, out, changed)}


def _read_flags(given: Mapping[str, Any]) -> dict:
    """``--band-variable VAR`` (the key banded) and each ``--merge VAR:A,B=NEW``, as the step's parameters."""
    out: dict[str, Any] = {}
    if "--band-variable" in given:
        out["variable"] = given["--band-variable"]
    if given.get("--merge"):
        from rumap.masking.categorical import parse_merge

        merge: dict[str, dict[str, str]] = {}
        for text in given["--merge"]:
            variable, merges = parse_merge(text, "--merge", form="be VAR:A,B=NEW")
            merge.setdefault(variable, {}).update(merges)
        out["merge"] = merge
    return out


#: The ``recode`` step (:data:`rumap.release.registry.STEP_METHODS`) and its map (``simulate --method recode``).
RECODE_STEP = StepMethod(
    "keys", {"band_width": None, "variable": None, "origin": 0.0, "merge": {}}, False, _check_recode, _apply_recode,
    None, "global recoding: a numeric key into bands, categories merged", stream=coding_stream,
    flags=(Flag("--band-width", "width of the bands of --band-variable"),),
    text_flags=(Flag("--band-variable", "the numeric key banded", str, "VAR"),
                Flag("--merge", "merge categories A and B of VAR into NEW (repeatable)", str, "VAR:A,B=NEW",
                     repeat=True)),
    read_flags=_read_flags,
    key_map=CategoricalMethod("band_width", False, False, _draw_banding,
                              "global recoding of a numeric key into bands, over the band width", (2.0, 10.0, 5),
                              "global recoding", variable=True, function="rumap.maps.categorical.banding_map",
                              grid_argument="widths", grid_help="band widths of --band-variable"),
    no_prediction="no simulated map (banding's map is exact; merges of categories have no map)")
