"""The maps the release plan's steps were applied from, so that the Release page predicts a step as its map does.

A step applied from an empirical map (:func:`rumap.release.from_map.step_from_spec`) has the map's method,
options, columns and seed; one applied from a synthetic map
(:func:`rumap.release.synthesis.step_from_synthetic`) its generator, columns and seed. The simulation engine's draws at a value do not depend on the rest of the grid,
so the step's map simulated again with the map's replicates gives the map's own mean at that value; with
other replicates the mean differs by Monte-Carlo error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rumap.errors import InputError
from rumap.release.apply import STEP_METHODS
from rumap.release.from_map import step_from_spec, step_from_synthetic, with_precision
from rumap.release.plan import Step
from rumap.specs import Analysis, EmpiricalSpec
from rumap.specs.synthetic import SyntheticSpec

__all__ = ["map_replicates"]


def _made_from(step: Step, analysis: Analysis, data_name: str) -> bool:
    spec = analysis.spec
    if not isinstance(spec, EmpiricalSpec) or spec.data.name != data_name or not analysis.maps:
        return False
    precision = STEP_METHODS[step.method].precision if step.method in STEP_METHODS else ""
    for value in analysis.maps[0].values.tolist():
        try:
            made = with_precision([step_from_spec(spec, float(value))], step.parameters.get(precision))[0]
        except InputError:
            continue
        if replace(made, origin=step.origin) == step:  # the map's step, as Apply stamped and rounded it
            return True
    return False


def _synthesised_from(step: Step, analysis: Analysis, data_name: str) -> bool:
    spec = analysis.spec
    if not isinstance(spec, SyntheticSpec) or spec.data.name != data_name:
        return False
    for value in spec.values:
        try:
            if replace(step_from_synthetic(spec, float(value)), origin=step.origin) == step:
                return True
        except InputError:
            continue
    return False


def map_replicates(steps: Sequence[Step], analyses: Sequence[Analysis], data_name: str) -> int | None:
    """The replicates of the empirical maps the plan's map steps were applied from, when they are one number.

    Parameters
    ----------
    steps : sequence of Step
        The release plan's steps.
    analyses : sequence of Analysis
        The maps at hand (kept, and the Empirical page's current one).
    data_name : str
        The name of the data the plan is applied to: a map of other data is not the step's.

    Returns
    -------
    int or None
        None when a map step comes from no map at hand, when their maps' replicates differ, or when the plan
        has no random map step.
    """
    counts = set()
    for step in steps:
        synthetic = [a.spec.replicates for a in analyses if _synthesised_from(step, a, data_name)]
        if synthetic:  # a synthesis step applied from a synthetic map: predicted with its replicates too
            counts.add(max(synthetic))
            continue
        if STEP_METHODS[step.method].map_method is None:
            continue
        found = [a.spec.simulation for a in analyses if _made_from(step, a, data_name)]
        if not found:
            return None
        if not found[0].deterministic:  # a deterministic map is one run, whatever its replicates
            counts.add(max(config.replicates for config in found))
    return counts.pop() if len(counts) == 1 else None
