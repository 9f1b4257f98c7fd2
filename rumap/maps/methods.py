"""The registry of the simulation engine's masking methods: one record per method, each from its own module.

:data:`METHODS` holds one :class:`MaskingMethod` per method, each with the
kernel that masks a chunk of replicates: additive noise
(:mod:`rumap.maps.noise_method`), microaggregation
(:mod:`rumap.maps.microaggregation_method`) and rank swapping
(:mod:`rumap.maps.rankswap_method`); :func:`register_method` adds one. The
replicates' generators are :func:`rumap.maps.replicates.replicate_generator`. The record types
(:class:`MaskingMethod`, :class:`GridParameter`, :class:`MethodOption`,
:class:`Flag`, :class:`OptionWidget`, :class:`Toggle`) are defined in
:mod:`rumap.maps.method_records` and importable from here too.

The command line's ``simulate`` parser, the Empirical page's widgets,
:class:`rumap.maps.simulation.SimulationConfig`'s checks, the plots' symbols,
the statements, the reproducing command and the release plan's steps are all
read from these records.
Adding a method is its module, exporting its record, and one
:func:`register_method` call (or one line of :data:`METHODS`).
"""

from __future__ import annotations

import io
import pickle
import types
from collections.abc import Collection, Mapping
from typing import Any

from rumap._validation import PARAMETERS, assumes_valid
from rumap.errors import InputError
from rumap.maps.method_records import (
    Flag,
    GridParameter,
    MaskingMethod,
    MethodOption,
    OptionWidget,
    ReleaseStep,
    Toggle,
)
from rumap.maps.microaggregation_method import MICROAGGREGATION
from rumap.maps.noise_method import NOISE
from rumap.maps.noise_step import refuse_noise_past_magnitude
from rumap.maps.rankswap_method import RANKSWAP
from rumap.maps.replicates import replicate_generator

__all__ = ["MaskingMethod", "GridParameter", "MethodOption", "OptionWidget", "Flag", "Toggle", "ReleaseStep",
           "METHODS", "register_method", "reserve_method_names", "registered_methods", "install_methods", "replicate_generator", "PARAMETER_SYMBOLS", "UNMASKED",
           "refuse_noise_past_magnitude"]


#: Masking methods of the engine, by name: adding one is one entry (or :func:`register_method`).
METHODS: dict[str, MaskingMethod] = {
    "noise": NOISE,
    "microaggregation": MICROAGGREGATION,
    "rankswap": RANKSWAP,
}


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
