"""The simulation engine of empirical R-U maps: mask the data M times per parameter value and attack it.

For each value of the masking parameter (noise variance ``lambda2``, group
size ``k``, swap percentage) the engine makes M masked copies of the data, lets
the snooper attack each one (:mod:`rumap.maps.attacks`) and measures the utility of
each one (:mod:`rumap.maps.utility`). Risk ``R = 1 / snooper's MSE`` (Eq 12) and
utility (Eq 14 or another measure) come with Monte-Carlo standard errors.

Design
------
- **Common random numbers.** Replicate m of additive noise draws one standard
  noise matrix and scales it by ``sqrt(lambda2)`` for every value of the grid,
  so the curves are smooth in ``lambda2``; rank swapping reuses replicate m's
  seed at every swap percentage.
- **Reproducible and chunk-free.** Replicate m's generator is
  ``SeedSequence(seed, spawn_key=(m,))``: keyed by the replicate, not by the
  chunk, so neither the chunk size nor a Dask cluster changes a single number.
- **Bounded memory.** Replicates run in chunks of ``chunk_size`` (by default
  about 4 million values per array), so n = 1,000,000 records fit in 2 GB.
- **Deterministic methods** (microaggregation) are computed once per ``k``.
- **Dask.** With a ``dask.distributed`` client or scheduler address the chunks
  run on the cluster; the results equal the local run's.

References
----------
Duncan, Keller-McNulty & Stokes (2001), section 4 (Eq 11-14, Figures 5-7).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rumap._compile import load_compiler
from rumap._validation import (
    DataMatrix,
    InstanceOf,
    assumes_valid,
    check_column_index,
    validate_params,
)
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError, optional_module
from rumap.maps.attacks import (
    Target,
    attack_squared_errors,
    rational_envelope,
    resolve_targets,
    risk_estimate,
    rounding_resolution,
)
from rumap.maps.common import COMMON_REPLICATES, _common_keys, common_map, common_stats
from rumap.maps.methods import METHODS, install_methods, registered_methods
from rumap.maps.recommend import ReplicateRisk
from rumap.maps.simulation_config import SimulationConfig, _risk_measures
from rumap.maps.simulation_result import SimulationResult
from rumap.maps.subsample import UTILITY_SCALED, SubsampleError, check_subsample_size, subsample_rows
from rumap.maps.utility import (
    UTILITIES,
    Reference,
    make_reference,
    utility_efficiency,
    utility_estimate,
    utility_label,
)
from rumap.result import RUMap

__all__ = ["SimulationConfig", "SimulationResult", "simulate", "simulate_subsampled", "check_budget", "RISK_LABEL"]

RISK_LABEL = "R = 1 / snooper's MSE (Eq 12)"


#: Values per array in a chunk of replicates when ``chunk_size`` is not given.
_CHUNK_VALUES = 2_000_000
#: Seconds to wait for a Dask scheduler given by address.
_CONNECT_TIMEOUT = 10
#: Most threads of a local run (each holds a few chunk-sized arrays).
_MAX_THREADS = 8
#: The first spawn key of the subsamples' generators (apart from the replicates' keys).
_SUBSAMPLE_KEY = 1_000_003


# --- the plan that chunks share --------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """What every chunk needs: the data, the config and everything derived once from them."""

    x: np.ndarray
    config: SimulationConfig
    targets: tuple[Target, ...]
    reference: Reference
    prepared: Any = None  # what the method made of the data once (MaskingMethod.prepare)
    resolution: float = 0.0
    common: bool = True  # measure the common measures (rumap.maps.common) on the first replicates

    @property
    def n_replicates(self) -> int:
        return 1 if self.config.deterministic else self.config.replicates


@dataclass(frozen=True)
class _ChunkOutput:
    replicates: np.ndarray  # (r,)
    grid: np.ndarray  # (g,)
    squared_errors: np.ndarray  # (r, g, a)
    utility_stats: np.ndarray  # (r, g, s)
    dataset_risk: np.ndarray  # (r, g, d)
    common: np.ndarray  # (r, g, 2): the common measures (rumap.maps.common), NaN past COMMON_REPLICATES


def _check_budget(shape: tuple[int, int], config: SimulationConfig, budget: WorkBudget = DEFAULT_BUDGET) -> None:
    """Refuse a simulation over the work budget, before any work (:mod:`rumap.budget`).

    The work is records x variables x replicates x values (masking and
    attacking each copy), plus the microaggregation algorithm's cost for each
    group size (``Algorithm.cost``); the results hold replicates x values x
    curves numbers.

    Parameters
    ----------
    shape : (int, int)
        Records and variables of the data.
    config : SimulationConfig
    budget : WorkBudget

    Raises
    ------
    InputError
        Naming the limit that the run would exceed.
    """
    n, p = int(shape[0]), int(shape[1])
    values = len(config.values)
    replicates = 1 if config.deterministic else config.replicates
    budget.check_grid(values, config.parameter)
    work = float(n) * p * replicates * values
    what = f"{n} records x {p} variables x {replicates} replicates x {values} values"
    method = METHODS[config.method]
    if method.cost is not None:
        steps, words = method.cost(n, p, config.values, config.method_options)
        work += steps
        what += words
    budget.check_work(work, what)
    curves = len(config.targets) * len(config.knowledge) + len(config.risk_measures) + 4
    budget.check_cells(float(replicates) * values * curves, f"{replicates} replicates x {values} values x {curves} curves")


@assumes_valid
def check_budget(shape: tuple[int, int], config: SimulationConfig, budget: WorkBudget = DEFAULT_BUDGET) -> None:
    """Refuse, before any work, the simulation that :func:`simulate` would refuse on data of ``shape``.

    A subsampled run is the work of its subsamples (``subsample`` x ``subsamples`` records). ``config`` is
    checked (a :class:`SimulationConfig` is when it is made), ``shape`` is the shape of checked data.

    Parameters
    ----------
    shape : (int, int)
        Records and variables of the data.
    config : SimulationConfig
    budget : WorkBudget

    Raises
    ------
    InputError
        Naming the limit that the run would exceed.

    Examples
    --------
    >>> check_budget((10_000_000, 2), SimulationConfig(values=(1.0,), replicates=1000))
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: the run needs 2e+10 steps (10000000 records x 2 variables x 1000 replicates x 1 values), over the work limit of 2e+09: ask for less (--work-limit raises the limit on the command line)
    """
    if config.subsample is not None:
        shape = (int(config.subsample) * int(config.subsamples), shape[1])
        config = dataclasses.replace(config, subsample=None)
    _check_budget(shape, config, budget)


def _make_plan(x: np.ndarray, config: SimulationConfig, common: bool = True) -> _Plan:
    check_column_index("target_column", config.target_column, x.shape[1])
    column = x[:, config.target_column]
    targets = resolve_targets(config.targets, column)
    reference = make_reference(config.utility, x, config.utility_options)
    method = METHODS[config.method]
    prepared = None if method.prepare is None else method.prepare(x, config.method_options)
    return _Plan(x, config, targets, reference, prepared, rounding_resolution(column), common)


def _run_chunk(plan: _Plan, reps: np.ndarray, grid: np.ndarray) -> _ChunkOutput:
    """Mask, attack and measure replicates ``reps`` at grid indices ``grid``."""
    config = plan.config
    method = METHODS[config.method]
    masker = method.make_masker(plan, reps)
    c = config.target_column
    measure = UTILITIES[config.utility]
    n_attacks = len(plan.targets) * len(config.knowledge)
    errors = np.empty((len(reps), len(grid), n_attacks))
    stats_list = []
    risks = np.empty((len(reps), len(grid), len(config.risk_measures)))
    common = np.full((len(reps), len(grid), 2), np.nan)
    measured = np.flatnonzero(np.asarray(reps) < (COMMON_REPLICATES if plan.common else 0))
    keys = _common_keys(plan.x) if measured.size else None  # once for every grid value
    first = measured.size and measured[-1] == measured.size - 1  # the chunk's first rows: a view, no copy
    for g, j in enumerate(grid):
        masked, (mean, var) = masker(int(j))  # (r, n, p) and its column moments, each (r, p)
        column = masked[:, :, c]
        if n_attacks:
            errors[:, g, :] = attack_squared_errors(column, plan.targets, config.knowledge,
                                                    lambda2=None if method.published_lambda2 is None
                                                    else method.published_lambda2(plan, int(j)),
                                                    mean=mean[:, c], var=var[:, c], resolution=plan.resolution)
        stats_list.append(measure.stats(masked, plan.reference, (mean, var)))
        for d, name in enumerate(config.risk_measures):
            kernel = _risk_measures()[name].kernel  # the data were checked once, by simulate
            risks[:, g, d] = [float(kernel(plan.x, masked[i])) for i in range(masked.shape[0])]
        if measured.size:
            common[measured, g, :] = common_stats(plan.x, masked[:measured.size] if first else masked[measured], keys)
    return _ChunkOutput(np.asarray(reps), np.asarray(grid), errors, np.stack(stats_list, axis=1), risks, common)


def _units(plan: _Plan, n_records: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The chunks: (replicate indices, grid indices)."""
    config = plan.config
    n_grid = len(config.values)
    if config.deterministic:
        return [(np.array([0]), np.array([j])) for j in range(n_grid)]
    size = config.chunk_size or max(1, _CHUNK_VALUES // (n_records * plan.x.shape[1]))
    reps = np.arange(config.replicates)
    return [(reps[i:i + size], np.arange(n_grid)) for i in range(0, config.replicates, size)]


def _assemble(plan: _Plan, outputs: list[_ChunkOutput], elapsed: float) -> SimulationResult:
    config = plan.config
    m_eff, n_grid = plan.n_replicates, len(config.values)
    n_attacks = len(plan.targets) * len(config.knowledge)
    errors = np.empty((m_eff, n_grid, n_attacks))
    stats = None
    risks = np.empty((m_eff, n_grid, len(config.risk_measures)))
    common = np.empty((m_eff, n_grid, 2))
    for out in outputs:
        idx = np.ix_(out.replicates, out.grid)
        errors[idx] = out.squared_errors
        risks[idx] = out.dataset_risk
        common[idx] = out.common
        if stats is None:
            stats = np.empty((m_eff, n_grid, out.utility_stats.shape[2]))
        stats[idx] = out.utility_stats
    deterministic = config.deterministic
    util = np.empty(n_grid)
    util_se = np.empty(n_grid)
    for j in range(n_grid):
        u, se = utility_estimate(config.utility, stats[:, j, :], plan.reference)
        util[j], util_se[j] = u, (0.0 if deterministic else se)
    shares = [utility_efficiency(config.utility, stats[:, j, :], plan.reference) for j in range(n_grid)]
    eff = None if UTILITIES[config.utility].efficiency is None else np.array(shares, dtype=float)
    base = {"method": config.method, "parameter": config.parameter, "values": np.asarray(config.values, dtype=float),
            "utility": util, "utility_se": util_se, "utility_label": utility_label(config.utility, config.method if METHODS[config.method].preserves_mean
                                                           else None),
            "efficiency": eff}
    maps: list[RUMap] = []
    samples: list[ReplicateRisk | None] = []
    run_config = config.to_dict()
    for i, target in enumerate(plan.targets):
        per_target = []
        for k, name in enumerate(config.knowledge):
            squared = errors[:, :, i * len(config.knowledge) + k]
            risk, risk_se = risk_estimate(squared, deterministic)
            per_target.append(RUMap(**base, risk=risk, risk_se=risk_se, risk_label=RISK_LABEL, knowledge=name,
                                    target=target.name,
                                    config={**run_config, "target_row": target.record + 1,
                                            "target_rank": target.rank, "target_value": target.value}))
            samples.append(ReplicateRisk(squared, reciprocal=True))
        maps.extend(per_target)
        if config.rational and len(per_target) > 1:
            maps.append(rational_envelope(per_target))
            samples.append(None)
    for d, name in enumerate(config.risk_measures):
        values = risks[:, :, d]
        se = values.std(axis=0, ddof=1) / math.sqrt(m_eff) if m_eff > 1 else np.zeros(n_grid)
        maps.append(RUMap(**base, risk=values.mean(axis=0), risk_se=se, risk_label=f"R = {name}",
                          knowledge=name, config=run_config))
        samples.append(ReplicateRisk(values, reciprocal=False))
    shared = common_map(config.method, config.parameter, base["values"], common[:min(m_eff, COMMON_REPLICATES)],
                        run_config)
    return SimulationResult(maps=maps, config=config, n_records=plan.x.shape[0], n_columns=plan.x.shape[1],
                            elapsed=elapsed, replicate_risks=tuple(samples), common=shared)


def _collect(finished, progress, total) -> list[_ChunkOutput]:
    """Gather chunk outputs as they finish, reporting progress in replicate x grid-value units."""
    outputs, done = [], 0
    for out in finished:
        outputs.append(out)
        done += len(out.replicates) * len(out.grid)
        if progress is not None:
            progress(done, total)
    return outputs


def _run_local(plan: _Plan, units, progress, total) -> list[_ChunkOutput]:
    """Run the chunks on this machine's cores (numpy releases the GIL in the heavy loops)."""
    workers = max(1, min(len(units), os.cpu_count() or 1, _MAX_THREADS))
    if workers == 1:
        return _collect((_run_chunk(plan, reps, grid) for reps, grid in units), progress, total)
    with _one_blas_thread(), ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_run_chunk, plan, reps, grid) for reps, grid in units]
        return _collect((future.result() for future in as_completed(futures)), progress, total)


