"""The command-line flag of each masking method's grid parameter and options.

The flags are part of a method's description: the command line's parser
(:mod:`rumap.cli.flags`) reads them, and so does the command that reproduces a
map (:mod:`rumap.present.commands`). This module imports nothing, so that a
parser can be built without the methods' modules.
"""

from __future__ import annotations

__all__ = ["GRID_FLAGS", "METHOD_FLAGS"]

#: The flag of each grid parameter (the names of :attr:`rumap.maps.methods.MaskingMethod.parameters`).
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
