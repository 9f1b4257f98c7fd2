"""R and U of categorical protection: the measures an R-U map of suppression, recoding or PRAM can draw.

Each measure compares the original file with its released version (same
records, same order) on the key variables:

Risks (:data:`CATEGORICAL_RISKS`)

- ``global_risk``, ``expected_reidentifications``: the mean and the sum of the
  individual risks of the released file (mu-Argus / sdcMicro, see
  :mod:`rumap.risk.individual`).
- ``share_above``: the share of released records whose individual risk exceeds
  a threshold.
- ``k_violations``: the share of released records in key values met fewer than
  ``k`` times.
- ``linkage``: record linkage to the original (:func:`linkage_reidentification`).
- ``key_matching``: the same without suppression, missing values a category of
  their own (:func:`pram_reidentification`, PRAM's default).
- ``unit_cells``: the share of released records alone in a cell of some table
  of 2 or 3 key variables (:func:`rumap.tables.granularity.granularity_analysis`).

Utilities (:data:`CATEGORICAL_UTILITIES`)

- ``kept``: one minus the share of key values suppressed.
- ``entropy``: one minus mu-Argus's entropy-based information loss relative to
  its largest value (:func:`entropy_information_loss`).
- ``hellinger``: one minus the Hellinger distance between the key tables.
- ``cramers_v``: ``1 - |V(original) - V(released)|`` for Cramer's V of a pair of
  variables the user picks.
- ``regression``: ``1 - |R2(original) - R2(released)|`` for the regression of a
  numeric response on the key variables (as categories).
- ``variance``: the share of a numeric key's variance its released categories
  keep (``1 - SSE / SST``), for recoding into bands.
- ``categories``: the mean over keys of the share of each key's categories the
  released file keeps (merged categories count once, missing values not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, assumes_valid, check_scalar, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.risk.cells import cell_frequencies, key_codes
from rumap.risk.individual import individual_risk
from rumap.risk.paired import as_frame, select_columns

__all__ = ["entropy_information_loss", "entropy_utility", "linkage_reidentification", "cramers_v",
           "regression_r2", "hellinger_utility", "pram_reidentification", "CategoricalMeasure", "CATEGORICAL_RISKS",
           "CATEGORICAL_UTILITIES"]


def _pair_example() -> dict[str, Any]:
    original = pd.DataFrame({"k": ["a", "a", "b", "c"], "s": ["x", "x", "y", "y"], "y": [1.0, 2.0, 5.0, 7.0]})
    released = original.assign(k=["a", "a", "bc", "bc"])
    return {"original": original, "released": released, "keys": ["k"]}


def _same_records(first: pd.DataFrame, second: pd.DataFrame) -> None:
    if first.shape[0] != second.shape[0]:
        raise InputError("the original and released files must have the same records")


@validate_params({"source": InstanceOf(str, "a name for messages")}, example=_pair_example)
def entropy_information_loss(original: Any, released: Any, keys: Sequence[str | int],
                             source: str = "the data") -> tuple[float, float]:
    """mu-Argus's entropy-based information loss of recoding, suppression or PRAM, and its largest value.

    A user of the released file who sees category ``y`` of a variable knows
    the original category ``x`` only up to ``P(x | y)``; the loss of the value
    is ``-log2 P(x | y)`` bits, estimated from the file: ``n_xy / n_y`` (with a
    recoding, ``f_x / f_c``, the share of the original category in its merged
    class) and, for a suppressed value, ``f_x / n`` (a missing value says
    nothing: the whole file's distribution). The file's loss sums over records
    and key variables; it is largest, ``sum n H(X)``, when every value is
    suppressed.

    Parameters
    ----------
    original, released : DataFrame
        The same records before and after protection.
    keys : sequence of str or int
        The key variables.
    source : str

    Returns
    -------
    loss : float
        Bits lost, summed over records and key variables.
    largest : float
        The loss if every key value were suppressed.

    References
    ----------
    De Waal & Willenborg (1998), Information loss through global recoding and
    local suppression; Willenborg & de Waal (2001), Elements of Statistical
    Disclosure Control, the entropy measure of mu-Argus. Seed 004 (Mas) names
    mu-Argus's information loss of suppression and recoding without its formula.

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"k": ["a", "a", "b", "c"]})
    >>> entropy_information_loss(original, pd.DataFrame({"k": ["a", "a", "bc", "bc"]}), ["k"])
    (2.0, 6.0)
    """
    first, second = as_frame(original, source), as_frame(released, source)
    names = select_columns(first, keys, source, what="key")
    select_columns(second, names, source, what="key")
    _same_records(first, second)
    loss = largest = 0.0
    for name in names:
        x = pd.factorize(first[name], use_na_sentinel=True)[0]
        y = pd.factorize(second[name], use_na_sentinel=True)[0]
        known = x >= 0
        if not known.any():
            continue
        fx = np.bincount(x[known])
        marginal = -np.log2(fx[x[known]] / known.sum())
        largest += float(marginal.sum())
        suppressed = known & (y < 0)
        loss += float(marginal[suppressed[known]].sum())
        shown = known & (y >= 0)
        if shown.any():
            joint = x[shown] * (int(y.max()) + 1) + y[shown]
            _u, inverse, counts = np.unique(joint, return_inverse=True, return_counts=True)
            ny = np.bincount(y[shown])
            loss += float(-np.log2(counts[inverse] / ny[y[shown]]).sum())
    return float(loss), float(largest)


@validate_params({"source": InstanceOf(str, "a name for messages")}, example=_pair_example)
def entropy_utility(original: Any, released: Any, keys: Sequence[str | int], source: str = "the data") -> float:
    """``1 - L / L_max``: one minus the entropy-based information loss relative to suppressing every value.

    Parameters
    ----------
    original, released : DataFrame
    keys : sequence of str or int
    source : str

    Returns
    -------
    float
        1 for an unchanged file, 0 when every key value is suppressed.

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"k": ["a", "a", "b", "c"]})
    >>> round(entropy_utility(original, pd.DataFrame({"k": ["a", "a", "bc", "bc"]}), ["k"]), 4)
    0.6667
    """
    loss, largest = entropy_information_loss(original, released, keys, source)
    return 1.0 if largest <= 0 else float(max(0.0, 1.0 - loss / largest))


@validate_params({"source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=_pair_example)
def linkage_reidentification(original: Any, released: Any, keys: Sequence[str | int], source: str = "the data",
                             budget: WorkBudget = DEFAULT_BUDGET) -> float:
    """Record linkage to the original: the expected share of records an intruder links to their own release.

    The intruder knows each target's key as the release codes it (the original
    file, recoded as published), lists the released records compatible with it
    (equal on every key variable the released record shows: a suppressed value
    matches anything) and picks one at random. The target is found with
    probability ``[own release compatible] / (compatible releases)``.

    Parameters
    ----------
    original, released : DataFrame
        The intruder's keys and the released file (same records, same order).
    keys : sequence of str or int
    source : str
    budget : WorkBudget
        Released missing-value patterns x records, checked first.

    Returns
    -------
    float
        The mean over records; with no suppressed value, ``mean [released_i =
        original_i] / f(released_i)``.

    Examples
    --------
    >>> import pandas as pd
    >>> original = pd.DataFrame({"k": ["x", "x", "y"], "j": [1, 2, 2]})
    >>> released = pd.DataFrame({"k": ["x", "x", "y"], "j": [1, None, 2]})
    >>> round(linkage_reidentification(original, released, ["k", "j"]), 4)
    0.8333
    """
    first, second = as_frame(original, source), as_frame(released, source)
    names = select_columns(first, keys, source, what="key")
    select_columns(second, names, source, what="key")
    _same_records(first, second)
    n = first.shape[0]
    both = pd.concat([first[names].astype(object), second[names].astype(object)], ignore_index=True)
    codes = key_codes(both, names)
    known_codes, released_codes = codes[:n], codes[n:]
    shown = released_codes >= 0
    patterns, which = np.unique(shown, axis=0, return_inverse=True)
    budget.check_work(float(patterns.shape[0]) * n * len(names),
                      f"{patterns.shape[0]} patterns of suppressed values x {n} records")
    compatible = np.zeros(n)
    for index, pattern in enumerate(patterns):
        columns = np.flatnonzero(pattern)
        members = np.flatnonzero(which.reshape(-1) == index)
        if columns.size == 0:
            compatible += members.size
            continue
        # count the pattern's releases per value of its shown columns, then look up each target's value
        stacked = np.vstack([released_codes[members][:, columns], known_codes[:, columns]])
        usable = (stacked >= 0).all(axis=1)
        group, _frequency, _known = cell_frequencies(np.where(stacked < 0, 0, stacked), range(columns.size))
        per_group = np.bincount(group[:members.size], minlength=int(group.max()) + 1)
        targets = group[members.size:]
        counts = per_group[targets].astype(float)
        unknown = ~usable[members.size:]  # a target's missing value: it matches the pattern's releases loosely
        if unknown.any():
            for i in np.flatnonzero(unknown):
                known_i = known_codes[i, columns]
                rows = released_codes[members][:, columns]
                counts[i] = float(((rows == known_i) | (known_i < 0)).all(axis=1).sum())
        compatible += counts
    own = ((known_codes == released_codes) | ~shown | (known_codes < 0)).all(axis=1)
    return float(np.mean(np.where(own, 1.0 / np.maximum(compatible, 1.0), 0.0)))


@validate_params({"source": InstanceOf(str, "a name for messages")},
                 example=_pair_example)
def hellinger_utility(original: Any, released: Any, keys: Sequence[str | int], source: str = "the data") -> float:
    """``1 - H``: one minus the Hellinger distance between the two files' tables of the key combination.

    Parameters
    ----------
    original, released : DataFrame
        The same records before and after protection.
    keys : sequence of str or int
    source : str

    Returns
    -------
    float
        1 for identical tables, 0 for tables with no cell in common.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"k": ["x", "x", "y", "y"]})
    >>> hellinger_utility(a, a, ["k"]), round(hellinger_utility(a, pd.DataFrame({"k": ["x"] * 4}), ["k"]), 4)
    (1.0, 0.4588)
    """
    first, second = as_frame(original, source), as_frame(released, source)
    names = select_columns(first, keys, source, what="key")
    p = first[names].astype(str).value_counts(normalize=True)
    q = second[names].astype(str).value_counts(normalize=True)
    p, q = p.align(q, fill_value=0.0)
    distance = np.sqrt(0.5 * float(((np.sqrt(p.to_numpy()) - np.sqrt(q.to_numpy())) ** 2).sum()))
    return float(1.0 - distance)


@validate_params({"source": InstanceOf(str, "a name for messages")},
                 example=_pair_example)
def pram_reidentification(original: Any, released: Any, keys: Sequence[str | int], source: str = "the data") -> float:
    """Expected share of records re-identified by matching true keys to the released file.

    The intruder knows a target's true key, finds the released records with
    that key and picks one at random: the target is found with probability
    ``1 / f_k(released)`` if its own released key is unchanged, else never.

    Parameters
    ----------
    original, released : DataFrame
        The same records before and after protection (same order).
    keys : sequence of str or int
    source : str

    Returns
    -------
    float
        ``mean_i [released_i = original_i] / f(released_i)``.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"k": ["x", "x", "y"]})
    >>> pram_reidentification(a, a, ["k"])
    0.6666666666666666
    """
    first, second = as_frame(original, source), as_frame(released, source)
    names = select_columns(first, keys, source, what="key")
    if first.shape[0] != second.shape[0]:
        raise InputError("the original and released files must have the same records")
    a, b = first[names].astype(str).to_numpy(), second[names].astype(str).to_numpy()
    same = (a == b).all(axis=1)
    released = pd.DataFrame(b).fillna("\x00missing")  # a missing value: a category of its own
    _group, frequency, _known = cell_frequencies(key_codes(released, range(b.shape[1])), range(b.shape[1]))
    return float(np.mean(same / frequency))


@validate_params({"source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": _pair_example()["original"], "first": "k", "second": "s"})
def cramers_v(data: Any, first: str | int, second: str | int, source: str = "the data") -> float:
    """Cramer's V of two categorical variables: ``sqrt(chi2 / (n (min(r, c) - 1)))``.

    Records missing either value are left out; V is 0 when a variable shows one category.

    Parameters
    ----------
    data : DataFrame
    first, second : str or int
        The pair of variables.
    source : str

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    Cramer (1946), Mathematical Methods of Statistics, section 21.9.

    Examples
    --------
    >>> import pandas as pd
    >>> cramers_v(pd.DataFrame({"a": list("xxyy"), "b": list("ppqq")}), "a", "b")
    1.0
    """
    frame = as_frame(data, source)
    a, b = select_columns(frame, [first, second], source, what="paired")
    pair = frame[[a, b]].dropna()
    if pair.empty:
        return 0.0
    table = pd.crosstab(pair[a], pair[b]).to_numpy(dtype=float)
    smaller = min(table.shape) - 1
    if smaller < 1:
        return 0.0
    n = table.sum()
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return float(min(1.0, np.sqrt(chi2 / (n * smaller))))


@validate_params({"source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": _pair_example()["original"], "response": "y", "keys": ["k"]})
def regression_r2(data: Any, response: str | int, keys: Sequence[str | int], source: str = "the data") -> float:
    """R2 of the least-squares regression of a numeric response on the key variables as categories.

    Each key enters as indicator variables of its categories (a missing value
    is a category of its own), with an intercept.

    Parameters
    ----------
    data : DataFrame
    response : str or int
        The numeric response (not a key).
    keys : sequence of str or int
    source : str

    Returns
    -------
    float
        ``1 - SSE / SST`` (1 when the response is constant).

    Examples
    --------
    >>> import pandas as pd
    >>> regression_r2(pd.DataFrame({"y": [1.0, 1.0, 3.0, 3.0], "k": list("aabb")}), "y", ["k"])
    1.0
    """
    frame = as_frame(data, source)
    names = select_columns(frame, keys, source, what="key")
    (column,) = select_columns(frame, [response], source, what="response")
    if column in names:
        raise InputError(f"{source}: the response {column!r} is also a key")
    y = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(y).all():
        raise InputError(f"{source}: the response {column!r} must be a number in every record")
    parts = [np.ones((y.size, 1))]
    for name in names:
        codes = pd.factorize(frame[name].astype(object).where(frame[name].notna(), "\x00missing"))[0]
        parts.append(np.eye(int(codes.max()) + 1)[codes][:, 1:])
    design = np.hstack(parts)
    sst = float(((y - y.mean()) ** 2).sum())
    if sst <= 0:
        return 1.0
    coefficients, *_ = np.linalg.lstsq(design, y, rcond=None)
    sse = float(((y - design @ coefficients) ** 2).sum())
    return float(min(1.0, max(0.0, 1.0 - sse / sst)))


@dataclass(frozen=True)
class CategoricalMeasure:
    """A risk or utility of categorical protection, as a map draws it.

    Parameters
    ----------
    label : str
        The axis label.
    compute : callable
        ``compute(original, released, keys, *, weight, options, source, budget) -> float``.
    options : tuple of str
        The options it reads (``threshold``, ``k``, ``pair``, ``response``, ``variable``).
    """

    label: str
    compute: Callable[..., float]
    options: tuple[str, ...] = ()


def _option(options: dict, name: str, measure: str) -> Any:
    if options.get(name) is None:
        raise InputError(f"the measure {measure!r} needs the option {name!r}")
    return options[name]


def _risk_of(field: str) -> Callable[..., float]:
    def compute(original, released, keys, *, weight, options, source, budget) -> float:
        return float(getattr(individual_risk(released, keys, weight=weight, source=source, budget=budget), field))
    return compute


def _share_above(original, released, keys, *, weight, options, source, budget) -> float:
    threshold = check_scalar("threshold", _option(options, "threshold", "share_above"), PARAMETERS["risk_bound"])
    return float((individual_risk(released, keys, weight=weight, source=source, budget=budget).risk > threshold)
                 .mean())


def _k_violations(original, released, keys, *, weight, options, source, budget) -> float:
    k = check_scalar("k", _option(options, "k", "k_violations"))
    return float((individual_risk(released, keys, source=source, budget=budget).fk < k).mean())


def _linkage(original, released, keys, *, weight, options, source, budget) -> float:
    return linkage_reidentification(original, released, keys, source=source, budget=budget)


def _key_matching(original, released, keys, *, weight, options, source, budget) -> float:
    return pram_reidentification(original, released, keys, source=source)


def _unit_cells(original, released, keys, *, weight, options, source, budget) -> float:
    names = list(keys)
    if len(names) < 2:
        raise InputError(f"the risk 'unit_cells' counts tables of 2 and 3 keys: give at least 2, got {len(names)}")
    codes = key_codes(released, names, source)
    alone = np.zeros(released.shape[0], dtype=bool)
    for size in (2, 3):
        for columns in combinations(range(len(names)), size):
            _group, frequency, known = cell_frequencies(codes, columns)
            alone |= known & (frequency == 1)
    return float(alone.mean()) if alone.size else 0.0


def _categories_kept(original, released, keys, *, weight, options, source, budget) -> float:
    shares = [released[k].nunique() / max(1, original[k].nunique()) for k in keys]
    return float(np.mean(shares)) if shares else 1.0


def _kept(original, released, keys, *, weight, options, source, budget) -> float:
    before = original[list(keys)].notna().to_numpy()
    after = released[list(keys)].notna().to_numpy()
    return 1.0 - float((before & ~after).sum()) / max(1, before.size)


def _entropy(original, released, keys, *, weight, options, source, budget) -> float:
    return entropy_utility(original, released, keys, source=source)


def _hellinger(original, released, keys, *, weight, options, source, budget) -> float:
    return hellinger_utility(original, released, keys, source=source)


def _cramers(original, released, keys, *, weight, options, source, budget) -> float:
    pair = _option(options, "pair", "cramers_v")
    if len(pair) != 2:
        raise InputError(f"cramers_v needs a pair of variables, got {', '.join(map(str, pair))}")
    return 1.0 - abs(cramers_v(original, pair[0], pair[1], source) - cramers_v(released, pair[0], pair[1], source))


def _regression(original, released, keys, *, weight, options, source, budget) -> float:
    response = _option(options, "response", "regression")
    return 1.0 - abs(regression_r2(original, response, keys, source) - regression_r2(released, response, keys, source))


def _variance(original, released, keys, *, weight, options, source, budget) -> float:
    name = _option(options, "variable", "variance")
    x = pd.to_numeric(original[name], errors="coerce")
    sst = float(((x - x.mean()) ** 2).sum())
    if sst <= 0:
        return 1.0
    means = x.groupby(released[name].to_numpy(), dropna=False).transform("mean")
    return 1.0 - float(((x - means) ** 2).sum()) / sst


#: Risks R of categorical protection by name (``simulate --risk NAME``).
CATEGORICAL_RISKS: dict[str, CategoricalMeasure] = {
    "global_risk": CategoricalMeasure("R = global risk (mean individual risk)", _risk_of("global_risk")),
    "expected_reidentifications": CategoricalMeasure("R = expected re-identifications (sum of individual risks)",
                                                     _risk_of("expected_reidentifications")),
    "share_above": CategoricalMeasure("R = share of records above the risk threshold", _share_above, ("threshold",)),
    "k_violations": CategoricalMeasure("R = share of records violating k-anonymity", _k_violations, ("k",)),
    "linkage": CategoricalMeasure("R = expected share linked to the original (a suppressed value matches anything)",
                                  _linkage),
    "key_matching": CategoricalMeasure("R = expected share re-identified by key matching", _key_matching),
    "unit_cells": CategoricalMeasure("R = share of records alone in a cell of a table of 2 or 3 keys", _unit_cells),
}

#: Utilities U of categorical protection by name (``simulate --utility NAME``).
CATEGORICAL_UTILITIES: dict[str, CategoricalMeasure] = {
    "kept": CategoricalMeasure("U = share of key values kept", _kept),
    "entropy": CategoricalMeasure("U = 1 - entropy information loss / its largest value (mu-Argus)", _entropy),
    "hellinger": CategoricalMeasure("U = 1 - Hellinger distance of the key table", _hellinger),
    "cramers_v": CategoricalMeasure("U = 1 - |change of Cramer's V|", _cramers, ("pair",)),
    "regression": CategoricalMeasure("U = 1 - |change of the regression R2|", _regression, ("response",)),
    "variance": CategoricalMeasure("U = share of the variance kept", _variance, ("variable",)),
    "categories": CategoricalMeasure("U = mean share of each key's categories kept", _categories_kept),
}


@assumes_valid
def replicated_measures(original: pd.DataFrame, names: Sequence[str], values: np.ndarray, replicates: int,
                        seed: Any, release: Callable[[float, np.random.Generator], pd.DataFrame],
                        risk: CategoricalMeasure, utility: CategoricalMeasure, settings: dict
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """R and U of a random protection at each value, the means over replicates and their standard errors.

    Parameters
    ----------
    original : DataFrame
    names : sequence of str
        The keys measured.
    values : ndarray
        The grid.
    replicates : int
    seed : int or None
        Each value's draws come from its own child of ``SeedSequence(seed)``.
    release : callable
        ``release(value, rng) -> released frame``.
    risk, utility : CategoricalMeasure
    settings : dict
        The measures' keyword arguments.

    Returns
    -------
    risk, utility, risk_se, utility_se : ndarray
    """
    seeds = np.random.SeedSequence(seed).spawn(values.size)
    risk_values = np.empty((values.size, replicates))
    utility_values = np.empty((values.size, replicates))
    for i, value in enumerate(values):
        rng = np.random.default_rng(seeds[i])
        for m in range(replicates):
            released = release(float(value), rng)
            risk_values[i, m] = risk.compute(original, released, names, **settings)
            utility_values[i, m] = utility.compute(original, released, names, **settings)
    if replicates > 1:
        return (risk_values.mean(axis=1), utility_values.mean(axis=1),
                risk_values.std(axis=1, ddof=1) / np.sqrt(replicates),
                utility_values.std(axis=1, ddof=1) / np.sqrt(replicates))
    return risk_values.mean(axis=1), utility_values.mean(axis=1), np.zeros(values.size), np.zeros(values.size)
