"""The masking methods of the simulation engine: the registry, each method's kernel and record, and the engine's random streams.

:data:`METHODS` holds one :class:`MaskingMethod` per method (additive noise,
microaggregation, rank swapping), each with the kernel that masks a chunk of
replicates; :func:`register_method` adds one. The record types
(:class:`MaskingMethod`, :class:`GridParameter`, :class:`MethodOption`,
:class:`Flag`, :class:`OptionWidget`, :class:`Toggle`) are defined in
:mod:`rumap.maps.method_records` and importable from here too.

The command line's ``simulate`` parser, the Empirical page's widgets,
:class:`rumap.maps.simulation.SimulationConfig`'s checks, the plots' symbols,
the statements, the reproducing command and the release plan's steps are all
read from these records.
Adding a method is one function that masks and one :func:`register_method`
call (or one entry in :data:`METHODS`).
"""

from __future__ import annotations

import io
import pickle
import types
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import PARAMETERS, Boolean, JsonBoolean, StrOptions, assumes_valid, check_parameter
from rumap._validation.steps import REQUIRED
from rumap.errors import InputError
from rumap.maps.method_records import (
    Flag,
    GridParameter,
    Masked,
    MaskingMethod,
    MethodOption,
    OptionWidget,
    ReleaseStep,
    Toggle,
)
from rumap.maps.moments import mask_with_moments, moments
from rumap.maps.noise_step import NOISE_STEP, refuse_noise_past_magnitude
from rumap.masking.microaggregation import ALGORITHMS, CRITERIA, microaggregate
from rumap.masking.noise import NoiseSpec, noise_shape, standard_noise

if TYPE_CHECKING:
    from rumap.budget import WorkBudget
    from rumap.maps.method_records import MaskingPlan as _Plan

__all__ = ["MaskingMethod", "GridParameter", "MethodOption", "OptionWidget", "Flag", "Toggle", "ReleaseStep",
           "METHODS", "register_method", "reserve_method_names", "registered_methods", "install_methods", "replicate_generator", "PARAMETER_SYMBOLS", "UNMASKED",
           "refuse_noise_past_magnitude"]


