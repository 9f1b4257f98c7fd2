"""The record types of the engine's masking methods: what every layer needs to know about a method.

A :class:`MaskingMethod` holds everything every layer needs to know about a
method, so that no layer branches on a method's name:

- its kernel (``make_masker``: the masked data of a chunk of replicates) and
  what it needs of the data once (``prepare``), its cost for the work budget;
- its grid parameter(s), each a :class:`GridParameter`: name, symbol, bounds
  (its :data:`rumap._validation.PARAMETERS` entry), default grid, units, the
  value that masks nothing, its command-line flag and its widgets' keys;
- its options, each a :class:`MethodOption`: default, constraint, flag
  (:class:`Flag`) and widget (:class:`OptionWidget`), some turned on by a
  :class:`Toggle`;
- how utility sees it (``preserves_mean``) and its plain-language
  ``description``;
- its step of a release plan (``release``, a :class:`ReleaseStep`): how it
  masks a file's columns at one value of its parameter, with the step's seed.

The methods themselves (their kernels and records), the registry
:data:`rumap.maps.methods.METHODS` and
:func:`rumap.maps.methods.register_method` are in :mod:`rumap.maps.methods`,
which re-exports these types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from rumap._validation import PARAMETERS, Constraint, Interval, assumes_valid, check_array
from rumap.errors import InputError

if TYPE_CHECKING:
    from rumap.budget import WorkBudget

__all__ = ["MaskingMethod", "GridParameter", "MethodOption", "OptionWidget", "Flag", "Toggle", "ReleaseStep",
           "Masked", "MaskingPlan", "grid_values", "LiveTable", "UNKNOWN_ON_SUBSAMPLE"]


class MaskingPlan(Protocol):
    """What a method's masker is given: the engine's plan of a run (:mod:`rumap.maps.simulation` makes it).

    Attributes
    ----------
    x : ndarray, shape (n, p)
        The data, checked.
    config : SimulationConfig
        The run's configuration (:class:`rumap.maps.simulation.SimulationConfig`): its grid and options.
    prepared : object
        What the method's ``prepare`` made of the data once (None without one).
    """

    x: np.ndarray
    config: Any
    prepared: Any

#: What a masker gives for one grid value: the masked replicates (r, n, p) and their column (means, variances).
Masked = tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@assumes_valid
def grid_values(start: float, stop: float, num: int | None = None, *, integer: bool = False,
                step: int = 1) -> np.ndarray:
    """The values of a grid from its ends: every ``step``-th integer from start to stop, or ``num`` evenly spaced.

    Evenly spaced values are rounded to 15 significant digits, so a grid
    from 0.05 to 2 holds 0.4, as typed, not 0.39999999999999997.

    The one expansion of a grid's ends: the command line's ``START:STOP:NUM``
    and ``START:STOP[:STEP]`` (:func:`rumap.cli.flags.parse_grid`), the
    Empirical page's grid inputs (:meth:`GridParameter.values`) and the
    categorical maps' default grids
    (:meth:`rumap.maps.key_method.CategoricalMethod.values`). The ends are
    trusted: the callers check them.

    Parameters
    ----------
    start, stop : float
        The first and last values (both included).
    num : int, optional
        How many evenly spaced values (unused for integers).
    integer : bool, default False
        Integers from ``start`` to ``stop``.
    step : int, default 1
        The step between two integers.

    Returns
    -------
    ndarray
        Of ints for an integer grid, else of floats.

    Examples
    --------
    >>> grid_values(0.2, 1.0, 5).tolist()
    [0.2, 0.4, 0.6, 0.8, 1.0]
    >>> grid_values(2, 10, integer=True, step=4).tolist()
    [2, 6, 10]
    """
    if integer:
        return np.arange(int(start), int(stop) + 1, int(step), dtype=int)
    # at 15 significant digits: the decimal a user means (0.4, not linspace's 0.39999999999999997)
    return np.array([float(f"{v:.15g}") for v in np.linspace(start, stop, int(num)).tolist()])


def _rebuilt(cls: type, values: dict[str, Any], proxies: tuple[str, ...]) -> Any:
    """A record from its fields, the read-only mappings among them read-only again (what :func:`_reduced` sends)."""
    return cls(**{**values, **{name: MappingProxyType(values[name]) for name in proxies}})


def _reduced(record: Any) -> tuple:
    """How pickle sends a record holding read-only mappings (which pickle cannot send) to another process."""
    values = {f.name: getattr(record, f.name) for f in fields(record)}
    proxies = tuple(name for name, value in values.items() if isinstance(value, MappingProxyType))
    return _rebuilt, (type(record), {**values, **{name: dict(values[name]) for name in proxies}}, proxies)


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
    repeat : bool, default False
        The flag may be given several times (argparse's ``append``).
    """

    flag: str
    help: str
    type: type | None = float
    metavar: str | None = None
    exclusive: str = ""
    needs: tuple[str, ...] = ()
    always: bool = False
    repeat: bool = False

    @property
    def dest(self) -> str:
        """The attribute argparse stores it in: ``--carry-along`` -> ``carry_along``."""
        return self.flag.lstrip("-").replace("-", "_")


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
    bound : str, default ""
        For a number: its :data:`PARAMETERS` entry when it is not ``name``
        (the bounds and help of its widget).
    """

    name: str
    default: Any
    check: Constraint | None = None
    flag: Flag | None = None
    widget: OptionWidget | None = None
    toggle: str = ""
    follows: str = ""
    note: str = ""
    bound: str = ""

    @property
    def entry(self) -> str:
        """Its :data:`PARAMETERS` entry (for a number)."""
        return self.bound or self.name


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

    __reduce__ = _reduced

    @property
    def entry(self) -> str:
        """Its :data:`PARAMETERS` entry."""
        return self.bound or self.name

    @property
    def interval(self) -> Interval:
        """Its bounds: the :data:`PARAMETERS` entry."""
        return PARAMETERS[self.entry]

    def values(self, start: float, stop: float, num: int | None = None) -> list:
        """The grid from ``start`` to ``stop`` (``num`` values, or every integer for an integer grid), as a list."""
        return grid_values(start, stop, num, integer=self.integer).tolist()

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
class ReleaseStep:
    """A masking method as a step of a release plan: it masks a file's columns at one value of its parameter.

    :data:`rumap.release.registry.STEP_METHODS` holds a step method for every
    record of :data:`rumap.maps.methods.METHODS` that has one, under the
    method's name; the release plan, ``python -m rumap release`` and the
    Release page find it there.

    Parameters
    ----------
    mask : callable
        ``mask(x, parameters, columns, seed, budget) -> (masked, summary)``:
        the step's columns ``x`` (a finite (n, p) float array in C order)
        masked at the step's checked ``parameters`` with its ``seed`` (None for
        a deterministic method), and what the step did, counts only (a dict,
        empty for nothing to say). ``columns`` are the columns' names.
    parameters : mapping, optional
        The step's parameters and their defaults
        (:data:`rumap.release.methods.REQUIRED` for one it must give). Default:
        the grid parameter, required (with several grids, each ``None`` and one
        of them given), then every option the grids do not imply, at its
        default.
    check : callable, optional
        ``check(parameters, columns) -> parameters``: the step's parameters
        checked and converted. Default: the grid parameter's value within its
        :data:`PARAMETERS` entry and the options as the record checks them
        (an option that follows the attacked column names one of ``columns``).
    description : str, default ""
        The step in plain words (default: the method's ``description``).
    precision : str, default ""
        The parameter that rounds the released values to a number of decimals
        (the data's precision, offered where the step is applied), if any.
    stream : callable, optional
        How the step runs on a file chunk by chunk (``stream(step, file)``,
        :attr:`rumap.release.methods.StepMethod.stream`). Default: its columns
        gathered from the whole file in one pass and masked in memory by
        ``mask`` (:func:`rumap.release.gathered.gathered_stream`).
    file_work : callable, optional
        ``file_work(parameters, n, p, budget)``: refuses a step whose work on a
        file of ``n`` records and its ``p`` columns exceeds the budget, before
        any pass over the file.
    """

    mask: Callable[[np.ndarray, Mapping[str, Any], tuple[str, ...], int | None, WorkBudget],
                   tuple[np.ndarray, dict]]
    parameters: Mapping[str, Any] | None = None
    check: Callable[[dict, tuple[str, ...]], dict] | None = None
    description: str = ""
    precision: str = ""
    stream: Callable[..., Any] | None = None
    file_work: Callable[[Mapping[str, Any], int, int, WorkBudget], None] | None = None


class LiveTable(Mapping[str, Any]):
    """A read-only table made from the records registered when it is read (:meth:`table`), so that a method
    registered since is in it."""

    def table(self) -> dict[str, Any]:
        """The table as it is now."""
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.table()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.table())

    def __len__(self) -> int:
        return len(self.table())

    def __repr__(self) -> str:
        return repr(self.table())


#: Why a masking method's map is not estimated on subsamples, unless its record says otherwise.
UNKNOWN_ON_SUBSAMPLE = "it is not known to be estimated without bias on a subsample"


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
        ``make_masker(plan, replicates) -> masked(j)`` (a :class:`MaskingPlan`): the masked data of each
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
    release : ReleaseStep, optional
        Its step of a release plan; without one, a map of the method has no
        release step.
    on_subsample : str or None
        Why its map is not estimated on random subsamples of a large file
        (:mod:`rumap.maps.subsample`); None when a subsample's map estimates the
        file's. Default: :data:`UNKNOWN_ON_SUBSAMPLE`.
    """

    description: str
    grids: tuple[GridParameter, ...]
    make_masker: Callable[[MaskingPlan, np.ndarray], Callable[[int], Masked]]
    options: tuple[MethodOption, ...] = ()
    preserves_mean: bool = False
    deterministic: bool = False
    published_lambda2: Callable[[MaskingPlan, int], float] | None = None
    check_options: Callable[[Mapping[str, Any]], Any] | None = None
    prepare: Callable[[np.ndarray, Mapping[str, Any]], Any] | None = None
    cost: Callable[[int, int, Sequence[float], Mapping[str, Any]], tuple[float, str]] | None = None
    toggles: Mapping[str, Toggle] = field(default_factory=lambda: _EMPTY)
    title: str = ""
    release: ReleaseStep | None = None
    on_subsample: str | None = UNKNOWN_ON_SUBSAMPLE

    __reduce__ = _reduced

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