def _one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """One BLAS thread per engine thread while the engine's own threads run (threadpoolctl).

    The engine already runs a thread per core; a multi-threaded BLAS inside each
    would oversubscribe the cores. Without threadpoolctl, nothing is limited.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _run_sent_chunk(methods: dict[str, Any], plan: _Plan, reps: np.ndarray, grid: np.ndarray) -> _ChunkOutput:
    """:func:`_run_chunk` in another process, the methods registered where the run began installed first."""
    install_methods(methods)
    return _run_chunk(plan, reps, grid)


def _run_dask(plan: _Plan, units, progress, total, client) -> list[_ChunkOutput]:
    distributed = optional_module("distributed", "running a simulation on a Dask cluster", "dask")
    Client, dask_as_completed = distributed.Client, distributed.as_completed

    own = isinstance(client, str)
    if own:
        try:
            client = Client(client, timeout=_CONNECT_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - unreachable, not an address, or a client whose loop failed to start
            raise InputError(f"cannot reach the Dask scheduler {client!r}: {exc}") from None
    try:
        # hash=False: a unique key per run, so two runs of the same data never share (and release) one key
        plan_future = client.scatter(plan, broadcast=True, hash=False)
        methods = registered_methods()  # the workers' processes hold only the methods their imports define
        futures = [client.submit(_run_sent_chunk, methods, plan_future, reps, grid, pure=False)
                   for reps, grid in units]
        return _collect((future.result() for future in dask_as_completed(futures)), progress, total)
    finally:
        if own:
            client.close()


def _simulate_example() -> dict[str, Any]:
    return {"data": np.linspace(1.0, 30.0, 30), "config": SimulationConfig(values=(0.5,), replicates=3, seed=1)}


@validate_params({"data": DataMatrix(min_rows=2), "config": InstanceOf(SimulationConfig)}, example=_simulate_example)
def simulate(data: ArrayLike, config: SimulationConfig, *, progress: Callable[[int, int], None] | None = None,
             client: Any = None, budget: WorkBudget = DEFAULT_BUDGET) -> SimulationResult:
    """Simulate an empirical R-U map.

    Parameters
    ----------
    data : array_like, shape (n,) or (n, p)
        The original data (finite numbers, n >= 2).
    config : SimulationConfig
        Method, grid, targets, knowledge, utility, replicates, seed.
    progress : callable(done, total), optional
        Called after each chunk with the number of (replicate, parameter
        value) pairs done and their total.
    client : dask.distributed.Client or str, optional
        A client, or a scheduler address such as ``"tcp://10.0.0.5:8786"``:
        the chunks run on that cluster. Local when ``None``.
    budget : WorkBudget, default DEFAULT_BUDGET
        Limits checked before any work (:mod:`rumap.budget`).

    Returns
    -------
    SimulationResult

    Notes
    -----
    For each parameter value and replicate m the snooper's squared error
    ``(tau - tau_hat_m)^2`` is recorded; ``R = 1 / mean_m(...)`` (Eq 12) with
    delta-method standard error ``SE(MSE) / MSE^2``. Utility ``mean`` is Eq 14.
    The same seed gives identical results whatever the chunk size or cluster.

    References
    ----------
    Duncan, Keller-McNulty & Stokes (2001), section 4, Eq 11-14.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.simulation import SimulationConfig, simulate
    >>> x = np.random.default_rng(1).normal(size=300)
    >>> cfg = SimulationConfig(values=(0.1, 0.5, 1.0), targets=("max",), knowledge=("index",), replicates=50)
    >>> simulate(x, cfg).maps[0].risk.shape
    (3,)
    """
    x = np.ascontiguousarray(data.reshape(data.shape[0], -1))
    config.check_records(x.shape[0])
    return simulate_kernel(x, config, progress=progress, client=client, budget=budget)


def simulate_kernel(x: np.ndarray, config: SimulationConfig, *, progress: Callable[[int, int], None] | None = None,
                    client: Any = None, budget: WorkBudget = DEFAULT_BUDGET) -> SimulationResult:
    """:func:`simulate` of checked input, trusted: nothing is compared with the number of records again.

    ``x`` is a finite (n, p) float array in C order with n >= 2, and ``config``
    was compared with n once (:meth:`SimulationConfig.check_records`): by
    :func:`simulate`, or by an :class:`rumap.specs.EmpiricalSpec` that knows
    its data when it is built.

    Parameters
    ----------
    x : numpy.ndarray, shape (n, p)
    config : SimulationConfig
    progress, client, budget
        As :func:`simulate`.

    Returns
    -------
    SimulationResult
    """
    start = time.perf_counter()
    constant = np.flatnonzero(np.ptp(x, axis=0) == 0)
    if constant.size:
        raise InputError(f"data: column {int(constant[0]) + 1} is constant: an R-U map needs values that vary")
    if config.subsample is not None:
        return simulate_subsampled(x, config, progress=progress, client=client, budget=budget)
    _check_budget(x.shape, config, budget)
    return _simulate_checked(x, config, progress, client, start)


def _simulate_checked(x: np.ndarray, config: SimulationConfig, progress: Callable[[int, int], None] | None,
                      client: Any, start: float, common: bool = True) -> SimulationResult:
    """:func:`simulate` of checked data and config; ``common=False`` leaves the common measures out (NaN)."""
    if client is None:  # numba's import (Python, holding the lock) beside the plan's sorting and draws (numpy, not)
        threading.Thread(target=load_compiler, daemon=True).start()
    plan = _make_plan(x, config, common)
    units = _units(plan, x.shape[0])
    total = plan.n_replicates * len(config.values)
    if client is None:
        outputs = _run_local(plan, units, progress, total)
    else:
        outputs = _run_dask(plan, units, progress, total, client)
    return _assemble(plan, outputs, time.perf_counter() - start)


# --- a map estimated on subsamples (rumap.maps.subsample) ------------------------------------


def _combine(maps: list, risks: list, scale: float) -> tuple[dict[str, np.ndarray], Any]:
    """The mean over subsamples of one map's curves, their between-subsample SEs and the pooled replicates."""
    b = len(maps)
    util = np.array([mp.utility for mp in maps]) * scale
    with np.errstate(invalid="ignore"):
        out = {"utility": util.mean(axis=0), "utility_se": util.std(axis=0, ddof=1) / math.sqrt(b)}
    samples = [r.samples for r in risks]
    per = np.array([s.mean(axis=0) for s in samples])  # (B, g): each subsample's MSE or mean risk
    centre = per.mean(axis=0)
    spread = per.std(axis=0, ddof=1) / math.sqrt(b)
    if risks[0].reciprocal:  # R = 1 / MSE, its SE by the delta method
        with np.errstate(divide="ignore", invalid="ignore"):
            out["risk"] = np.where(centre > 0, 1.0 / np.where(centre > 0, centre, 1.0), np.inf)
            out["risk_se"] = np.where(centre > 0, spread / np.where(centre > 0, centre, 1.0) ** 2, 0.0)
    else:
        out["risk"], out["risk_se"] = centre, spread
    if maps[0].efficiency is not None:
        out["efficiency"] = np.array([mp.efficiency for mp in maps]).mean(axis=0)
    return out, ReplicateRisk(np.concatenate(samples), reciprocal=risks[0].reciprocal)


