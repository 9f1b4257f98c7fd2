"""R-U maps of categorical protection: local suppression over k, banding over the width, PRAM over retention.

Each map traces (U, R) as the protection parameter changes, on the same axes
as the other maps of rumap (a :class:`rumap.result.RUMap`):

- :func:`suppression_map`: local suppression to k-anonymity for each k (exact).
  R is the file's global risk (mean individual risk, mu-Argus/sdcMicro) after
  suppression; U is the share of key values kept.
- :func:`banding_map`: global recoding of a numeric key into bands of each
  width (exact). R is the global risk; U the share of the variable's variance
  the bands keep (1 - SSE/SST).
- :func:`pram_map`: invariant PRAM for each retention probability theta
  (simulated, with standard errors). R is the expected share of records an
  intruder re-identifies by matching the true key to the released file and
  picking at random among the matches (``mean_i [released key = true key] /
  f_k(released)``); U is ``1 - H``, the Hellinger distance between the original
  and released tables of the key combination.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rumap._validation import SEED, Grid, InstanceOf, StrOptions, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.maps.categorical_measures import (
    CATEGORICAL_RISKS,
    CATEGORICAL_UTILITIES,
    CategoricalMeasure,
    hellinger_utility,
    pram_reidentification,
    replicated_measures,
)
from rumap.masking.categorical import band, local_suppression, pram
from rumap.result import RUMap
from rumap.risk.paired import as_frame, select_columns

__all__ = ["suppression_map", "banding_map", "pram_map", "hellinger_utility", "pram_reidentification",
           "CATEGORICAL_RISKS", "CATEGORICAL_UTILITIES"]

_MEASURE_CONSTRAINTS = {"risk": [None, StrOptions(CATEGORICAL_RISKS)], "utility": [None, StrOptions(CATEGORICAL_UTILITIES)],
                        "options": [None, InstanceOf(dict, "a dict of the measures' options")]}


def _measures(risk: str | None, utility: str | None, default_risk: str, default_utility: str
              ) -> tuple[CategoricalMeasure, CategoricalMeasure]:
    """The map's R and U measures (its defaults when not given)."""
    for kind, name, registry in (("risk", risk, CATEGORICAL_RISKS), ("utility", utility, CATEGORICAL_UTILITIES)):
        if name is not None and name not in registry:
            raise InputError(f"{kind} must be one of {', '.join(registry)}, got {name!r}")
    return CATEGORICAL_RISKS[risk or default_risk], CATEGORICAL_UTILITIES[utility or default_utility]


def _measure_options(options: dict | None, variable: str | None = None) -> dict:
    if options is not None and not isinstance(options, dict):
        raise InputError(f"options must be a dict, got {type(options).__name__}")
    merged = dict(options or {})
    if variable is not None:
        merged.setdefault("variable", variable)
    return merged


def _example() -> dict[str, Any]:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], 60), "region": rng.choice(list("abcdef"), 60),
                          "age": rng.integers(18, 80, 60)})
    return {"data": frame, "keys": ["sex", "region", "age"]}


@validate_params({"ks": Grid("k"), "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget),
                  **_MEASURE_CONSTRAINTS},
                 example=lambda: {**_example(), "ks": [2, 3]})
