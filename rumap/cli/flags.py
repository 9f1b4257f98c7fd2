"""The command line's flags for the parameters of masking methods: one table, read by the parser and by
:mod:`rumap.present.commands`, which writes the command that reproduces a map."""

from __future__ import annotations

__all__ = ["GRID_FLAGS", "METHOD_FLAGS"]

#: The flag of each grid parameter (the names of :attr:`rumap.maps.simulation.MaskingMethod.parameters`).
GRID_FLAGS = {"lambda2": "--lambda2", "lambda2_frac": "--lambda2-frac", "k": "--k", "swap_percent": "--swap-percent"}

#: Flags of options that belong to one masking method only: option -> (flag, method).
METHOD_FLAGS = {
    "truncate_below": ("--truncate-below", "noise"),
    "truncate_above": ("--truncate-above", "noise"),
    "unequal_above": ("--unequal-above", "noise"),
    "unequal_below": ("--unequal-below", "noise"),
    "unequal_factor": ("--unequal-factor", "noise"),
    "correlated": ("--correlated", "noise"),
    "algorithm": ("--algorithm", "microaggregation"),
    "standardize": ("--standardize", "microaggregation"),
    "criterion": ("--criterion", "microaggregation"),
}
