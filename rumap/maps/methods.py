"""The masking methods of the simulation engine: one record per method, and the engine's random streams.

A :class:`MaskingMethod` holds everything every layer needs to know about a
method, so that no layer branches on a method's name:

- its kernel (``make_masker``: the masked data of a chunk of replicates) and
  what it needs of the data once (``prepare``), its cost for the work budget;
- its grid parameter(s), each a :class:`GridParameter`: name, symbol, bounds
  (its :data:`rumap._validation.PARAMETERS` entry), default grid, units, the
  value that masks nothing, its command-line flag and its widgets' keys;
- its options, each a :class:`MethodOption`: default, constraint, flag
  (:class:`Flag`) and widget (:class:`OptionWidget`);
- how utility sees it (``preserves_mean``) and its plain-language
  ``description``.

The command line's ``simulate`` parser, the Empirical page's widgets,
:class:`rumap.maps.simulation.SimulationConfig`'s checks, the plots' symbols,
the statements and the reproducing command are all read from these records.
Adding a method is one function that masks and one :func:`register_method`
call (or one entry in :data:`METHODS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import (
    PARAMETERS,
    Boolean,
    Constraint,
    Interval,
    StrOptions,
    assumes_valid,
    check_array,
)
from rumap.errors import InputError
from rumap.maps.moments import mask_with_moments, moments
from rumap.masking.microaggregation import ALGORITHMS, CRITERIA
from rumap.masking.noise import NoiseSpec, noise_shape, standard_noise

if TYPE_CHECKING:
    from rumap.maps.simulation import _Plan

__all__ = ["MaskingMethod", "GridParameter", "MethodOption", "OptionWidget", "Flag", "Toggle", "METHODS",
           "register_method", "replicate_generator", "PARAMETER_SYMBOLS", "UNMASKED"]

#: What a masker gives for one grid value: the masked replicates (r, n, p) and their column (means, variances).
Masked = tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


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


@dataclass(frozen=True)
class Flag:
    """The command-line flag of a method's option.

    Parameters
    ----------
    flag : str
        Such as ``"--algorithm"``.
    help : str
        Its help line.
    type : type or None, default float
        What argparse converts the text to; ``None`` makes a switch (``store_true``).
    metavar : str, optional
    exclusive : str, default ""
        Flags sharing a non-empty name exclude each other.
    needs : tuple of str
        Options one of which must be given with it.
    always : bool, default False
        The reproducing command writes it even at its default value.
    """

    flag: str
    help: str
    type: type | None = float
    metavar: str | None = None
    exclusive: str = ""
    needs: tuple[str, ...] = ()
    always: bool = False


@dataclass(frozen=True)
class OptionWidget:
    """The dashboard's widget of a method's option.

    Parameters
    ----------
    kind : {"checkbox", "select", "number"}
        A number reads its bounds from the option's :data:`PARAMETERS` entry.
    label : str
    key : str
        Its session-state key after the page's prefix.
    default : object or callable, optional
        The value before the user sets one (default: the option's default), or
        ``default(data, column)`` for a value read from the data (shape (n, p))
        and the attacked column; such a widget is reset when the data change.
    help : str, default ""
    min_columns : int, default 1
        Shown only for data with at least this many columns.
    """

    kind: str
    label: str
    key: str
    default: Any = None
    help: str = ""
    min_columns: int = 1


@dataclass(frozen=True)
class Toggle:
    """A checkbox that turns a group of options on (off: they keep their defaults).

    Parameters
    ----------
    label, key : str
        The checkbox's label and session-state key after the page's prefix.
    help : str, default ""
    """

    label: str
    key: str
    help: str = ""


@dataclass(frozen=True)
class MethodOption:
    """An option of a masking method.

    Parameters
    ----------
    name : str
        Its key in ``SimulationConfig.method_options``.
    default : object
    check : Constraint, optional
        What it may be, checked when a config is built (None: ``check_options``
        of the method checks it).
    flag : Flag, optional
        Its flag of ``simulate`` (None: no flag of its own).
    widget : OptionWidget, optional
        Its widget on the Empirical page (None: no widget of its own).
    toggle : str, default ""
        The key of the method's :attr:`MaskingMethod.toggles` that turns it on.
    follows : str, default ""
        ``"target_column"``: it takes the index of the attacked column, on the
        command line and on the page.
    note : str, default ""
        For a ``follows`` option: what the reproducing command notes when the
        option (its toggle group on) takes another value than it follows.
    """

    name: str
    default: Any
    check: Constraint | None = None
    flag: Flag | None = None
    widget: OptionWidget | None = None
    toggle: str = ""
    follows: str = ""
    note: str = ""


@dataclass(frozen=True)
class GridParameter:
    """The parameter a method's grid is given in.

    Parameters
    ----------
    name : str
        ``SimulationConfig.parameter``, the map's ``parameter``.
    symbol : str
        Its symbol in plots and statements, such as ``"λ²"``.
    label : str
        Its words on widgets, such as ``"swap %"``.
    units : str
        What a value is measured in.
    unmasked : float
        The value that masks nothing.
    default_grid : tuple
        ``(start, stop, num)`` of the page's grid (``num`` unused for integers).
    flag : Flag
        Its grid flag of ``simulate`` (``START:STOP:NUM`` or ``START:STOP[:STEP]``).
    integer : bool, default False
        Whether the values are integers (every integer from start to stop).
    bound : str, default ""
        Its :data:`PARAMETERS` entry when it is not ``name`` (bounds and messages).
    implies : mapping
        Options that choosing this grid sets (noise's ``lambda2_frac``: ``relative``).
    widget_keys : tuple of str
        The session-state keys (after the page's prefix) of start, stop and num.
    count_label : str, default ""
        The label of the input of how many values (default ``"number of {label} values"``).
    at_most_records : bool, default False
        Whether every value must be at most the number of records.
    """

    name: str
    symbol: str
    label: str
    units: str
    unmasked: float
    default_grid: tuple[float, float, int]
    flag: Flag
    integer: bool = False
    bound: str = ""
    implies: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    widget_keys: tuple[str, ...] = ("start", "stop", "num")
    at_most_records: bool = False
    count_label: str = ""

    @property
    def entry(self) -> str:
        """Its :data:`PARAMETERS` entry."""
        return self.bound or self.name

    @property
    def interval(self) -> Interval:
        """Its bounds: the :data:`PARAMETERS` entry."""
        return PARAMETERS[self.entry]

    def check(self, values: Sequence[float]) -> tuple:
        """The grid checked against :attr:`interval` (integers for an integer grid), as a tuple."""
        arr = check_array(self.entry, values)
        if not self.integer:
            return tuple(float(v) for v in arr)
        if np.any(arr != np.round(arr)):
            raise InputError(f"every {self.entry} must be {self.interval.describe()}, "
                             f"got {arr[np.argmax(arr != np.round(arr))]!r}")
        return tuple(int(v) for v in arr)

    def check_records(self, values: Sequence[float], n_records: int) -> None:
        """Refuse a value above the number of records, for a parameter that cannot exceed it."""
        if self.at_most_records and len(values) and max(values) > n_records:
            raise InputError(f"{self.name} must be at most the number of records ({n_records}), got {max(values)}")


@dataclass(frozen=True)
class MaskingMethod:
    """A masking method of the engine: everything the layers need to know about it, in one record.

    Parameters
    ----------
    description : str
        The method in plain words (``"rank swapping"``).
    grids : tuple of GridParameter
        The parameters its grid can be given in; the first whose ``implies``
        the options match is the one a run uses.
    make_masker : callable
        ``make_masker(plan, replicates) -> masked(j)``: the masked data of each
        replicate at grid value ``j``, shape (replicates, n, p), and their
        column means and variances (:func:`rumap.maps.moments.moments`). It
        trusts the plan: the config and data were checked when it was made.
    options : tuple of MethodOption
    preserves_mean : bool
        Whether it keeps every column's mean exactly: a mean-based utility then
        cannot tell its parameter values apart (its label says so).
    deterministic : bool
        Whether the masked data are a function of the data alone (one replicate).
    published_lambda2 : callable, optional
        ``published_lambda2(plan, j)``: the noise variance of the attacked
        column that the agency publishes (what knowledge ``corrected`` needs).
    check_options : callable, optional
        ``check_options(options)``: the checks that relate options to each other.
    prepare : callable, optional
        ``prepare(x, options)``: what every chunk needs of the data, made once.
    cost : callable, optional
        ``cost(n, p, values, options) -> (steps, words)``: work beyond masking
        each copy, for the work budget (:mod:`rumap.budget`).
    toggles : mapping of str to Toggle
        Checkboxes that turn groups of options on.
    title : str, default ""
        The heading of its flags in ``simulate --help`` (default: ``description``).
    """

    description: str
    grids: tuple[GridParameter, ...]
    make_masker: Callable[[_Plan, np.ndarray], Callable[[int], Masked]]
    options: tuple[MethodOption, ...] = ()
    preserves_mean: bool = False
    deterministic: bool = False
    published_lambda2: Callable[[_Plan, int], float] | None = None
    check_options: Callable[[Mapping[str, Any]], Any] | None = None
    prepare: Callable[[np.ndarray, Mapping[str, Any]], Any] | None = None
    cost: Callable[[int, int, Sequence[float], Mapping[str, Any]], tuple[float, str]] | None = None
    toggles: Mapping[str, Toggle] = field(default_factory=lambda: _EMPTY)
    title: str = ""

    @property
    def parameters(self) -> tuple[str, ...]:
        """The names its grid can be given in; the first is the default."""
        return tuple(g.name for g in self.grids)

    @property
    def defaults(self) -> dict[str, Any]:
        """Its options and their default values."""
        return {o.name: o.default for o in self.options}

    @property
    def integer_grid(self) -> bool:
        """Whether its grid values are integers."""
        return self.grids[0].integer

    def grid(self, options: Mapping[str, Any]) -> GridParameter:
        """The grid parameter a run with ``options`` uses."""
        full = {**self.defaults, **options}
        for g in self.grids:
            if all(full.get(k) == v for k, v in g.implies.items()):
                return g
        return self.grids[0]

    def parameter(self, options: Mapping[str, Any]) -> str:
        """The name of the grid parameter a run with ``options`` uses."""
        return self.grid(options).name

    def checked_options(self, name: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` with the defaults filled in, each checked; unknown options are refused naming ``name``."""
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            raise InputError(f"unknown option(s) {', '.join(map(repr, unknown))} for method {name!r}; "
                             f"options are {', '.join(self.defaults) or '(none)'}")
        full = {**self.defaults, **options}
        for option in self.options:
            if option.check is not None:
                full[option.name] = option.check.check(option.name, full[option.name])
        if self.check_options is not None:
            self.check_options(full)
        return full

    def _toggled_on(self, option: MethodOption, full: Mapping[str, Any]) -> bool:
        """Whether ``option``'s toggle group is in use: one of its flags that need no other is set."""
        return any(full.get(o.name, o.default) != o.default for o in self.options
                   if o.toggle == option.toggle and o.flag is not None and not o.flag.needs)

    def idle_options(self, options: Mapping[str, Any]) -> set[str]:
        """The options of toggle groups not in use (unequal noise's factor without sensitive records).

        Parameters
        ----------
        options : mapping
            Options by name (missing ones at their defaults).

        Returns
        -------
        set of str
        """
        return {o.name for o in self.options if o.toggle and not self._toggled_on(o, options)}

    def command_flags(self, options: Mapping[str, Any], target_column: int) -> tuple[list[str], list[str]]:
        """The ``simulate`` flags that give ``options``, and notes on what no flag can give.

        Parameters
        ----------
        options : mapping
            A config's ``method_options``.
        target_column : int
            The attacked column's index (what a ``follows`` option takes on the command line).

        Returns
        -------
        flags : list of str
        notes : list of str
        """
        full = {**self.defaults, **options}
        given = {o.name for o in self.options if o.flag is not None and o.flag.type is not None
                 and full[o.name] is not None and full[o.name] != o.default}
        parts: list[str] = []
        notes: list[str] = []
        for o in self.options:
            value = full[o.name]
            if o.follows:
                if o.note and int(value) != int(target_column) and self._toggled_on(o, full):
                    notes.append(o.note)
                continue
            if o.flag is None or value is None:
                continue
            wanted = bool(given & set(o.flag.needs)) if o.flag.needs else (o.flag.always or o.name in given)
            if o.flag.type is None:
                parts += [o.flag.flag] if value else []
            elif wanted:
                parts += [o.flag.flag, _flag_text(value)]
        return parts, notes


    def step_parameters(self, options: Mapping[str, Any], value: float, columns: Sequence[str]) -> dict[str, Any]:
        """The parameters of the release step that masks at ``value`` with ``options``: a map's point as a step.

        Parameters
        ----------
        options : mapping
            A config's ``method_options`` (every option present).
        value : float
            The grid parameter's value.
        columns : sequence of str
            The masked columns: an option that follows the attacked column becomes its name.

        Returns
        -------
        dict
            The grid parameter's name and value, then every option the grid does not imply.
        """
        implied = {key for grid in self.grids for key in grid.implies}
        out: dict[str, Any] = {self.grid(options).name: value}
        for o in self.options:
            if o.name in implied:
                continue
            out[o.name] = options[o.name]
            if o.follows:
                column = int(options[o.name])
                if not 0 <= column < len(columns):
                    raise InputError(f"{o.name} {column} is not one of the map's {len(columns)} column(s)")
                out[o.name] = columns[column]
        return out

    def map_options(self, parameters: Mapping[str, Any], columns: Sequence[str]) -> tuple[dict[str, Any], float]:
        """The options and the grid value of a release step's parameters (:meth:`step_parameters` read back).

        Parameters
        ----------
        parameters : mapping
            A checked step's parameters.
        columns : sequence of str
            The step's columns.

        Returns
        -------
        options : dict
        value : float
        """
        grid = next(g for g in self.grids if parameters.get(g.name) is not None)
        options = {o.name: parameters[o.name] for o in self.options if o.name in parameters}
        for o in self.options:
            if o.follows and o.name in options:
                options[o.name] = list(columns).index(options[o.name])
        return {**options, **grid.implies}, parameters[grid.name]


def _flag_text(value: Any) -> str:
    """A value as the command line writes it: a number as the shortest text that reads back (``2`` for 2.0)."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        text = repr(float(value))
        return text.removesuffix(".0") if float(value).is_integer() else text
    return str(value)


# --- additive noise ------------------------------------------------------------------------


def _noise_spec(options: Mapping[str, Any]) -> NoiseSpec:
    return NoiseSpec(**{k: options[k] for k in (f.name for f in fields(NoiseSpec))})


def _noise_prepare(x: np.ndarray, options: Mapping[str, Any]) -> tuple[NoiseSpec, np.ndarray, np.ndarray | None]:
    spec = _noise_spec(options)
    return spec, noise_shape(x, spec), spec.variance_factor(x)


def _noise_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    spec, shape, factor = plan.prepared  # made once per run, not per chunk
    noise = np.stack([standard_noise(replicate_generator(plan.config.seed, m), plan.x, spec, shape, factor)
                      for m in reps])
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
                      widget=OptionWidget("number", "lower bound", "trunc", 0.0), toggle="truncate"),
        _noise_option("truncate_above", flag=Flag("--truncate-above", "release min(V, x + e)", metavar="V")),
        _noise_option("unequal_above", flag=Flag("--unequal-above", "multiply the noise variance of records whose "
                                                 "attacked column is above T by --unequal-factor (Figure 7)",
                                                 metavar="T", exclusive="unequal"),
                      widget=OptionWidget("number", "sensitive above", "unequal_above", _sensitive_threshold),
                      toggle="unequal"),
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
)


# --- microaggregation ----------------------------------------------------------------------


def _microaggregation_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.microaggregation import _microaggregate

    opts = plan.config.method_options

    def masked(j: int) -> Masked:  # k <= n and the budget of every k were checked when the plan was made
        result = _microaggregate(plan.x, int(plan.config.values[j]), opts["algorithm"], bool(opts["standardize"]),
                                 opts["criterion"])
        data = np.asarray(result.masked, dtype=float).reshape(plan.x.shape)[None]
        return data, moments(data)

    return masked


def _microaggregation_cost(n: int, p: int, values: Sequence[float], options: Mapping[str, Any]) -> tuple[float, str]:
    algorithm = ALGORITHMS[options["algorithm"]]
    return sum(algorithm.cost(n, p, max(int(k), 1)) for k in values), " + the microaggregation of each k"


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
)


# --- rank swapping -------------------------------------------------------------------------


def _rankswap_masker(plan: _Plan, reps: np.ndarray) -> Callable[[int], Masked]:
    from rumap.masking.swapping import _rank_swap

    seeds = [np.random.SeedSequence(plan.config.seed, spawn_key=(int(m),)).generate_state(1)[0] for m in reps]

    def masked(j: int) -> Masked:
        percent = float(plan.config.values[j])
        data = np.stack([_rank_swap(plan.x, percent, np.random.default_rng(int(s))) for s in seeds])
        return data, moments(data)

    return masked


_RANKSWAP = MaskingMethod(
    description="rank swapping",
    grids=(GridParameter("swap_percent", "p%", "swap %", "percent", 0.0, (1.0, 20.0, 10),
                         Flag("--swap-percent", "rank swapping windows, %% of the records", str, "START:STOP:NUM"),
                         widget_keys=("swap_start", "swap_stop", "swap_num"), count_label="number of values"),),
    preserves_mean=True,
    make_masker=_rankswap_masker,
)


#: Masking methods of the engine, by name: adding one is one entry (or :func:`register_method`).
METHODS: dict[str, MaskingMethod] = {"noise": _NOISE, "microaggregation": _MICROAGGREGATION, "rankswap": _RANKSWAP}


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
        A name that is taken (also by a categorical method of ``simulate``) or
        not a plain name, a grid parameter without a :data:`PARAMETERS` entry,
        or a flag that another method's grid or option has (a grid flag may be
        shared by the same grid parameter, as ``--k``).

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
    from rumap.maps.categorical import CATEGORICAL_METHODS

    if not isinstance(name, str) or not name or not all(c.islower() or c.isdigit() or c == "_" for c in name) \
            or not name.isascii() or name[0].isdigit():
        raise InputError(f"name must be lower-case letters, digits and underscores, got {name!r}")
    if not isinstance(method, MaskingMethod):
        raise InputError(f"method must be a MaskingMethod, got {type(method).__name__}")
    if name in CATEGORICAL_METHODS or (name in METHODS and not replace):
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
    METHODS[name] = method
    return method


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
