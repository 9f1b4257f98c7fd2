"""The tolerance of a tie between two distances, shared by the linkage measures and the maps' common risk.

It lives in a module of its own so that the simulation engine reads it without importing the linkage
machinery (pandas).
"""

from __future__ import annotations

__all__ = ["TIE_RTOL"]

#: Relative tolerance under which two aggregated distances count as equal (a tie).
TIE_RTOL = 1e-9
