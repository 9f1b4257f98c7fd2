"""Microaggregation as a masking method of the engine: its one record (kernel, grid of k, options, release step).

Records are grouped in groups of at least k and each value replaced by its
group's mean (:func:`rumap.masking.microaggregation.microaggregate`, with the
algorithm and criterion of its options); deterministic, so one replicate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import Boolean, JsonBoolean, StrOptions, check_parameter
from rumap._validation.steps import REQUIRED
from rumap.errors import InputError
from rumap.maps.method_records import (
    Flag,
    GridParameter,
    Masked,
    MaskingMethod,
    MethodOption,
    OptionWidget,
    ReleaseStep,
)
from rumap.maps.moments import moments
from rumap.masking.microaggregation import ALGORITHMS, CRITERIA, microaggregate

if TYPE_CHECKING:
    from rumap.budget import WorkBudget
    from rumap.maps.method_records import MaskingPlan as _Plan

__all__ = ["MICROAGGREGATION", "QUADRATIC"]


def _microaggregation_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.microaggregation import microaggregate_kernel

    opts = plan.config.method_options

    def masked(j: int) -> Masked:  # k <= n and the budget of every k were checked when the plan was made
        result = microaggregate_kernel(plan.x, int(plan.config.values[j]), opts["algorithm"], bool(opts["standardize"]),
                                 opts["criterion"])
        data = np.asarray(result.masked, dtype=float).reshape(plan.x.shape)[None]
        return data, moments(data)

    return masked


def _microaggregation_cost(n: int, p: int, values: Sequence[float], options: Mapping[str, Any]) -> tuple[float, str]:
    algorithm = ALGORITHMS[options["algorithm"]]
    return sum(algorithm.cost(n, p, max(int(k), 1)) for k in values), " + the microaggregation of each k"


def _check_microaggregation_step(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"k": int(check_parameter("k", parameters["k"])),
            "algorithm": check_parameter("algorithm", parameters["algorithm"], StrOptions(list(ALGORITHMS))),
            "standardize": check_parameter("standardize", parameters["standardize"], JsonBoolean()),
            "criterion": check_parameter("criterion", parameters["criterion"], StrOptions(list(CRITERIA)))}


#: Microaggregation algorithms whose work grows with the square of the records.
QUADRATIC = ("mdav", "mwa")


def _microaggregation_file_work(parameters: Mapping[str, Any], n: int, p: int, budget: WorkBudget) -> None:
    """Refuse a step whose algorithm's work on ``n`` records of ``p`` columns exceeds ``budget``, naming the
    algorithms linear in the records for a quadratic one."""
    name, k = parameters["algorithm"], int(parameters["k"])
    try:
        budget.check_work(ALGORITHMS[name].cost(n, p, max(k, 1)), f"{name} of {n} records x {p} variables, k = {k}")
    except InputError as exc:
        hint = (f"; {name} is quadratic in the records: the algorithm mdav_partitioned (MDAV within parts of "
                "1,000 records) or optimal_pc1 is linear" if name in QUADRATIC else "")
        raise InputError(f"{exc}{hint}") from None


def _release_microaggregation(x: np.ndarray, parameters: Mapping[str, Any], columns: tuple[str, ...],
                              seed: int | None, budget: WorkBudget) -> tuple[np.ndarray, dict]:
    p = parameters  # the public function: the release's one comparison of k with the file's records
    result = microaggregate(x, p["k"], p["algorithm"], standardize=p["standardize"], criterion=p["criterion"],
                            columns=list(columns), budget=budget)
    summary = {"groups": int(result.group_sizes.size), "information_loss": result.information_loss,
               "standardized": result.standardized}  # SSE/SST, not SSE and SST: sums of squares are aggregates
    return np.asarray(result.masked, dtype=float), summary


#: Microaggregation (:mod:`rumap.masking.microaggregation`): ``METHODS["microaggregation"]``.
MICROAGGREGATION = MaskingMethod(
    description="microaggregation",
    grids=(GridParameter("k", "k", "k", "records", 1.0, (2, 10, 0),
                         Flag("--k", "microaggregation group sizes", str, "START:STOP[:STEP]"), integer=True,
                         widget_keys=("k_start", "k_stop"), at_most_records=True),),
    options=(
        MethodOption("algorithm", "mdav", StrOptions(ALGORITHMS),
                     Flag("--algorithm", f"{', '.join(list(ALGORITHMS)[:-1])} or {list(ALGORITHMS)[-1]} "
                                         "(default mdav)", str, always=True),
                     OptionWidget("select", "Algorithm", "algorithm")),
        MethodOption("standardize", False, Boolean(), Flag("--standardize", "standardize the columns first", None),
                     OptionWidget("checkbox", "Standardize the variables", "standardize")),
        MethodOption("criterion", "pc1", StrOptions(CRITERIA),
                     Flag("--criterion", "sorting criterion of 'fixed' (default pc1)", str)),
    ),
    preserves_mean=True,
    deterministic=True,
    make_masker=_microaggregation_masker,
    cost=_microaggregation_cost,
    release=ReleaseStep(_release_microaggregation,
                        parameters={"k": REQUIRED, "algorithm": "mdav", "standardize": False, "criterion": "pc1"},
                        check=_check_microaggregation_step, file_work=_microaggregation_file_work),
    on_subsample="its groups are made of the other records: a subsample's groups are wider than the file's",
)
