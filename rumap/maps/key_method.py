"""The record of a map of categorical keys: what the command line and the pages need to draw a protection's map.

A protection of categorical keys (a step of :data:`rumap.release.registry.STEP_METHODS`)
holds its map as its ``key_map``, a :class:`CategoricalMethod`. The record loads
without pandas: its drawing function imports the map's module when it runs, and
it names its public map function instead of holding it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rumap.maps.method_records import Flag, grid_values

__all__ = ["CategoricalMethod"]


@dataclass(frozen=True)
class CategoricalMethod:
    """A protection of categorical keys whose R-U map the command line and pages draw.

    Parameters
    ----------
    parameter : str
        The map's parameter (its grid flag is ``--`` + the name with dashes).
    integer : bool
        Whether the grid holds whole numbers.
    simulated : bool
        Whether the map is simulated (replicates and seed apply).
    draw : callable
        ``draw(frame, keys, values, *, weight, variable, replicates, seed, source, budget, risk, utility,
        options) -> RUMap``; ``risk`` and ``utility`` name entries of :data:`rumap.maps.categorical_measures.CATEGORICAL_RISKS` and
        :data:`rumap.maps.categorical_measures.CATEGORICAL_UTILITIES` (None: the method's default).
    description : str
    default_grid : tuple
        ``(start, stop, num)`` of the grid the Categorical keys page draws
        (``num`` unused for integers; the page's input of the largest k
        starts at ``stop``). The command line has no default: its grid flag is
        required.
    label : str
        The ``method`` its maps carry (:attr:`rumap.result.RUMap.method`);
        the step of a release plan whose record names this map (``key_map``
        of :data:`rumap.release.registry.STEP_METHODS`) applies it at a point
        of such a map (:func:`rumap.release.from_map.step_from_key_map`).
    variable : bool
        Whether its map needs the numeric key it bands (``variable``).
    function : str, default ""
        The dotted name of its public map function (what a
        :class:`rumap.specs.calls.CallSpec` of the map calls, reproduced by
        ``simulate --method NAME``), such as ``"rumap.maps.categorical.pram_map"``;
        named, not held, so that the record loads without the function's module.
    grid_argument : str
        The function's argument that takes the grid (``ks``).
    grid_help : str, default ""
        The help line of the grid flag of ``simulate`` (``--`` + the parameter).
    flags : tuple of Flag
        The flags of ``simulate --method NAME`` that give the map's own options
        (swap's ``--household``), each added once to the parser.
    read_flags : callable, optional
        ``read_flags(given) -> options``: the map's options from ``{flag: value}``
        of those of :attr:`flags` given (a flag shared with another method's
        group may arrive as a list of its repeats).
    """

    parameter: str
    integer: bool
    simulated: bool
    draw: Callable[..., Any]
    description: str
    default_grid: tuple[float, float, int]
    label: str = ""
    variable: bool = False
    function: str = ""
    grid_argument: str = ""
    grid_help: str = ""
    flags: tuple[Flag, ...] = ()
    read_flags: Callable[[Mapping[str, Any]], dict] | None = None

    def values(self, start: float | None = None, stop: float | None = None, num: int | None = None) -> list:
        """The grid from ``start`` to ``stop`` with ``num`` values, each :attr:`default_grid`'s when not given.

        Parameters
        ----------
        start, stop : float, optional
        num : int, optional

        Returns
        -------
        list

        Examples
        --------
        >>> thetas = CategoricalMethod("theta", False, True, print, "PRAM", (0.2, 1.0, 5))
        >>> thetas.values()
        [0.2, 0.4, 0.6, 0.8, 1.0]
        >>> CategoricalMethod("k", True, False, print, "suppression", (1, 5, 5)).values(stop=3)
        [1, 2, 3]
        """
        low, high, count = self.default_grid
        return grid_values(low if start is None else start, high if stop is None else stop,
                           count if num is None else num, integer=self.integer).tolist()