@assumes_valid
def replicate_generator(seed: int, replicate: int) -> np.random.Generator:
    """The generator of replicate ``replicate``: ``SeedSequence(seed, spawn_key=(replicate,))``.

    The same as child ``replicate`` of ``SeedSequence(seed).spawn(M)``.

    Parameters
    ----------
    seed : int
        The run's seed.
    replicate : int
        The replicate's number, >= 0.

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(replicate),)))


# --- additive noise ------------------------------------------------------------------------


def _noise_spec(options: Mapping[str, Any]) -> NoiseSpec:
    return NoiseSpec(**{k: options[k] for k in (f.name for f in fields(NoiseSpec))})


def _noise_prepare(x: np.ndarray, options: Mapping[str, Any]) -> tuple[NoiseSpec, np.ndarray, np.ndarray | None]:
    spec = _noise_spec(options)
    return spec, noise_shape(x, spec), spec.variance_factor(x)


def _noise_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    spec, shape, factor = plan.prepared  # made once per run, not per chunk
    noise = np.empty((len(reps), *plan.x.shape))
    for i, m in enumerate(reps):  # drawn in place: no array per replicate
        standard_noise(replicate_generator(plan.config.seed, m), plan.x, spec, shape, factor, out=noise[i])
    scales = np.sqrt(np.asarray(plan.config.values, dtype=float))
    lower = -np.inf if spec.truncate_below is None else float(spec.truncate_below)
    upper = np.inf if spec.truncate_above is None else float(spec.truncate_above)
    buffer = np.empty_like(noise)  # each grid value's masked data is used up before the next is made

    def masked(j: int) -> Masked:
        found = mask_with_moments(plan.x, noise, float(scales[j]), lower, upper, buffer)  # one pass: values and sums
        return buffer, found

    return masked


def _noise_lambda2(plan: _Plan, j: int) -> float:
    c = plan.config.target_column
    shape = plan.prepared[1]
    return float(plan.config.values[j]) * float(shape[c] @ shape[c])


_NOISE_DEFAULTS = {f.name: f.default for f in fields(NoiseSpec)}
_LAMBDA2_HELP = "noise variances (data units squared)"


def _sensitive_threshold(x: np.ndarray, column: int) -> float:
    """The page's first threshold of unequal-variance masking: the first column's 80th percentile."""
    return float(np.percentile(x[:, 0], 80))


def _noise_option(name: str, **kwargs: Any) -> MethodOption:
    return MethodOption(name, _NOISE_DEFAULTS[name], **kwargs)




_NOISE = MaskingMethod(
    description="additive noise",
    title="additive noise",
    grids=(
        GridParameter("lambda2", "λ²", "λ²", "data units squared", 0.0, (0.05, 1.0, 20),
                      Flag("--lambda2", _LAMBDA2_HELP, str, "START:STOP:NUM"), implies={"relative": False},
                      count_label="number of λ² values"),
        GridParameter("lambda2_frac", "λ²/S²", "λ² / S²", "fractions of each variable's variance", 0.0,
                      (0.05, 1.0, 20),
                      Flag("--lambda2-frac", "noise variances as fractions of each variable's variance (0.05:1:20 is "
                           "the paper's grid)", str, "START:STOP:NUM"),
                      bound="lambda2", implies={"relative": True}, count_label="number of λ² values"),
    ),
    options=(
        _noise_option("relative", widget=OptionWidget("checkbox", "λ² as a fraction of the variance", "relative",
                                                      True, "noise variance λ² × S² (the paper's grid is 0.05 to "
                                                            "1.0)")),
        _noise_option("truncate_below", flag=Flag("--truncate-below", "release max(V, x + e) (Eq 11: 0)",
                                                  metavar="V"),
                      widget=OptionWidget("number", "lower bound", "trunc", 0.0), toggle="truncate", bound="truncation"),
        _noise_option("truncate_above", flag=Flag("--truncate-above", "release min(V, x + e)", metavar="V")),
        _noise_option("unequal_above", flag=Flag("--unequal-above", "multiply the noise variance of records whose "
                                                 "attacked column is above T by --unequal-factor (Figure 7)",
                                                 metavar="T", exclusive="unequal"),
                      widget=OptionWidget("number", "sensitive above", "unequal_above", _sensitive_threshold),
                      toggle="unequal", bound="unequal_threshold"),
        _noise_option("unequal_below", flag=Flag("--unequal-below", "the same for records below T", metavar="T",
                                                 exclusive="unequal"), toggle="unequal"),
        _noise_option("unequal_factor", flag=Flag("--unequal-factor", "variance factor (default 2)", metavar="F",
                                                  needs=("unequal_above", "unequal_below")),
                      widget=OptionWidget("number", "variance factor", "unequal_factor", 2.0), toggle="unequal"),
        _noise_option("unequal_column", follows="target_column", toggle="unequal",
                      note="the sensitive records are chosen on another column than the attacked one"),
        _noise_option("correlated", flag=Flag("--correlated", "noise correlated like the data (Kim 1986; with "
                                              "several columns)", None),
                      widget=OptionWidget("checkbox", "Noise correlated like the data", "correlated", min_columns=2)),
    ),
    toggles={"truncate": Toggle("Truncate released values from below (Eq 11)", "trunc_on",
                                "off by default, as on the command line: released values keep the noise's sign"),
             "unequal": Toggle("Unequal variance for sensitive values", "unequal_on",
                               "the paper's Figure 7 doubles the noise variance above $35K")},
    make_masker=_noise_masker,
    published_lambda2=_noise_lambda2,
    check_options=_noise_spec,
    prepare=_noise_prepare,
    release=NOISE_STEP,
    on_subsample=None,
)


# --- microaggregation ----------------------------------------------------------------------


def _microaggregation_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.microaggregation import microaggregate_kernel

    opts = plan.config.method_options

    def masked(j: int) -> Masked:  # k <= n and the budget of every k were checked when the plan was made
        result = microaggregate_kernel(plan.x, int(plan.config.values[j]), opts["algorithm"], bool(opts["standardize"]),
                                 opts["criterion"])
        data = np.asarray(result.masked, dtype=float).reshape(plan.x.shape)[None]
        return data, moments(data)

    return masked


def _microaggregation_cost(n: int, p: int, values: Sequence[float], options: Mapping[str, Any]) -> tuple[float, str]:
    algorithm = ALGORITHMS[options["algorithm"]]
    return sum(algorithm.cost(n, p, max(int(k), 1)) for k in values), " + the microaggregation of each k"


def _check_microaggregation_step(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"k": int(check_parameter("k", parameters["k"])),
            "algorithm": check_parameter("algorithm", parameters["algorithm"], StrOptions(list(ALGORITHMS))),
            "standardize": check_parameter("standardize", parameters["standardize"], JsonBoolean()),
            "criterion": check_parameter("criterion", parameters["criterion"], StrOptions(list(CRITERIA)))}


#: Microaggregation algorithms whose work grows with the square of the records.
QUADRATIC = ("mdav", "mwa")


def _microaggregation_file_work(parameters: Mapping[str, Any], n: int, p: int, budget: WorkBudget) -> None:
    """Refuse a step whose algorithm's work on ``n`` records of ``p`` columns exceeds ``budget``, naming the
    algorithms linear in the records for a quadratic one."""
    name, k = parameters["algorithm"], int(parameters["k"])
    try:
        budget.check_work(ALGORITHMS[name].cost(n, p, max(k, 1)), f"{name} of {n} records x {p} variables, k = {k}")
    except InputError as exc:
        hint = (f"; {name} is quadratic in the records: the algorithm mdav_partitioned (MDAV within parts of "
                "1,000 records) or optimal_pc1 is linear" if name in QUADRATIC else "")
        raise InputError(f"{exc}{hint}") from None


def _release_microaggregation(x: np.ndarray, parameters: Mapping[str, Any], columns: tuple[str, ...],
                              seed: int | None, budget: WorkBudget) -> tuple[np.ndarray, dict]:
    p = parameters  # the public function: the release's one comparison of k with the file's records
    result = microaggregate(x, p["k"], p["algorithm"], standardize=p["standardize"], criterion=p["criterion"],
                            columns=list(columns), budget=budget)
    summary = {"groups": int(result.group_sizes.size), "information_loss": result.information_loss,
               "standardized": result.standardized}  # SSE/SST, not SSE and SST: sums of squares are aggregates
    return np.asarray(result.masked, dtype=float), summary


_MICROAGGREGATION = MaskingMethod(
    description="microaggregation",
    grids=(GridParameter("k", "k", "k", "records", 1.0, (2, 10, 0),
                         Flag("--k", "microaggregation group sizes", str, "START:STOP[:STEP]"), integer=True,
                         widget_keys=("k_start", "k_stop"), at_most_records=True),),
    options=(
        MethodOption("algorithm", "mdav", StrOptions(ALGORITHMS),
                     Flag("--algorithm", f"{', '.join(list(ALGORITHMS)[:-1])} or {list(ALGORITHMS)[-1]} "
                                         "(default mdav)", str, always=True),
                     OptionWidget("select", "Algorithm", "algorithm")),
        MethodOption("standardize", False, Boolean(), Flag("--standardize", "standardize the columns first", None),
                     OptionWidget("checkbox", "Standardize the variables", "standardize")),
        MethodOption("criterion", "pc1", StrOptions(CRITERIA),
                     Flag("--criterion", "sorting criterion of 'fixed' (default pc1)", str)),
    ),
    preserves_mean=True,
    deterministic=True,
    make_masker=_microaggregation_masker,
    cost=_microaggregation_cost,
    release=ReleaseStep(_release_microaggregation,
                        parameters={"k": REQUIRED, "algorithm": "mdav", "standardize": False, "criterion": "pc1"},
                        check=_check_microaggregation_step, file_work=_microaggregation_file_work),
    on_subsample="its groups are made of the other records: a subsample's groups are wider than the file's",
)


# --- rank swapping -------------------------------------------------------------------------


def _rankswap_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.swapping import rank_swap_kernel

    seeds = [np.random.SeedSequence(plan.config.seed, spawn_key=(int(m),)).generate_state(1)[0] for m in reps]

    def masked(j: int) -> Masked:
        percent = float(plan.config.values[j])
        data = np.stack([rank_swap_kernel(plan.x, percent, np.random.default_rng(int(s))) for s in seeds])
        return data, moments(data)

    return masked


def _release_rankswap(x: np.ndarray, parameters: Mapping[str, Any], columns: tuple[str, ...], seed: int | None,
                      budget: WorkBudget) -> tuple[np.ndarray, dict]:
    from rumap.masking.swapping import rank_swap

    return np.asarray(rank_swap(x, parameters["swap_percent"], seed=seed), dtype=float), {}


def _check_rankswap_step(parameters: dict, names: tuple[str, ...]) -> dict:
    return {"swap_percent": float(check_parameter("swap_percent", parameters["swap_percent"]))}


_RANKSWAP = MaskingMethod(
    description="rank swapping",
    grids=(GridParameter("swap_percent", "p%", "swap %", "percent", 0.0, (1.0, 20.0, 10),
                         Flag("--swap-percent", "rank swapping windows, %% of the records", str, "START:STOP:NUM"),
                         widget_keys=("swap_start", "swap_stop", "swap_num"), count_label="number of values"),),
    preserves_mean=True,
    make_masker=_rankswap_masker,
    release=ReleaseStep(_release_rankswap, parameters={"swap_percent": REQUIRED}, check=_check_rankswap_step),
    on_subsample="a record's partners lie within p% of the records' ranks: they depend on the other records",
)


#: Masking methods of the engine, by name: adding one is one entry (or :func:`register_method`).
METHODS: dict[str, MaskingMethod] = {"noise": _NOISE, "microaggregation": _MICROAGGREGATION, "rankswap": _RANKSWAP}


#: Names of the other methods of a release plan (:func:`reserve_method_names`), which no masking method may take.
_RESERVED: list[Collection[str]] = []


@assumes_valid
def reserve_method_names(names: Collection[str]) -> None:
    """Refuse ``names`` to :func:`register_method`: the release's registry gives its other methods' names.

    Parameters
    ----------
    names : collection of str
        A live view (read at each registration).

    Raises
    ------
    InputError
        A masking method registered already under one of ``names``.
    """
    taken = [name for name in names if name in METHODS]
    if taken:
        raise InputError(f"a masking method {taken[0]!r} exists already under the name of another method")
    _RESERVED.append(names)


@assumes_valid
def register_method(name: str, method: MaskingMethod, *, replace: bool = False) -> MaskingMethod:
    """Add a masking method to :data:`METHODS`: the command line, the Empirical page and the specs then offer it.

    Parameters
    ----------
    name : str
        Its name (``--method NAME``, ``SimulationConfig(method=NAME)``):
        lower-case letters, digits and underscores.
    method : MaskingMethod
        Its record.
    replace : bool, default False
        Whether it may replace a method of that name.

    Returns
    -------
    MaskingMethod
        ``method``.

    Raises
    ------
    InputError
        A name that is taken (also by another method of a release plan's
        registry, :data:`rumap.release.registry.STEP_METHODS`, once loaded) or
        not a plain name, a grid parameter without a :data:`PARAMETERS` entry,
        a flag that another method's grid or option has (a grid flag may be
        shared by the same grid parameter, as ``--k``), or a record that
        another process cannot rebuild: worker processes (the dashboard's, a
        Dask cluster's) receive the record itself and import each of its
        functions by name, so a function must be defined at the top level of
        an importable module (not a lambda, a function defined inside another,
        or one of ``__main__``).

    Examples
    --------
    >>> from rumap.maps.methods import METHODS, register_method
    >>> swap = METHODS["rankswap"]
    >>> register_method("swap_again", MaskingMethod("rank swapping again", swap.grids, swap.make_masker))
    ...                                                                      # doctest: +ELLIPSIS
    MaskingMethod(description='rank swapping again', ...)
    >>> "swap_again" in METHODS
    True
    >>> del METHODS["swap_again"]
    """
    if not isinstance(name, str) or not name or not all(c.islower() or c.isdigit() or c == "_" for c in name) \
            or not name.isascii() or name[0].isdigit():
        raise InputError(f"name must be lower-case letters, digits and underscores, got {name!r}")
    if not isinstance(method, MaskingMethod):
        raise InputError(f"method must be a MaskingMethod, got {type(method).__name__}")
    if any(name in names for names in _RESERVED) or (name in METHODS and not replace):
        raise InputError(f"a masking method {name!r} exists already")
    for grid in method.grids:
        if grid.entry not in PARAMETERS:
            raise InputError(f"the grid parameter {grid.entry!r} of method {name!r} has no entry in PARAMETERS")
    taken = {g.flag.flag: ("grid", g.name) for other, m in METHODS.items() if other != name for g in m.grids}
    taken.update({o.flag.flag: ("option", o.name) for other, m in METHODS.items() if other != name
                  for o in m.options if o.flag is not None})
    own = [(g.flag.flag, ("grid", g.name)) for g in method.grids]
    own += [(o.flag.flag, ("option", o.name)) for o in method.options if o.flag is not None]
    for flag, meaning in own:
        if flag in taken and taken[flag] != meaning:  # a grid flag is shared only by the same grid parameter
            raise InputError(f"the flag {flag} of method {name!r} is taken by another method's {taken[flag][0]} "
                             f"{taken[flag][1]!r}")
    _check_sendable(name, method)
    METHODS[name] = method
    return method


class _SendingPickler(pickle.Pickler):
    """A pickler that refuses a function or class of ``__main__``, which another process's ``__main__`` lacks."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, (types.FunctionType, type)) and getattr(obj, "__module__", None) == "__main__":
            raise pickle.PicklingError(f"{obj.__qualname__} is defined in __main__")
        return NotImplemented


def _check_sendable(name: str, method: MaskingMethod) -> None:
    """Refuse a record that another process cannot rebuild (:func:`install_methods` receives it pickled)."""
    try:
        _SendingPickler(io.BytesIO()).dump(method)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise InputError(f"the record of method {name!r} cannot be sent to worker processes ({exc}): define its "
                         "functions at the top level of an importable module, not as a lambda, inside another "
                         "function or in __main__") from None


#: The records this module defines, which every process that imports it holds.
_OWN: dict[str, MaskingMethod] = dict(METHODS)
#: The names :func:`install_methods` put into this process's registry.
_INSTALLED: set[str] = set()


@assumes_valid
def registered_methods() -> dict[str, MaskingMethod]:
    """The records of :data:`METHODS` that are not this module's own: what a worker process must be sent.

    A process that imports rumap holds the methods this module defines, not one
    that :func:`register_method` added in another process. A front end that runs
    a map in another process (the dashboard's workers, a Dask cluster) sends
    these records with the work, and the worker installs them
    (:func:`install_methods`).

    Returns
    -------
    dict of str to MaskingMethod
        By name, in registration order; empty when no method was added or replaced.

    Examples
    --------
    >>> from rumap.maps.methods import METHODS, register_method, registered_methods
    >>> "swap_again" in registered_methods()
    False
    >>> _ = register_method("swap_again", METHODS["rankswap"])
    >>> registered_methods()["swap_again"] is METHODS["rankswap"]
    True
    >>> del METHODS["swap_again"]
    """
    return {name: method for name, method in METHODS.items() if _OWN.get(name) is not method}


@assumes_valid
def install_methods(methods: Mapping[str, MaskingMethod]) -> None:
    """Make this process's :data:`METHODS` hold ``methods``, what :func:`registered_methods` gave in another process.

    A method installed by an earlier call and not among ``methods`` is removed
    (one of this module's own is restored), so that a worker's registry follows the sender's from one run to the next.

    Parameters
    ----------
    methods : mapping of str to MaskingMethod
        By name; each was checked by :func:`register_method` where it was registered.

    Examples
    --------
    >>> import pickle
    >>> from rumap.maps.methods import METHODS, install_methods
    >>> received = pickle.loads(pickle.dumps({"swap_again": METHODS["rankswap"]}))  # as a worker receives it
    >>> install_methods(received)
    >>> METHODS["swap_again"] == METHODS["rankswap"]
    True
    >>> install_methods({})
    >>> "swap_again" in METHODS
    False
    """
    for name in _INSTALLED - set(methods):  # this module's own record again, or none
        if name in _OWN:
            METHODS[name] = _OWN[name]
        else:
            METHODS.pop(name, None)
    _INSTALLED.intersection_update(methods)
    for name, method in methods.items():
        if METHODS.get(name) is not method:
            METHODS[name] = method
            _INSTALLED.add(name)


class _GridField(Mapping[str, Any]):
    """A live view, by grid parameter, of one field of the grid parameters of :data:`METHODS`."""

    def __init__(self, attribute: str) -> None:
        self._attribute = attribute

    def _table(self) -> dict[str, Any]:
        return {g.name: getattr(g, self._attribute) for m in METHODS.values() for g in m.grids}

    def __getitem__(self, key: str) -> Any:
        return self._table()[key]

    def __iter__(self) -> Any:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return repr(self._table())


#: The symbol of every grid parameter of :data:`METHODS` in plots and statements, by name (read from the records).
PARAMETER_SYMBOLS: Mapping[str, str] = _GridField("symbol")
#: The value of every grid parameter of :data:`METHODS` that masks nothing, by name (read from the records).
UNMASKED: Mapping[str, float] = _GridField("unmasked")
