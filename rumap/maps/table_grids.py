"""The values a map of a protected table runs over: a rule's parameter, the protection level, the rounding base.

One place for the grids of :func:`rumap.maps.tables.rule_map`,
:func:`rumap.maps.tables.protection_map` and
:func:`rumap.maps.tables.rounding_base_map` when nobody gives one: the
dashboard's maps of a table use them, and a reader of a reproduced map finds
the same values.
"""

from __future__ import annotations

import numpy as np

from rumap._validation import InstanceOf, StrOptions, validate_params
from rumap.tables.published import PublishedTable
from rumap.tables.rules import RULES

__all__ = ["RULE_GRIDS", "PROTECTION_GRID", "MAX_ROUNDING_BASES", "rule_grid", "rounding_base_grid"]

#: The values each rule's swept parameter takes (the first parameter of :data:`rumap.tables.rules.RULES`).
RULE_GRIDS: dict[str, tuple[float, ...]] = {"p": (1.0, 5.0, 10.0, 20.0, 40.0), "n": (1.0, 2.0, 3.0),
                                            "k": (0.5, 0.6, 0.7, 0.8, 0.9), "threshold": (2.0, 3.0, 5.0, 10.0)}
#: Protection levels, in percent of each primary cell's value.
PROTECTION_GRID: tuple[float, ...] = (5.0, 10.0, 20.0, 40.0)
#: Most rounding bases of :func:`rounding_base_grid`.
MAX_ROUNDING_BASES = 6


@validate_params({"rule": StrOptions(RULES)}, example=lambda: {"rule": "dominance"})
def rule_grid(rule: str) -> tuple[str, list[float]]:
    """The parameter a map over ``rule`` sweeps (its first) and the values it takes.

    Parameters
    ----------
    rule : str
        A key of :data:`rumap.tables.rules.RULES`.

    Returns
    -------
    parameter : str
    values : list of float
        :data:`RULE_GRIDS` of that parameter.

    Examples
    --------
    >>> rule_grid("dominance")
    ('n', [1.0, 2.0, 3.0])
    >>> rule_grid("p-percent")
    ('p', [1.0, 5.0, 10.0, 20.0, 40.0])
    """
    parameter = next(iter(RULES[rule].parameters))
    return parameter, list(RULE_GRIDS[parameter])


@validate_params({"table": InstanceOf(PublishedTable, "a PublishedTable")},
                 example=lambda: {"table": PublishedTable.from_cells([[3.0, 7.0], [12.0, 1.0]])})
def rounding_base_grid(table: PublishedTable) -> list[float]:
    """Powers of 10 from 10 up to the largest cell's order of magnitude (at most :data:`MAX_ROUNDING_BASES`).

    Parameters
    ----------
    table : PublishedTable

    Returns
    -------
    list of float
        ``10, 100, ..., 10^t`` with ``t = floor(log10(largest cell))`` kept between 1 and 6 (10 alone
        for a table whose cells are all below 100, or that has none).

    Examples
    --------
    >>> rounding_base_grid(PublishedTable.from_cells([[250.0, 7100.0], [12.0, 480.0]]))
    [10.0, 100.0, 1000.0]
    >>> rounding_base_grid(PublishedTable.from_cells([[3.0, 7.0], [12.0, 1.0]]))
    [10.0]
    """
    cells = table.cells
    largest = float(np.nanmax(cells)) if cells.size else 1.0
    top = max(1, min(MAX_ROUNDING_BASES, int(np.floor(np.log10(max(largest, 10.0))))))
    return [float(10 ** k) for k in range(1, top + 1)]
