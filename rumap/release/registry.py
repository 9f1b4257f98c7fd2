"""The registry of rumap's methods as steps of a release plan: the one table of methods by name.

Each method is one module that exports one record
(:class:`rumap.release.methods.StepMethod`): its check, its applier, how it
runs on a file, its predictor, its flags and words, and, for a protection of
categorical keys, its R-U map (``key_map``, a
:class:`rumap.maps.categorical.CategoricalMethod`). A masking method of the
maps' engine (:data:`rumap.maps.methods.METHODS`) brings its step in its own
record, under its name (:func:`rumap.release.masking_steps.record_step`).

Adding a method is its module and one line of :data:`_STEPS`. Everything else
(the release in memory and streamed, the report, the command line's
``release`` and ``simulate``, the pages) reads :data:`STEP_METHODS` and
:data:`CATEGORICAL_METHODS`, which are views of it.
"""

from __future__ import annotations

from rumap.maps.key_method import CategoricalMethod
from rumap.maps.method_records import LiveTable, MaskingMethod
from rumap.maps.methods import METHODS, reserve_method_names
from rumap.release.cellkey_step import CELL_KEY_STEP
from rumap.release.granularity_step import GRANULARITY_STEP
from rumap.release.masking_steps import record_step
from rumap.release.methods import StepMethod, use_step_methods
from rumap.release.pram_step import PRAM_STEP
from rumap.release.recode_step import RECODE_STEP
from rumap.release.suppress_step import SUPPRESS_STEP
from rumap.release.swap_step import SWAP_STEP
from rumap.release.synthesis import SYNTHESIS, SYNTHESIS_STEP
from rumap.release.tables import CONTROLLED_ROUNDING_STEP, PRIMARY_STEP, SECONDARY_SUPPRESSION_STEP, TABLE_STEP
from rumap.release.top_bottom_step import TOP_BOTTOM_STEP

__all__ = ["STEP_METHODS", "CATEGORICAL_METHODS"]

#: Every method that is no masking method of the maps' engine, by the name a plan's step gives: one line each.
_STEPS: dict[str, StepMethod] = {
    "recode": RECODE_STEP,
    "top_bottom": TOP_BOTTOM_STEP,
    "suppress": SUPPRESS_STEP,
    "pram": PRAM_STEP,
    "granularity": GRANULARITY_STEP,
    "swap": SWAP_STEP,
    SYNTHESIS: SYNTHESIS_STEP,
    "table": TABLE_STEP,
    "primary": PRIMARY_STEP,
    "secondary_suppression": SECONDARY_SUPPRESSION_STEP,
    "controlled_rounding": CONTROLLED_ROUNDING_STEP,
    "cell_key": CELL_KEY_STEP,
}


class _StepMethods(LiveTable):
    """A live view: the step of every record of :data:`METHODS` that has a ``release``, then :data:`_STEPS`."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[MaskingMethod, StepMethod]] = {}

    def _masking(self) -> dict[str, StepMethod]:
        out = {}
        for name, record in METHODS.items():
            if record.release is None:
                continue
            made = self._made.get(name)
            if made is None or made[0] is not record:  # a method registered (or replaced) since
                made = self._made[name] = (record, record_step(name, record))
            out[name] = made[1]
        return out

    def table(self) -> dict[str, StepMethod]:
        """Every step method as registered now."""
        return {**self._masking(), **_STEPS}


class _KeyMaps(LiveTable):
    """A live view: the map of every step that protects categorical keys and has one (its ``key_map``)."""

    def table(self) -> dict[str, CategoricalMethod]:
        """Every map of categorical keys as registered now, under its step's name."""
        return {name: record.key_map for name, record in _STEPS.items() if record.key_map is not None}


#: Masking methods as steps of a release plan, by name: a masking method of the maps' engine brings its own
#: (its record's ``release``, :class:`rumap.maps.method_records.ReleaseStep`, under its name, when
#: :func:`rumap.maps.methods.register_method` adds it); the others are one line each of :data:`_STEPS`.
STEP_METHODS: LiveTable = _StepMethods()
use_step_methods(STEP_METHODS)
reserve_method_names(_STEPS)

#: The R-U maps of categorical protections, by their step's name (``simulate --method NAME``): the ``key_map`` of
#: each record of :data:`STEP_METHODS` that has one.
CATEGORICAL_METHODS: LiveTable = _KeyMaps()