def suppression_map(data: Any, keys: Sequence[str | int], ks: ArrayLike, weight: str | int | None = None,
                    source: str = "the data", budget: WorkBudget = DEFAULT_BUDGET, risk: str | None = None,
                    utility: str | None = None, options: dict | None = None) -> RUMap:
    """The R-U map of local suppression to k-anonymity over k.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
        The key variables.
    ks : array_like of int
        The values of k.
    weight : str or int, optional
        Sampling weights for the individual risk (else the census case).
    source : str
    budget : WorkBudget
        Checked for the grid's size (each k is one suppression run).
    risk : str, optional
        R from :data:`CATEGORICAL_RISKS` (default ``global_risk``).
    utility : str, optional
        U from :data:`CATEGORICAL_UTILITIES` (default ``kept``).
    options : dict, optional
        The measures' options (``threshold``, ``k``, ``pair``, ``response``).

    Returns
    -------
    RUMap
        Parameter ``k``; by default R the global risk, U the share of key values kept.

    Examples
    --------
    >>> from rumap.maps.categorical import _example, suppression_map
    >>> m = suppression_map(**_example(), ks=[1, 2, 3])
    >>> bool(m.utility[0] == 1.0), bool((m.risk[1:] <= m.risk[0]).all())
    (True, True)
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    values = np.asarray(ks, dtype=float)
    if not np.all(values == np.round(values)):
        raise InputError("k must be whole numbers")
    budget.check_grid(values.size, "k")
    if values.size and values.max() > frame.shape[0]:
        raise InputError(f"the k grid reaches {values.max():.0f}, more than the {frame.shape[0]} records of {source}: "
                         f"no suppression reaches k > n; ask for k up to {frame.shape[0]}")
    r_measure, u_measure = _measures(risk, utility, "global_risk", "kept")
    settings = {"weight": weight, "options": _measure_options(options), "source": source, "budget": budget}
    risk_values, utility_values = np.empty(values.size), np.empty(values.size)
    for i, k in enumerate(values.astype(int)):
        table = frame if k <= 1 else local_suppression(frame, names, k=int(k), source=source, budget=budget).data
        risk_values[i] = r_measure.compute(frame, table, names, **settings)
        utility_values[i] = u_measure.compute(frame, table, names, **settings)
    return RUMap(parameter="k", values=values, risk=risk_values, utility=utility_values, risk_label=r_measure.label,
                 utility_label=u_measure.label, method="local suppression", knowledge="key",
                 target=" x ".join(names), config={"keys": names, "weighted": weight is not None, "source": source,
                                                   "risk": risk or "global_risk", "utility": utility or "kept"})


@validate_params({"widths": Grid("band_width"), "source": InstanceOf(str, "a name for messages"), **_MEASURE_CONSTRAINTS,
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {**_example(), "variable": "age", "widths": [1, 5, 10]})
def banding_map(data: Any, keys: Sequence[str | int], variable: str | int, widths: ArrayLike,
                weight: str | int | None = None, source: str = "the data",
                budget: WorkBudget = DEFAULT_BUDGET, risk: str | None = None, utility: str | None = None,
                options: dict | None = None) -> RUMap:
    """The R-U map of global recoding of a numeric key into bands, over the band width.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
        The key variables (including ``variable``).
    variable : str or int
        The numeric key that is banded.
    widths : array_like
        Band widths (> 0).
    weight : str or int, optional
    source : str
    budget : WorkBudget
    risk : str, optional
        R from :data:`CATEGORICAL_RISKS` (default ``global_risk``); ``linkage``
        takes the intruder to know the published bands.
    utility : str, optional
        U from :data:`CATEGORICAL_UTILITIES` (default ``variance``).
    options : dict, optional
        The measures' options.

    Returns
    -------
    RUMap
        Parameter ``band_width``; by default R the global risk, U = 1 - SSE/SST
        of the variable replaced by its band means.

    Examples
    --------
    >>> from rumap.maps.categorical import _example, banding_map
    >>> m = banding_map(**_example(), variable="age", widths=[1, 10, 40])
    >>> bool(m.utility[0] == 1.0), bool(m.risk[-1] <= m.risk[0])
    (True, True)
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    (name,) = select_columns(frame, [variable], source, what="banded")
    if name not in names:
        raise InputError(f"the banded variable {name!r} must be one of the keys ({', '.join(names)})")
    values = np.asarray(widths, dtype=float)
    budget.check_grid(values.size, "band_width")
    r_measure, u_measure = _measures(risk, utility, "global_risk", "variance")
    settings = {"weight": weight, "options": _measure_options(options, name), "source": source, "budget": budget}
    risk_values, utility_values = np.empty(values.size), np.empty(values.size)
    for i, width in enumerate(values):
        banded = band(frame, name, float(width), source=source)
        risk_values[i] = r_measure.compute(banded, banded, names, **settings)  # the intruder knows the bands
        utility_values[i] = u_measure.compute(frame, banded, names, **settings)
    u_label = f"U = share of the variance of {name} kept" if u_measure.compute is \
        CATEGORICAL_UTILITIES["variance"].compute else u_measure.label
    return RUMap(parameter="band_width", values=values, risk=risk_values, utility=utility_values,
                 risk_label=r_measure.label, utility_label=u_label, method="global recoding",
                 knowledge="key", target=" x ".join(names),
                 config={"keys": names, "variable": name, "source": source, "risk": risk or "global_risk",
                         "utility": utility or "variance"})


