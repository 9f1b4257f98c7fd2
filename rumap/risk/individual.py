"""Per-record risk on categorical key variables, as mu-Argus and sdcMicro compute it.

For each record the intruder's key (age band, sex, region, ...) defines a
*key value*; its sample frequency ``f_k`` counts the records sharing it and its
estimated population frequency ``F_k`` sums their sampling weights. The
individual risk is the posterior probability that a match on the key is a
correct re-identification (Benedetti & Franconi 1998; Franconi & Polettini
2004): ``F_k`` given ``f_k`` is negative binomial with success probability
``p_k = f_k / F_k``, and the mu-Argus approximation of ``E(1 / F_k | f_k)`` is

- ``f_k = 1``: ``p / (1 - p) * log(1 / p)``
- ``f_k = 2``: ``p / (1 - p) - (p / (1 - p))^2 * log(1 / p)``
- ``f_k > 2``: ``p / (f_k - (1 - p))``

and ``1 / f_k`` where ``F_k = f_k`` (the key's whole population is in the
file) or without weights (the census case). The expected number of
re-identifications is the sum of the risks, the global risk their mean.
Household risk is ``1 - prod(1 - r_i)`` over a household's members, for each of
them. A missing key value matches any category (as in sdcMicro's
``freqCalc``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, NumberArray, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.risk.cells import cell_frequencies, key_codes, missing_patterns, wildcard_frequencies, wildcard_matches
from rumap.risk.paired import as_frame, select_columns

__all__ = ["IndividualRisk", "individual_risk", "key_frequencies_with_missing", "negative_binomial_risk",
           "l_diversity", "MAX_POPULATION", "sampling_weights"]

#: The cost of one pair of missing-value patterns in the frequency count, in the budget's steps (a few array calls).
PATTERN_STEPS = 1_000
#: Largest population the sampling weights may add up to (a thousand times the world's people).
MAX_POPULATION = 1e13


def _example() -> dict[str, Any]:
    frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", None],
                          "w": [10.0, 20.0, 5.0, 8.0, 12.0, 3.0], "hh": [1, 1, 2, 3, 3, 4]})
    return {"data": frame, "keys": ["sex", "region"], "weight": "w"}


@dataclass(frozen=True)
class IndividualRisk:
    """Per-record re-identification risk on categorical keys, with its totals.

    Attributes
    ----------
    keys : tuple of str
        The key variables.
    fk : ndarray of int, shape (n,)
        Sample frequency of each record's key value.
    Fk : ndarray, shape (n,)
        Estimated population frequency (sum of the weights sharing the key);
        equal to ``fk`` without weights.
    risk : ndarray, shape (n,)
        Individual risk of each record, in file order.
    expected_reidentifications : float
        ``sum(risk)``.
    global_risk : float
        ``mean(risk)``.
    weighted : bool
        Whether sampling weights were given.
    household_risk : ndarray or None
        ``1 - prod(1 - risk)`` over each record's household.
    household_expected_reidentifications : float or None
        ``sum(household_risk)``.
    k : int or None
        The k of k-anonymity checked, if any.
    k_anonymity_violations : int or None
        Records with ``fk < k``.
    """

    keys: tuple[str, ...]
    fk: np.ndarray = field(repr=False)
    Fk: np.ndarray = field(repr=False)
    risk: np.ndarray = field(repr=False)
    expected_reidentifications: float
    global_risk: float
    weighted: bool
    household_risk: np.ndarray | None = field(default=None, repr=False)
    household_expected_reidentifications: float | None = None
    k: int | None = None
    k_anonymity_violations: int | None = None

    @property
    def n(self) -> int:
        return int(self.risk.size)

    def to_frame(self) -> pd.DataFrame:
        """One row per record: ``fk``, ``Fk``, ``risk`` (and ``household_risk``)."""
        frame = pd.DataFrame({"fk": self.fk, "Fk": self.Fk, "risk": self.risk})
        if self.household_risk is not None:
            frame["household_risk"] = self.household_risk
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data: per-record lists in file order and the totals (``risk individual --json``)."""
        out: dict[str, Any] = {
            "n": self.n, "keys": list(self.keys), "risk": self.risk.tolist(), "fk": self.fk.tolist(),
            "Fk": self.Fk.tolist(), "expected_reidentifications": self.expected_reidentifications,
            "global_risk": self.global_risk,
        }
        if self.household_risk is not None:
            out["household_risk"] = self.household_risk.tolist()
            out["household_expected_reidentifications"] = self.household_expected_reidentifications
        if self.k is not None:
            out["k"] = self.k
            out["k_anonymity_violations"] = self.k_anonymity_violations
        return out


