"""Global recoding's one chunk kernel: each recoded variable's chain of steps, applied to a frame of records.

A recoding merges categories (:func:`rumap.masking.categorical.recode`), bands
numbers (:func:`~rumap.masking.categorical.band`) and codes the top and bottom
(:func:`~rumap.masking.categorical.top_bottom_code`), in that order for each
variable. Each step maps each value by itself, so a chunk of records (or of a
column's distinct values) recodes as the whole file would: the file in memory
(``protect recode``) is one chunk, the scale engine's file many
(:func:`rumap.scale.recoding.recode_file`), a cluster's ranges many on many
workers (:func:`rumap.scale.cluster_protect.cluster_recode`). They all build
their steps here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from rumap._validation import assumes_valid
from rumap.masking.categorical import band, recode, top_bottom_code

__all__ = ["recoding_steps", "recode_chunk"]

#: One step of a variable's recoding: a frame in, a copy with the variable recoded out.
Step = Callable[[pd.DataFrame], pd.DataFrame]


@assumes_valid
def recoding_steps(mapping: Mapping[str, Mapping[Any, Any]] | None = None, bands: Sequence[tuple[str, float]] = (),
                   top: Sequence[tuple[str, float]] = (), bottom: Sequence[tuple[str, float]] = (),
                   source: str = "the data") -> dict[str, list[Step]]:
    """Each recoded variable's steps, in the order they apply: merges, bands, top coding, bottom coding.

    Parameters
    ----------
    mapping : mapping, optional
        ``{variable: {old category: new category}}`` (:func:`rumap.masking.categorical.recode`).
    bands : sequence of (variable, width)
        Bands (:func:`rumap.masking.categorical.band`).
    top, bottom : sequence of (variable, limit)
        Top and bottom coding (:func:`rumap.masking.categorical.top_bottom_code`).
    source : str
        How messages name the data.

    Returns
    -------
    dict
        ``{variable: [step, ...]}``, the variables in the order first named
        (the mapping's, then the bands', the top's and the bottom's).

    Examples
    --------
    >>> steps = recoding_steps({"region": {"b": "ab", "a": "ab"}}, bands=[("age", 10)], top=[("age", 60)])
    >>> {name: len(chain) for name, chain in steps.items()}
    {'region': 1, 'age': 2}
    """
    touched = dict.fromkeys([*(mapping or {}), *(v for v, _ in (*bands, *top, *bottom))])
    steps: dict[str, list[Step]] = {name: [] for name in touched}
    for variable, merges in (mapping or {}).items():
        steps[variable].append(lambda frame, m={variable: merges}: recode(frame, m, source=source))
    for variable, width in bands:
        steps[variable].append(lambda frame, v=variable, w=width: band(frame, v, w, source=source))
    for variable, limit in top:
        steps[variable].append(lambda frame, v=variable, x=limit: top_bottom_code(frame, v, above=x, source=source))
    for variable, limit in bottom:
        steps[variable].append(lambda frame, v=variable, x=limit: top_bottom_code(frame, v, below=x, source=source))
    return steps


@assumes_valid
def recode_chunk(frame: pd.DataFrame, steps: Mapping[str, Sequence[Step]]) -> pd.DataFrame:
    """A chunk of records (or of a column's distinct values) through every variable's steps.

    Parameters
    ----------
    frame : DataFrame
        The records (with at least the recoded variables).
    steps : mapping
        ``{variable: [step, ...]}`` (:func:`recoding_steps`).

    Returns
    -------
    DataFrame
        The records recoded (a copy, once any step ran).

    Examples
    --------
    >>> frame = pd.DataFrame({"region": ["a", "b", "c"], "age": [23, 37, 71]})
    >>> recoded = recode_chunk(frame, recoding_steps({"region": {"b": "bc", "c": "bc"}}, bands=[("age", 10)]))
    >>> recoded["region"].tolist(), recoded["age"].tolist()
    (['a', 'bc', 'bc'], ['20-29', '30-39', '70-79'])
    """
    for chain in steps.values():
        for step in chain:
            frame = step(frame)
    return frame