@validate_params({"thetas": Grid("theta"), "replicates": "replicates", "seed": SEED, **_MEASURE_CONSTRAINTS,
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {**_example(), "keys": ["sex", "region"], "thetas": [0.5, 1.0], "replicates": 3})
def pram_map(data: Any, keys: Sequence[str | int], thetas: ArrayLike, replicates: int = 50, seed: int = 0,
             source: str = "the data", budget: WorkBudget = DEFAULT_BUDGET, risk: str | None = None,
             utility: str | None = None, options: dict | None = None, weight: str | int | None = None) -> RUMap:
    """The simulated R-U map of invariant PRAM over the retention probability theta.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
    thetas : array_like
        Retention probabilities in [0, 1].
    replicates : int, default 50
        PRAM runs per theta (their standard errors give the bands).
    seed : int
        The same seed gives the same map.
    source : str
    budget : WorkBudget
        Records x replicates x values, checked first.
    risk : str, optional
        R from :data:`CATEGORICAL_RISKS` (default ``key_matching``,
        :func:`pram_reidentification`; ``linkage`` equals it on files without
        missing key values).
    utility : str, optional
        U from :data:`CATEGORICAL_UTILITIES` (default ``hellinger``, :func:`hellinger_utility`).
    options : dict, optional
        The measures' options.
    weight : str or int, optional
        Sampling weights for the individual-risk measures.

    Returns
    -------
    RUMap
        Parameter ``theta``; R and U each the mean over replicates with its
        standard error.

    Examples
    --------
    >>> from rumap.maps.categorical import _example, pram_map
    >>> m = pram_map(**_example(), thetas=[0.2, 1.0], replicates=5, seed=1)
    >>> bool(m.risk[0] < m.risk[1]), float(m.utility[1])
    (True, 1.0)
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    values = np.asarray(thetas, dtype=float)
    budget.check_grid(values.size, "theta")
    budget.check_work(float(frame.shape[0]) * len(names) * replicates * values.size,
                      f"{frame.shape[0]} records x {len(names)} keys x {replicates} replicates x {values.size} values")
    r_measure, u_measure = _measures(risk, utility, "key_matching", "hellinger")
    settings = {"weight": weight, "options": _measure_options(options), "source": source, "budget": budget}
    risk_mean, utility_mean, risk_se, utility_se = replicated_measures(
        frame, names, values, replicates, seed,
        lambda theta, rng: pram(frame, names, theta, seed=rng, source=source).data, r_measure, u_measure, settings)
    return RUMap(parameter="theta", values=values, risk=risk_mean, utility=utility_mean, risk_se=risk_se,
                 utility_se=utility_se, risk_label=r_measure.label,
                 utility_label=u_measure.label, method="pram", knowledge="key", target=" x ".join(names),
                 config={"keys": names, "replicates": replicates, "seed": seed, "source": source,
                         "risk": risk or "key_matching", "utility": utility or "hellinger"})


