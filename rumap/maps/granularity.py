"""The R-U map of eliminating granularity (seed 004, Mas) over the critical level.

At each level the file is protected by
:func:`rumap.masking.granularity.eliminate_granularity` from the original;
the map's R is by default the share of records alone in a cell of some table
of 2 or 3 keys (``unit_cells``), its U the share of key values kept
(``kept``); any measure of :data:`rumap.maps.categorical_measures.CATEGORICAL_RISKS`
and :data:`CATEGORICAL_UTILITIES` may replace them. Whatever the axes, the
map's ``config["levels"]`` holds, per level, both risks (records in unit cells,
and the global risk of re-identification the Categorical keys page measures),
both utilities (key values kept, and the categories kept per key), the moves
and the values suppressed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rumap._validation import Grid, InstanceOf, StrOptions, Table, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.maps.categorical_measures import CATEGORICAL_RISKS, CATEGORICAL_UTILITIES
from rumap.masking.granularity import MOVES, eliminate_granularity
from rumap.result import RUMap
from rumap.risk.paired import as_frame, select_columns

__all__ = ["granularity_map"]


def _example() -> dict[str, Any]:
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], 60), "region": rng.choice(list("abcde"), 60),
                          "age": rng.choice(["20-39", "40-59", "60-79"], 60)})
    return {"data": frame, "keys": ["sex", "region", "age"], "levels": [20.0, 60.0, 100.0]}


@validate_params({"data": Table(), "levels": Grid("granularity_threshold"), "moves": StrOptions(MOVES),
                  "dispersed_frequency": "dispersed_frequency", "odd_expected": "odd_expected",
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget),
                  "risk": [None, StrOptions(CATEGORICAL_RISKS)], "utility": [None, StrOptions(CATEGORICAL_UTILITIES)],
                  "options": [None, InstanceOf(dict, "a dict of the measures' options")]},
                 example=_example)
def granularity_map(data: Any, keys: Sequence[str | int], levels: ArrayLike, types: Sequence[str] | None = None,
                    moves: str = "both", hierarchy: Mapping[str, Any] | None = None,
                    ordered: Sequence[str] | None = None, population: Mapping[str, Mapping[Any, float]] | None = None,
                    dispersed_frequency: int = 5, odd_expected: float = 5.0, weight: str | int | None = None,
                    source: str = "the data", budget: WorkBudget = DEFAULT_BUDGET, risk: str | None = None,
                    utility: str | None = None, options: dict | None = None) -> RUMap:
    """The R-U map of eliminating granularity, over the critical level (100 down to 20, say).

    Parameters
    ----------
    data : DataFrame
    keys : sequence of str or int
        At least 2 key variables.
    levels : array_like
        Critical levels (percent, in (0, 100]).
    types, moves, hierarchy, ordered, population, dispersed_frequency, odd_expected
        As :func:`rumap.masking.granularity.eliminate_granularity`.
    weight : str or int, optional
        Sampling weights of the individual risk.
    source : str
    budget : WorkBudget
        The grid's size; each elimination checks its own work.
    risk : str, optional
        R from :data:`CATEGORICAL_RISKS` (default ``unit_cells``).
    utility : str, optional
        U from :data:`CATEGORICAL_UTILITIES` (default ``kept``).
    options : dict, optional
        The measures' options.

    Returns
    -------
    RUMap
        Parameter ``level``; ``config["levels"]`` every measure at each level,
        ``config["step_parameters"]`` the release step's other parameters.

    References
    ----------
    Seed 004 (Mas, EUSTAT), Algorithm to eliminate granularity in microdata files.

    Examples
    --------
    >>> m = granularity_map(**_example())
    >>> bool(m.utility[0] <= m.utility[-1]), bool(m.risk[0] <= m.risk[-1]), sorted(m.config["levels"][0])
    (True, True, ['categories', 'global_risk', 'kept', 'level', 'moves', 'suppressed', 'unit_cells'])
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    values = np.asarray(levels, dtype=float)
    budget.check_grid(values.size, "level")
    if risk is not None and risk not in CATEGORICAL_RISKS or utility is not None and utility not in CATEGORICAL_UTILITIES:
        raise InputError(f"risk and utility must name measures, got {risk!r} and {utility!r}")
    r_measure = CATEGORICAL_RISKS[risk or "unit_cells"]
    u_measure = CATEGORICAL_UTILITIES[utility or "kept"]
    settings = {"weight": weight, "options": dict(options or {}), "source": source, "budget": budget}
    step = {"types": list(types) if types is not None else ["proportional", "odd", "dispersed"], "moves": moves,
            "hierarchy": {v: dict(h) for v, h in (hierarchy or {}).items() if isinstance(h, Mapping)},
            "ordered": list(ordered) if ordered is not None else None,
            "population": {v: {str(c): float(f) for c, f in d.items()} for v, d in (population or {}).items()},
            "dispersed_frequency": int(dispersed_frequency), "odd_expected": float(odd_expected)}
    risks, utilities, rows = np.empty(values.size), np.empty(values.size), []
    for i, level in enumerate(values):
        result = eliminate_granularity(frame, names, level=float(level), types=types, moves=moves, hierarchy=hierarchy,
                                       ordered=ordered, population=population,
                                       dispersed_frequency=dispersed_frequency, odd_expected=odd_expected,
                                       source=source, budget=budget)
        released = result.data
        risks[i] = r_measure.compute(frame, released, names, **settings)
        utilities[i] = u_measure.compute(frame, released, names, **settings)
        rows.append({"level": float(level),
                     "unit_cells": CATEGORICAL_RISKS["unit_cells"].compute(frame, released, names, **settings),
                     "global_risk": CATEGORICAL_RISKS["global_risk"].compute(frame, released, names, **settings),
                     "kept": CATEGORICAL_UTILITIES["kept"].compute(frame, released, names, **settings),
                     "categories": {v: c["after"] / max(1, c["before"]) for v, c in result.categories.items()},
                     "moves": len(result.moves), "suppressed": int(sum(result.suppressed.values()))})
    return RUMap(parameter="level", values=values, risk=risks, utility=utilities, risk_label=r_measure.label,
                 utility_label=u_measure.label, method="granularity elimination", knowledge="key",
                 target=" x ".join(names),
                 config={"keys": names, "source": source, "risk": risk or "unit_cells", "utility": utility or "kept",
                         "weighted": weight is not None, "levels": rows, "step_parameters": step})
