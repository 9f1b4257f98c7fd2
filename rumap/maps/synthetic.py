"""R-U maps of synthetic data: a generator's parameter against a risk and a utility of its synthetic files.

Each replicate splits the data at random into the part that fits the
generator and a holdout (``holdout_share`` of the records, original records
the generator does not see); for each value of the generator's parameter
(:data:`rumap.synthesis.GENERATORS`) the generator is fitted on the fit part
and draws ``copies`` synthetic files of its size, each measured against the fit
part (and the holdout) by a risk of :data:`SYNTHETIC_RISKS` and a utility of
:data:`SYNTHETIC_UTILITIES`; a replicate's R and U are the copies' means, and the
map's are the replicates' means with their Monte-Carlo standard errors. Every
replicate uses one split for every value, so that the curve's steps compare
values, not splits; a replicate's draws at a value depend on the seed and the
value, not on the rest of the grid. The map is a :class:`rumap.result.RUMap` like every other
empirical map, ``knowledge`` the risk measure's name. With ``risk="linkage"`` and
``utility="common"`` it carries the common measures of every masking map
(:mod:`rumap.maps.common`, on the numeric columns without missing values, the
synthetic file against the records it was fitted on), so that comparisons and
Pareto frontiers overlay it with masking maps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, ListOf, StrOptions, check_array, validate_params
from rumap.errors import InputError
from rumap.maps.common import COMMON_RISK_LABEL, COMMON_UTILITY_LABEL
from rumap.result import RUMap
from rumap.risk import synthetic as measures
from rumap.synthesis import GENERATORS
from rumap.synthesis.columns import chosen_columns, column_kinds

__all__ = ["SyntheticMeasure", "SYNTHETIC_RISKS", "SYNTHETIC_UTILITIES", "synthetic_map", "synthetic_maps",
           "measure_synthetic"]


@dataclass(frozen=True)
class _Copy:
    """One synthetic file with what it is measured against."""

    fit: pd.DataFrame
    copy: pd.DataFrame
    holdout: pd.DataFrame
    names: list[str]
    keys: list[str] | None
    target: str | None


@dataclass(frozen=True)
class SyntheticMeasure:
    """A risk or utility of a synthetic file.

    Parameters
    ----------
    label : str
        The axis title.
    measure : callable
        ``measure(copy) -> float`` of a :class:`_Copy`.
    needs : tuple of str
        ``"keys"``, ``"target"``: what the map must be given; ``"holdout"``: a release is measured with
        records the generator did not see (a map always has them).
    bound : float, optional
        A risk's maximum tolerable value a page starts from (in its units).
    short : str
        The axis's value in a few words, for a table's row (default: the measure's name).
    """

    label: str
    measure: Callable[[_Copy], float]
    needs: tuple[str, ...] = ()
    bound: float | None = None
    short: str = ""


def _numeric_complete(c: _Copy) -> list[str]:
    kinds = column_kinds(c.fit, c.names)
    return [n for n, cat in zip(c.names, kinds, strict=True) if not cat and not c.fit[n].isna().any()
            and not c.copy[n].isna().any() and not pd.api.types.is_bool_dtype(c.copy[n])]


def _linkage(c: _Copy) -> float:
    from rumap.risk.linkage import linkage_risk_distance_shared_ties

    names = _numeric_complete(c)
    return float(linkage_risk_distance_shared_ties(c.fit[names].to_numpy(float), c.copy[names].to_numpy(float)))


def _common(c: _Copy) -> float:
    from rumap.risk.information_loss import information_loss_batch

    names = _numeric_complete(c)
    return float(1.0 - information_loss_batch(c.fit[names].to_numpy(float), c.copy[names].to_numpy(float)[None])[0])


def _pmse_utility(c: _Copy) -> float:
    value, _ = measures.pmse(c.fit, c.copy, c.names)
    share = len(c.copy) / (len(c.fit) + len(c.copy))
    return float(1.0 - value / (share * (1.0 - share)))


#: The risks of a synthetic map, by name (``--risk``).
SYNTHETIC_RISKS: dict[str, SyntheticMeasure] = {
    "dcr_share": SyntheticMeasure("R = share of synthetic records nearer the fitted records than the holdout (DCR)",
                                  lambda c: measures.dcr_share(c.fit, c.copy, c.holdout, c.names), ("holdout",), 0.6),
    "nndr": SyntheticMeasure("R = 1 − NNDR (median nearest / second-nearest distance to the fitted records)",
                             lambda c: 1.0 - measures.nndr(c.fit, c.copy, c.names), bound=0.5,
                             short="1 − nndr"),
    "membership_advantage": SyntheticMeasure(
        "R = membership advantage (fitted records guessed members − holdout records guessed members)",
        lambda c: measures.membership_advantage(c.fit, c.copy, c.holdout, c.names), ("holdout",), 0.1),
    "repu": SyntheticMeasure("R = replicated uniques (% of the fitted records)",
                             lambda c: measures.repu(c.fit, c.copy, c.keys), ("keys",), 1.0),
    "disco": SyntheticMeasure("R = DiSCO (% of the fitted records whose target is disclosed correctly)",
                              lambda c: measures.disco(c.fit, c.copy, c.keys, c.target), ("keys", "target"), 1.0),
    "linkage": SyntheticMeasure(COMMON_RISK_LABEL, _linkage, bound=0.05),
}

#: The utilities of a synthetic map, by name (``--utility``).
SYNTHETIC_UTILITIES: dict[str, SyntheticMeasure] = {
    "pmse": SyntheticMeasure("U = 1 − pMSE / c(1 − c) (propensity score, main effects)", _pmse_utility,
                             short="1 − pmse / c(1 − c)"),
    "common": SyntheticMeasure(COMMON_UTILITY_LABEL, _common),
}


def _example() -> dict[str, Any]:
    rng = np.random.default_rng(0)
    return {"data": pd.DataFrame({"a": rng.normal(size=40), "b": rng.choice(["x", "y"], 40)}), "method": "copula",
            "values": [0.0, 1.0], "replicates": 2}


_CHECKS = {"data": InstanceOf(pd.DataFrame, "a pandas DataFrame"), "method": StrOptions(GENERATORS),
           "risk": StrOptions(SYNTHETIC_RISKS), "utility": StrOptions(SYNTHETIC_UTILITIES),
           "replicates": "replicates", "holdout_share": "holdout_share", "copies": "copies",
           "keys": [None, ListOf(str, "a list of key names")], "target": [None, InstanceOf(str, "a column")],
           "columns": [None, ListOf(str, "a list of column names")], "seed": [None, "seed"],
           "source": InstanceOf(str, "a name for messages")}


@validate_params(_CHECKS, example=_example)
def synthetic_map(data: pd.DataFrame, method: str, values: Sequence[float], risk: str = "dcr_share",
                  utility: str = "pmse", replicates: int = 20, holdout_share: float = 0.5, copies: int = 1,
                  keys: Sequence[str] | None = None, target: str | None = None,
                  columns: Sequence[str] | None = None, seed: int | None = 0, source: str = "the data") -> RUMap:
    """The R-U map of a generator over its parameter's ``values``.

    Parameters
    ----------
    data : DataFrame
        The original file.
    method : str
        A generator of :data:`rumap.synthesis.GENERATORS`.
    values : sequence of float
        Its parameter's values (``minbucket`` of cart, ``shrinkage`` of copula, ``epsilon`` of mst).
    risk : str
        A key of :data:`SYNTHETIC_RISKS`.
    utility : str
        A key of :data:`SYNTHETIC_UTILITIES`.
    replicates : int
        Random splits into a fit part and a holdout.
    holdout_share : float
        The share of the records held out, in (0, 1).
    copies : int
        Synthetic files per fit (synthpop's m).
    keys, target : optional
        The key variables and the target of the measures that need them.
    columns : sequence of str, optional
        The columns synthesised and measured (default: every column).
    seed : int, optional
    source : str
        The data's name, for messages.

    Returns
    -------
    RUMap

    Examples
    --------
    >>> m = synthetic_map(**_example())
    >>> m.parameter, m.values.tolist(), m.knowledge
    ('shrinkage', [0.0, 1.0], 'dcr_share')
    """
    return _sweep(data, method, values, [(risk, utility)], replicates, holdout_share, copies, keys, target, columns,
                  seed, source)[0]


@validate_params(_CHECKS, example=_example)
def synthetic_maps(data: pd.DataFrame, method: str, values: Sequence[float], risk: str = "dcr_share",
                   utility: str = "pmse", replicates: int = 20, holdout_share: float = 0.5, copies: int = 1,
                   keys: Sequence[str] | None = None, target: str | None = None,
                   columns: Sequence[str] | None = None, seed: int | None = 0, source: str = "the data",
                   progress: Callable[[float], None] | None = None) -> tuple[RUMap, RUMap]:
    """The map of ``risk`` and ``utility`` and the map on the common measures, from the same synthetic copies.

    The second map measures ``linkage`` and ``common`` (:mod:`rumap.maps.common`), so that it
    overlays the masking maps' common curves; with those as ``risk`` and ``utility`` both maps are one.

    Parameters
    ----------
    data, method, values, risk, utility, replicates, holdout_share, copies, keys, target, columns, seed, source
        As in :func:`synthetic_map`.
    progress : callable, optional
        Told the share of (replicate, value) pairs done.

    Returns
    -------
    tuple of RUMap
        The chosen measures' map, then the common measures' map.

    Examples
    --------
    >>> own, common = synthetic_maps(**_example())
    >>> own.knowledge, common.knowledge, common.values.tolist() == own.values.tolist()
    ('dcr_share', 'linkage', True)
    """
    pairs = list(dict.fromkeys([(risk, utility), ("linkage", "common")]))
    maps = _sweep(data, method, values, pairs, replicates, holdout_share, copies, keys, target, columns, seed,
                  source, progress)
    return maps[0], maps[-1]


def _measure_example() -> dict[str, Any]:
    data = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 1.0, 4.0, 3.0]})
    return {"original": data, "release": data, "measure": "linkage"}


@validate_params({"original": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "release": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "measure": StrOptions([*SYNTHETIC_RISKS, *SYNTHETIC_UTILITIES]),
                  "columns": [None, ListOf(str, "a list of column names")],
                  "keys": [None, ListOf(str, "a list of key names")], "target": [None, InstanceOf(str, "a column")],
                  "source": InstanceOf(str, "a name for messages")}, example=_measure_example)
def measure_synthetic(original: pd.DataFrame, release: pd.DataFrame, measure: str,
                      columns: Sequence[str] | None = None, keys: Sequence[str] | None = None,
                      target: str | None = None, source: str = "the data") -> float:
    """One measure of :data:`SYNTHETIC_RISKS` or :data:`SYNTHETIC_UTILITIES` of a release against its original.

    The release is measured as a map's copy is, against the records the generator was fitted on (here the
    whole original): a measure that needs a holdout is refused.

    Parameters
    ----------
    original, release : DataFrame
        With the same columns.
    measure : str
        A risk or utility name (``nndr``, ``linkage``, ``pmse``, ``common``, ...).
    columns : sequence of str, optional
        The columns measured (default: every column of ``original``).
    keys, target : optional
        For the measures that need them.
    source : str

    Returns
    -------
    float
        On the map's axis (a risk as its map's R, a utility as its U).

    Examples
    --------
    >>> data = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 1.0, 4.0, 3.0]})
    >>> round(measure_synthetic(data, data, "linkage"), 3)
    1.0
    """
    record = {**SYNTHETIC_RISKS, **SYNTHETIC_UTILITIES}[measure]
    given = {"keys": keys, "target": target, "holdout": None}
    for need in record.needs:
        if given[need] is None:
            raise InputError(f"measure {measure} needs {need}")
    names = chosen_columns(original, columns, source)
    chosen_columns(release, names, "the release")
    copy = _Copy(original.reset_index(drop=True), release.reset_index(drop=True), original.iloc[:0], names,
                 list(keys) if keys else None, target)
    return float(record.measure(copy))


def _sweep(data: pd.DataFrame, method: str, values: Sequence[float], pairs: Sequence[tuple[str, str]],
           replicates: int, holdout_share: float, copies: int, keys: Sequence[str] | None, target: str | None,
           columns: Sequence[str] | None, seed: int | None, source: str,
           progress: Callable[[float], None] | None = None) -> list[RUMap]:
    """The maps of every (risk, utility) pair of ``pairs``, measured on the same synthetic copies."""
    record = GENERATORS[method]
    grid = check_array(record.parameter, values, PARAMETERS[record.entry])
    if record.integer:
        grid = grid.astype(int)
    names = chosen_columns(data, columns, source)
    for risk, utility in pairs:
        if risk not in SYNTHETIC_RISKS or utility not in SYNTHETIC_UTILITIES:
            raise InputError(f"measures must pair a risk of {', '.join(SYNTHETIC_RISKS)} with a utility of "
                             f"{', '.join(SYNTHETIC_UTILITIES)}, got ({risk!r}, {utility!r})")
    records = [(SYNTHETIC_RISKS[r], SYNTHETIC_UTILITIES[u]) for r, u in pairs]
    given = {"keys": keys, "target": target, "holdout": True}
    for (risk, _), (risk_record, utility_record) in zip(pairs, records, strict=True):
        for need in (*risk_record.needs, *utility_record.needs):
            if given[need] is None:
                raise InputError(f"risk {risk} needs {need}")
    for name in [*(keys or []), *([target] if target else [])]:
        chosen_columns(data, [name], source)
    n = data.shape[0]
    held = int(round(holdout_share * n))
    if held < 2 or n - held < 2:
        raise InputError(f"{source} has {n} records: a holdout_share of {holdout_share:g} leaves fewer than two "
                         "records on a side")
    frame = data[list(dict.fromkeys([*names, *(keys or []), *([target] if target else [])]))].reset_index(drop=True)
    seeds = np.random.SeedSequence(seed).spawn(replicates)
    splits = [np.random.default_rng(s).permutation(n) for s in seeds]
    tasks = [(r, j) for r in range(replicates) for j in range(grid.size)]
    done = [0]

    def one(task: tuple[int, int]) -> np.ndarray:
        r, j = task
        order = splits[r]
        fit, holdout = frame.iloc[order[held:]].reset_index(drop=True), frame.iloc[order[:held]].reset_index(drop=True)
        rng = np.random.default_rng([int(seeds[r].generate_state(1)[0]), int(np.float64(grid[j]).view(np.uint64))])
        model = record.fit(fit, grid[j].item(), rng)
        measured = []
        for _ in range(copies):
            c = _Copy(fit, model.draw(len(fit), rng), holdout, names, list(keys) if keys else None, target)
            measured.append([v for risk_record, utility_record in records
                             for v in (risk_record.measure(c), utility_record.measure(c))])
        done[0] += 1
        if progress is not None:
            progress(done[0] / len(tasks))
        return np.mean(measured, axis=0)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = np.array(list(pool.map(one, tasks))).reshape(replicates, grid.size, 2 * len(pairs))
    mean = results.mean(axis=0)
    se = results.std(axis=0, ddof=1) / np.sqrt(replicates) if replicates > 1 else np.zeros_like(mean)
    maps = []
    for i, ((risk, utility), (risk_record, utility_record)) in enumerate(zip(pairs, records, strict=True)):
        config = {"method": method, "parameter": record.parameter, "values": grid.tolist(), "risk": risk,
                  "utility": utility, "replicates": replicates, "holdout_share": holdout_share, "copies": copies,
                  "keys": list(keys) if keys else None, "target": target, "columns": names, "seed": seed}
        maps.append(RUMap(record.parameter, grid.astype(float), mean[:, 2 * i], mean[:, 2 * i + 1], se[:, 2 * i],
                          se[:, 2 * i + 1], risk_record.label, utility_record.label, method, risk, "", None, config))
    return maps