@assumes_valid
def simulate_subsampled(x: np.ndarray, config: SimulationConfig, *,
                        progress: Callable[[int, int], None] | None = None, client: Any = None,
                        budget: WorkBudget | None = None) -> SimulationResult:
    """The map of ``config`` estimated on ``config.subsamples`` subsamples of ``config.subsample`` records.

    Called by :func:`simulate` when ``config.subsample`` is set, on data it
    has checked; :mod:`rumap.maps.subsample` says what the standard errors
    cover.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        The whole file's data, checked.
    config : SimulationConfig
        With ``subsample`` (m < n) and ``subsamples`` (B).
    progress : callable(done, total), optional
        Over the B runs together.
    client : dask.distributed.Client or str, optional
        Where each subsample's replicates run.
    budget : WorkBudget, optional
        Checked once for the B subsamples' work together.

    Returns
    -------
    SimulationResult
        ``n_records`` is n; each map's ``risk_se`` and ``utility_se`` are
        between-subsample standard errors; ``subsample`` says how.

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.maps.simulation import SimulationConfig, simulate
    >>> x = np.random.default_rng(1).normal(size=2000)
    >>> cfg = SimulationConfig(values=(0.5,), knowledge=("index",), replicates=20, subsample=200, subsamples=4)
    >>> result = simulate(x, cfg)
    >>> result.n_records, result.subsample.m, result.subsample.subsamples, result.subsample.method
    (2000, 200, 4, 'between-subsample')
    """
    start = time.perf_counter()
    budget = DEFAULT_BUDGET if budget is None else budget
    n, p = x.shape
    m, b = int(config.subsample), int(config.subsamples)
    check_subsample_size(m, n)
    check_column_index("target_column", config.target_column, p)
    targets = resolve_targets(config.targets, x[:, config.target_column]) if config.targets else ()
    kept = np.array(list(dict.fromkeys(t.record for t in targets)), dtype=np.int64)
    if kept.size >= m:
        raise InputError(f"subsample: {m} records cannot hold the {kept.size} targets' records and others")
    place = {int(r): i for i, r in enumerate(kept)}
    one = dataclasses.replace(config, subsample=None, targets=tuple(f"row:{place[t.record] + 1}" for t in targets))
    _check_budget((m * b, p), one, budget)
    root = np.random.SeedSequence(config.seed, spawn_key=(_SUBSAMPLE_KEY,))
    results = []
    for i, child in enumerate(root.spawn(b)):
        rng = np.random.default_rng(child)
        rows = subsample_rows(n, m, kept, rng)
        seed = int(child.generate_state(1, np.uint32)[0])
        report = None if progress is None else (lambda done, total, i=i: progress(i * total + done, b * total))
        part = x[rows]
        if np.any(np.ptp(part, axis=0) == 0):
            raise InputError(f"subsample {i + 1}: a column is constant in its {m} records: take a larger subsample")
        # the common measures' record linkage depends on n: not measured on a subsample
        results.append(_simulate_checked(part, dataclasses.replace(one, seed=seed), report, client, start,
                                         common=False))
    scale = n / m if config.utility in UTILITY_SCALED else 1.0
    run_config = config.to_dict()
    by_row: dict[str, list] = {}
    for t in targets:  # two targets on one record share the subsample's row
        by_row.setdefault(f"row:{place[t.record] + 1}", []).append(t)
    maps, pooled = [], []
    for j, first in enumerate(results[0].maps):
        curves, replicate = _combine([r.maps[j] for r in results], [r.replicate_risks[j] for r in results], scale)
        for t in by_row.get(first.target, [None]):
            own = dict(run_config)
            if t is not None:
                own.update({"target_row": t.record + 1, "target_rank": t.rank, "target_value": t.value})
            maps.append(dataclasses.replace(first, **curves, target="" if t is None else t.name, config=own))
            pooled.append(replicate)
    info = SubsampleError(m=m, n=n, subsamples=b, utility_scale=scale)
    return SimulationResult(maps=maps, config=config, n_records=n, n_columns=p,
                            elapsed=time.perf_counter() - start, replicate_risks=tuple(pooled), common=None,
                            subsample=info)