@validate_params({"fk": "k", "p": "f"},
                 example=lambda: {"fk": 1, "p": 0.1})
def negative_binomial_risk(fk: int, p: float) -> float:
    """The mu-Argus individual risk of a key with sample frequency ``fk`` and ``p = fk / Fk``.

    Parameters
    ----------
    fk : int
        Sample frequency of the key value (>= 1).
    p : float
        ``f_k / F_k`` in (0, 1]; 1 when the key's population is all in the sample.

    Returns
    -------
    float
        The approximation of ``E(1 / F_k | f_k)`` of the module's docstring
        (``1 / fk`` when ``p = 1``).

    References
    ----------
    Benedetti & Franconi (1998); Franconi & Polettini (2004), *Individual risk
    estimation in mu-Argus: a review*; as in sdcMicro's ``indivRisk``
    (method "approx") and ``measure_risk``.

    Examples
    --------
    >>> round(negative_binomial_risk(1, 0.1), 6)
    0.255843
    >>> negative_binomial_risk(3, 1.0)
    0.3333333333333333
    """
    return float(individual_risk_kernel(np.array([fk]), np.array([fk / p]))[0])


def individual_risk_kernel(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """Individual risk per record for frequencies ``fk`` >= 1 and ``Fk`` >= ``fk`` (valid input)."""
    fk = fk.astype(float)
    p = np.clip(fk / Fk, 1e-300, 1.0)
    risk = np.empty_like(p)
    whole = p >= 1.0  # the key's population is in the file: F_k = f_k
    q = np.where(whole, 0.5, p)  # placeholder where the formulas are not used, to keep them finite
    odds = q / (1.0 - q)
    one, two = fk == 1, fk == 2
    risk[one] = (odds * np.log(1.0 / q))[one]
    risk[two] = (odds - odds**2 * np.log(1.0 / q))[two]
    many = ~one & ~two
    risk[many] = (q / (fk - (1.0 - q)))[many]
    risk[whole] = 1.0 / fk[whole]
    return risk


@validate_params({"weights": [None, NumberArray(PARAMETERS["sampling_weight"], (1,))],
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"data": _example()["data"], "keys": ["sex", "region"]})
def key_frequencies_with_missing(data: Any, keys: Sequence[str | int], weights: np.ndarray | None = None,
                                 source: str = "the data", budget: WorkBudget = DEFAULT_BUDGET
                                 ) -> tuple[np.ndarray, np.ndarray]:
    """Sample frequency ``f_k`` and weighted frequency ``F_k`` of every record's key value.

    A missing key value matches any category: two records share a key value
    when they agree on every key variable that both have.

    Parameters
    ----------
    data : DataFrame or array_like
        The file.
    keys : sequence of str or int
        The key variables (names or positions).
    weights : ndarray, shape (n,), optional
        Sampling weights (default 1 each).
    source : str
        The file's name, for messages.
    budget : WorkBudget
        Records with missing key values are compared with every record
        (missing records x records x keys steps), checked first.

    Returns
    -------
    fk : ndarray of int, shape (n,)
    Fk : ndarray, shape (n,)

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m", None], "region": ["a", "b", "a", "a"]})
    >>> fk, Fk = key_frequencies_with_missing(frame, ["sex", "region"])
    >>> fk.tolist()
    [2, 1, 2, 3]
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    n = frame.shape[0]
    if weights is not None and len(weights) != n:
        raise InputError(f"weights has {len(weights)} entries but {source} has {n} records")
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    codes = key_codes(frame, names, source)
    patterns = missing_patterns(codes)[0].shape[0]
    budget.check_work(float(patterns) * (n * len(names) + patterns * PATTERN_STEPS),
                      f"{int((codes < 0).any(axis=1).sum())} records with missing key values in {patterns} patterns "
                      f"x {n} records x {len(names)} keys")
    fk, Fk = wildcard_frequencies(codes, w)
    return fk, Fk


@validate_params({"weight": [None, InstanceOf(str, "a column name")],
                  "household": [None, InstanceOf(str, "a column name")], "k": [None, "k"],
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_example)
def individual_risk(data: Any, keys: Sequence[str | int], weight: str | None = None,
                    household: str | None = None, k: int | None = None, source: str = "the data",
                    budget: WorkBudget = DEFAULT_BUDGET) -> IndividualRisk:
    """Individual, global and household re-identification risk on categorical key variables.

    Parameters
    ----------
    data : DataFrame or array_like
        The microdata file (one record per row).
    keys : sequence of str or int
        The intruder's key variables.
    weight : str, optional
        Column of sampling weights (each >= 1, the number of population units a
        record stands for). Without it the file is the population (census):
        the risk is ``1 / f_k``.
    household : str, optional
        Column identifying households: adds each record's household risk.
    k : int, optional
        Count the records violating k-anonymity (``f_k < k``).
    source : str
        The file's name, for messages.
    budget : WorkBudget
        Limits the work (see :func:`key_frequencies_with_missing`).

    Returns
    -------
    IndividualRisk

    References
    ----------
    Benedetti & Franconi (1998); Franconi & Polettini (2004); mu-Argus manual
    (seed 004, "Individual risk"); sdcMicro's ``measure_risk`` (Templ, Kowarik
    & Meindl 2015).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m"], "region": ["a", "a", "a", "b", "b"]})
    >>> result = individual_risk(frame, ["sex", "region"], k=2)
    >>> result.risk.tolist(), result.expected_reidentifications, result.k_anonymity_violations
    ([0.5, 0.5, 1.0, 0.5, 0.5], 3.0, 1)
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    n = frame.shape[0]
    if n < 1:
        raise InputError(f"{source} has no records")
    weights = None if weight is None else sampling_weights(frame, weight, names, source)
    fk, Fk = key_frequencies_with_missing(frame, names, weights, source, budget)
    risk = 1.0 / fk if weights is None else individual_risk_kernel(fk, np.maximum(Fk, fk))
    household_risk = household_er = None
    if household is not None:
        (household_name,) = select_columns(frame, [household], source, what="household")
        ids = frame[household_name]
        if ids.isna().any():
            row = int(np.argmax(ids.isna().to_numpy()))
            raise InputError(f"{source}: household {household_name!r} is missing in row {row + 1}")
        group = key_codes(frame, [household_name], source)[:, 0]
        log_safe = np.bincount(group, weights=np.log1p(-np.minimum(risk, 1.0 - 1e-16)))
        household_risk = -np.expm1(log_safe)[group]
        certain = np.bincount(group, weights=(risk >= 1.0).astype(float)) > 0  # a member surely identified
        household_risk[certain[group]] = 1.0
        household_er = float(household_risk.sum())
    violations = None if k is None else int((fk < k).sum())
    return IndividualRisk(keys=tuple(names), fk=fk, Fk=Fk if weights is not None else fk.astype(float),
                          risk=risk, expected_reidentifications=float(risk.sum()), global_risk=float(risk.mean()),
                          weighted=weights is not None, household_risk=household_risk,
                          household_expected_reidentifications=household_er, k=k, k_anonymity_violations=violations)


