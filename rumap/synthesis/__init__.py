"""Synthetic data: generators fitted on an original file that draw new records, each one record in :data:`GENERATORS`.

A generator's record holds its fit (``fit(frame, value, rng) -> model`` with
``model.draw(rows, rng) -> DataFrame``), its one parameter (a
:data:`rumap._validation.PARAMETERS` entry, the axis of its R-U map) and its
default. :func:`synthesize` fits a generator once and draws ``copies``
synthetic files (synthpop's ``m``). Numeric and categorical columns mix; a
missing value is synthesised as a category of its own. Adding a generator is a
module here and one entry in :data:`GENERATORS`.
"""

from __future__ import annotations

from typing import Any

from rumap.synthesis.generators import GENERATORS, Generator

__all__ = ["Generator", "GENERATORS", "Synthesis", "synthesize"]


def __getattr__(name: str) -> Any:
    """:class:`~rumap.synthesis.run.Synthesis` and :func:`~rumap.synthesis.run.synthesize`, loaded when first asked
    for (they need pandas; the generators' records do not)."""
    if name in ("Synthesis", "synthesize"):
        from rumap.synthesis import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
