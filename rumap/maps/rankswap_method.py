"""Rank swapping as a masking method of the engine: its one record (kernel, grid of p%, release step).

Each value is swapped with one whose rank lies within p% of the records
(:mod:`rumap.masking.swapping`), drawn from each replicate's generator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import check_parameter
from rumap._validation.steps import REQUIRED
from rumap.maps.method_records import (
    Flag,
    GridParameter,
    Masked,
    MaskingMethod,
    ReleaseStep,
)
from rumap.maps.moments import moments

if TYPE_CHECKING:
    from rumap.budget import WorkBudget
    from rumap.maps.method_records import MaskingPlan as _Plan

__all__ = ["RANKSWAP"]


def _rankswap_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.swapping import rank_swap_kernel

    seeds = [np.random.SeedSequence(plan.config.seed, spawn_key=(int(m),)).generate_state(1)[0] for m in reps]

    def masked(j: int) -> Masked:
        percent = float(plan.config.values[j])
        data = np.stack([rank_swap_kernel(plan.x, percent, np.random.default_rng(int(s))) for s in seeds])
        return data, moments(data)

    return masked


def _release_rankswap(x: np.ndarray, parameters: Mapping[str, Any], columns: tuple[str, ...], seed: int | None,
                      budget: WorkBudget) -> tuple[np.ndarray, dict]:
    from rumap.masking.swapping import rank_swap

    return np.asarray(rank_swap(x, parameters["swap_percent"], seed=seed), dtype=float), {}


def _check_rankswap_step(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"swap_percent": float(check_parameter("swap_percent", parameters["swap_percent"]))}


#: Rank swapping (:mod:`rumap.masking.swapping`): ``METHODS["rankswap"]``.
RANKSWAP = MaskingMethod(
    description="rank swapping",
    grids=(GridParameter("swap_percent", "p%", "swap %", "percent", 0.0, (1.0, 20.0, 10),
                         Flag("--swap-percent", "rank swapping windows, %% of the records", str, "START:STOP:NUM"),
                         widget_keys=("swap_start", "swap_stop", "swap_num"), count_label="number of values"),),
    preserves_mean=True,
    make_masker=_rankswap_masker,
    release=ReleaseStep(_release_rankswap, parameters={"swap_percent": REQUIRED}, check=_check_rankswap_step),
    on_subsample="a record's partners lie within p% of the records' ranks: they depend on the other records",
)
