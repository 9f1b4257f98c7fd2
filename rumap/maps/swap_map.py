"""The R-U map of targeted record swapping over the swap rate, with the categorical key measures.

For each swap rate, ``replicates`` swaps of the households
(:func:`rumap.masking.targeted_swap.targeted_swap`, each from its own seed)
are measured on the key variables joined with the geography (the hierarchy's
variables first): R by default ``key_matching`` (the share of records an
intruder who matches the true geography and keys to the released file
re-identifies), U by default ``hellinger`` (1 - the Hellinger distance between
the original and released tables of geography x keys); any measure of
:data:`rumap.maps.categorical_measures.CATEGORICAL_RISKS` and
``CATEGORICAL_UTILITIES`` serves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, Grid, InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.maps.categorical_measures import CATEGORICAL_RISKS, CATEGORICAL_UTILITIES, replicated_measures
from rumap.masking.targeted_swap import swap_example as _swap_example
from rumap.masking.targeted_swap import targeted_swap
from rumap.result import RUMap

__all__ = ["swap_map", "draw_swap", "SWAP_OPTIONS", "swapped_shares_sentence"]

#: The swap's own entries of a categorical map's ``options`` (the rest are the measures').
SWAP_OPTIONS = ("hierarchy", "household", "similar", "carry_along", "swap_k")


def _example() -> dict[str, Any]:
    ex = _swap_example()
    return {"data": ex["data"], "keys": ex["keys"], "swaprates": [0.0, 1.0], "hierarchy": ex["hierarchy"],
            "household": ex["household"], "similar": ex["similar"], "k": 2, "replicates": 2, "seed": 1}


@validate_params({"data": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "swaprates": Grid("swaprate"), "k": "k",
                  "replicates": "replicates", "seed": SEED, "budget": InstanceOf(WorkBudget),
                  "risk": [None, StrOptions(CATEGORICAL_RISKS)], "utility": [None, StrOptions(CATEGORICAL_UTILITIES)]},
                 example=_example)
def swap_map(data: pd.DataFrame, keys: Sequence[str], swaprates: Sequence[float], *, hierarchy: Sequence[str],
             household: str, similar: Sequence[Sequence[str]], carry_along: Sequence[str] = (), k: int = 3,
             replicates: int = 20, seed: int | None = 0, weight: str | None = None, source: str = "the data",
             budget: WorkBudget = DEFAULT_BUDGET, risk: str | None = None, utility: str | None = None,
             options: dict | None = None) -> RUMap:
    """The R-U map of targeted record swapping over the swap rate.

    Parameters
    ----------
    data : pandas.DataFrame
    keys : sequence of str
        The key variables.
    swaprates : sequence of float
        The grid of swap rates.
    hierarchy, household, similar, carry_along, k
        As :func:`rumap.masking.targeted_swap.targeted_swap` takes them.
    replicates : int, default 20
    seed : int, optional
    weight : str, optional
        Sampling weights of the individual-risk measures.
    source : str
    budget : WorkBudget
    risk, utility : str, optional
        Measures (default ``key_matching`` and ``hellinger``).
    options : dict, optional
        The measures' options.

    Returns
    -------
    RUMap
        Parameter ``swaprate``; method ``swap``; ``config["step_parameters"]`` the release step's other
        parameters (:func:`rumap.release.from_map.step_from_key_map`); ``config["swapped_share"]`` the share
        of the households swapped at each rate, the mean over the replicates (at least the rate: every
        household at risk is swapped, with its partner, whatever the rate).

    Examples
    --------
    >>> m = swap_map(**_example())
    >>> m.parameter, m.values.tolist(), bool((m.utility <= 1).all())
    ('swaprate', [0.0, 1.0], True)
    """
    values = np.asarray(swaprates, dtype=float)
    names = [*hierarchy, *[k_ for k_ in keys if k_ not in hierarchy]]
    missing = [c for c in names if c not in data.columns]
    if missing:
        raise InputError(f"{source}: no column {missing[0]!r}; columns are {', '.join(map(str, data.columns))}")
    budget.check_grid(values.size, "swaprate")
    budget.check_work(float(data.shape[0]) * len(names) * replicates * values.size,
                      f"{data.shape[0]} records x {len(names)} keys x {replicates} replicates x {values.size} values")
    r_measure = CATEGORICAL_RISKS[risk or "key_matching"]
    u_measure = CATEGORICAL_UTILITIES[utility or "hellinger"]
    settings = {"weight": weight, "options": dict(options or {}), "source": source, "budget": budget}
    shares: dict[float, list[float]] = {}  # the share of households each release swapped, per rate

    def release(rate: float, rng: np.random.Generator) -> pd.DataFrame:
        result = targeted_swap(data, hierarchy, keys, household, similar, carry_along=carry_along, k=k,
                               swaprate=rate, seed=rng)
        shares.setdefault(rate, []).append(result.swapped_households / max(result.households, 1))
        return result.data

    risk_mean, utility_mean, risk_se, utility_se = replicated_measures(
        data, names, values, replicates, seed, release, r_measure, u_measure, settings)
    return RUMap(parameter="swaprate", values=values, risk=risk_mean, utility=utility_mean, risk_se=risk_se,
                 utility_se=utility_se,
                 risk_label=r_measure.label, utility_label=u_measure.label, method="swap", knowledge="key",
                 target=" x ".join(names),
                 config={"keys": list(keys), "hierarchy": list(hierarchy), "household": household,
                         "similar": [list(s) for s in similar], "carry_along": list(carry_along), "k": k,
                         "replicates": replicates, "seed": seed, "source": source,
                         "risk": risk or "key_matching", "utility": utility or "hellinger",
                         "swapped_share": [float(np.mean(shares[float(v)])) for v in values],
                         "step_parameters": {"hierarchy": list(hierarchy), "household": household,
                                             "similar": [list(s) for s in similar],
                                             "carry_along": list(carry_along), "k": k}})


@assumes_valid
def draw_swap(frame: pd.DataFrame, keys: Sequence[str], values: Sequence[float], *, weight: str | None,
              variable: str | None, replicates: int, seed: int | None, source: str, budget: WorkBudget,
              risk: str | None = None, utility: str | None = None, options: dict | None = None) -> RUMap:
    """:func:`swap_map` as a categorical method draws it: the swap's parameters in ``options`` (:data:`SWAP_OPTIONS`).

    Parameters
    ----------
    frame : DataFrame
    keys : sequence of str
    values : sequence of float
        The swap rates.
    weight, variable : str or None
        Unused by swapping (the categorical methods' common signature).
    replicates : int
    seed : int or None
    source : str
    budget : WorkBudget
    risk, utility : str, optional
    options : dict, optional
        The swap's ``hierarchy``, ``household``, ``similar``, ``carry_along`` and ``k``, and the measures' options.

    Returns
    -------
    RUMap
    """
    options = dict(options or {})
    own = {name: options.pop(name, None) for name in SWAP_OPTIONS}
    for name in ("hierarchy", "household", "similar"):
        if own[name] is None:
            raise InputError(f"swap needs its {name} (--{name})")
    return swap_map(frame, keys, values, hierarchy=own["hierarchy"], household=own["household"],
                    similar=own["similar"], carry_along=own["carry_along"] or (), k=own["swap_k"] or 3,
                    replicates=replicates, seed=seed, weight=weight, source=source, budget=budget, risk=risk,
                    utility=utility, options=options)


@validate_params({"m": InstanceOf(RUMap, "an RUMap")},
                 example=lambda: {"m": swap_map(**_example())})
def swapped_shares_sentence(m: RUMap) -> str:
    """What share of the households a map of targeted swapping swaps at each rate, in words ("" if it does not say).

    The swap rate is a floor, not the share swapped: every household holding a record at risk is swapped with
    its partner whatever the rate, so where they are more than the rate, the rate adds nobody.

    Parameters
    ----------
    m : RUMap
        From :func:`swap_map`.

    Returns
    -------
    str

    Examples
    --------
    >>> m = RUMap(parameter="swaprate", values=[0.01, 0.1], risk=[0.2, 0.1], utility=[0.9, 0.8],
    ...           config={"swapped_share": [0.3, 0.3]})
    >>> print(swapped_shares_sentence(m))
    Households swapped (mean over the replicates): 30.0% at swap rate 0.01, 30.0% at 0.1. The households holding a record at risk are swapped with their partners whatever the rate (30.0% of the households here): a rate below that swaps no more.
    """
    shares = m.config.get("swapped_share")
    if not shares or len(shares) != m.values.size:
        return ""
    listed = ", ".join(f"{share:.1%} at {'swap rate ' if i == 0 else ''}{rate:g}"
                       for i, (rate, share) in enumerate(zip(m.values, shares, strict=True)))
    text = f"Households swapped (mean over the replicates): {listed}."
    floor = min(shares)
    if floor > float(m.values.min()) + 0.005:  # the households at risk alone exceed the lowest rate
        text += (" The households holding a record at risk are swapped with their partners whatever the rate "
                 f"({floor:.1%} of the households here): a rate below that swaps no more.")
    return text