@validate_params({"sensitive": InstanceOf(str, "a column name"), "source": InstanceOf(str, "a name for messages"),
                  "budget": InstanceOf(WorkBudget)},
                 example=lambda: {"data": _example()["data"], "keys": ["sex"], "sensitive": "region"})
def l_diversity(data: Any, keys: Sequence[str | int], sensitive: str, source: str = "the data",
                budget: WorkBudget = DEFAULT_BUDGET) -> np.ndarray:
    """Distinct l-diversity: how many values of a sensitive variable each record's key group holds.

    A record whose key group shows a single value of the sensitive variable
    discloses it to whoever knows the key (l = 1), however large the group.
    Key groups are those of :func:`key_frequencies_with_missing` (a missing key
    value matches any category); missing sensitive values are not counted.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
    sensitive : str
        The sensitive variable (not a key).
    source : str
    budget : WorkBudget

    Returns
    -------
    ndarray of int, shape (n,)

    References
    ----------
    Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam (2007), l-Diversity:
    privacy beyond k-anonymity; sdcMicro's ``ldiversity`` (distinct).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m", "m"], "health": ["good", "poor", "poor", "poor"]})
    >>> l_diversity(frame, ["sex"], "health").tolist()
    [2, 2, 1, 1]
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    (column,) = select_columns(frame, [sensitive], source, what="sensitive")
    if column in names:
        raise InputError(f"{source}: the sensitive variable {column!r} is also a key")
    values = key_codes(frame, [column], source)[:, 0]
    codes = key_codes(frame, names, source)
    group, _frequency, complete = cell_frequencies(codes, range(len(names)))
    incomplete = np.flatnonzero(~complete)
    sets: list[set] = []
    if complete.any():
        sets = [set() for _ in range(int(group.max()) + 1)]
        for g, v in zip(group[complete], values[complete], strict=True):
            if v >= 0:
                sets[g].add(v)
    out = np.zeros(frame.shape[0], dtype=np.int64)
    if incomplete.size:
        budget.check_work(float(incomplete.size) * frame.shape[0] * len(names),
                          f"{incomplete.size} records with missing key values x {frame.shape[0]} records")
        extra: list[set] = [set() for _ in sets]
        for j in incomplete:
            agree = wildcard_matches(codes, j)
            seen = values[agree]
            out[j] = np.unique(seen[seen >= 0]).size
            if values[j] >= 0:
                for g in np.unique(group[agree & complete]):
                    extra[g].add(values[j])
        sets = [a | b for a, b in zip(sets, extra, strict=True)]
    sizes = np.array([len(s) for s in sets], dtype=np.int64)
    out[complete] = sizes[group[complete]]
    return out


@assumes_valid
def sampling_weights(frame: pd.DataFrame, weight: str | int, keys: Sequence[str], source: str) -> np.ndarray:
    """Column ``weight`` of ``frame`` as sampling weights: each a number >= 1, their total a population size.

    Refuses a weight column that is a key, a record whose weight is missing,
    text, infinite or below 1 (naming the first such row), and weights whose
    total passes :data:`MAX_POPULATION`, before any arithmetic with them.

    Parameters
    ----------
    frame : DataFrame
    weight : str or int
        The weight column.
    keys : sequence of str
        The key variables (the weight must not be one).
    source : str
        Names the data in messages.

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> import pandas as pd
    >>> sampling_weights(pd.DataFrame({"sex": ["f", "m"], "w": [10, 2.5]}), "w", ["sex"], "the data").tolist()
    [10.0, 2.5]
    """
    (weight_name,) = select_columns(frame, [weight], source, what="weight")
    if weight_name in keys:
        raise InputError(f"{source}: the weight column {weight_name!r} is also a key")
    weights = pd.to_numeric(frame[weight_name], errors="coerce").to_numpy(dtype=float)
    entry = PARAMETERS["sampling_weight"]
    bad = ~np.isfinite(weights) | (weights < entry.low)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"{source}: weight {weight_name!r} must be {entry.describe()} in every record, "
                         f"got {frame[weight_name].iloc[row]} in row {row + 1}")
    with np.errstate(over="ignore"):
        population = float(np.sum(weights))
    if not population <= MAX_POPULATION:
        raise InputError(f"{source}: the weights {weight_name!r} sum to {population:.3g} population units, "
                         f"more than {MAX_POPULATION:.0e}: sampling weights count people or units, "
                         "so this column is not a weight")
    return weights
