"""The simulation engine's random streams: replicate m of a run draws from its own generator.

A replicate's generator depends on the run's seed and the replicate's number
only, so a map's replicates are the same whichever chunk or process draws them.
"""

from __future__ import annotations

import numpy as np

from rumap._validation import assumes_valid

__all__ = ["replicate_generator"]


@assumes_valid
def replicate_generator(seed: int, replicate: int) -> np.random.Generator:
    """The generator of replicate ``replicate``: ``SeedSequence(seed, spawn_key=(replicate,))``.

    The same as child ``replicate`` of ``SeedSequence(seed).spawn(M)``.

    Parameters
    ----------
    seed : int
        The run's seed.
    replicate : int
        The replicate's number, >= 0.

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(replicate),)))
