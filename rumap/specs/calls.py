"""A call of one public rumap function on a data file, as a specification.

A result that no map specification of :mod:`rumap.specs` describes (the
individual risk of categorical keys, SUDA2's scores, the map of a categorical
protection, ...) is one function applied to a file's table:
:class:`CallSpec` names the function, the file, the keyword arguments and the
recodings applied first. A page runs it (:meth:`CallSpec.run`), and
:mod:`rumap.present.reproduce` writes the same call as Python and, where the
command line has it, as a ``python -m rumap`` command.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rumap._validation import PARAMETERS
from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CallSpec"]


def _resolve(dotted: str) -> Callable[..., Any]:
    module, _, name = str(dotted).rpartition(".")
    if not (module == "rumap" or module.startswith("rumap.")) or name.startswith("_") or any(p.startswith("_") for p in module.split(".")):
        raise InputError(f"function must be a public rumap function, got {dotted!r}")
    try:
        function = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise InputError(f"function {dotted!r} does not exist") from None
    if not callable(function):
        raise InputError(f"function {dotted!r} is not a function")
    return function


def _plain(value: Any) -> Any:
    """A numpy array or number as the Python list or number it holds (the reproduce code writes it as such)."""
    import numpy as np

    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    return value


@dataclass(frozen=True)
class CallSpec:
    """A public rumap function applied to the table of a data file.

    Parameters
    ----------
    function : str
        The function's dotted name, e.g. ``"rumap.risk.suda.suda2"``; it takes
        the table first.
    data : str
        The data file, as the reproduce code names it.
    arguments : mapping
        The function's keyword arguments after the table (numpy arrays and
        numbers are kept as the lists and numbers they hold).
    merges : sequence of str
        Recodings ``VAR: A, B = NEW`` applied to the table first
        (:func:`rumap.masking.categorical.recode`).
    column : str, optional
        The function takes this numeric column's values instead of the table
        (:func:`rumap.io.data.numeric_column`) ...
    records : int, optional
        ... its first ``records`` values (None: all).
    source : str
        The data's name in messages (not part of the reproduce code).

    Examples
    --------
    >>> import pandas as pd
    >>> spec = CallSpec("rumap.risk.individual.individual_risk", "d.csv", {"keys": ["a"], "k": 2},
    ...                 merges=("a: x, y = xy",))
    >>> spec.run(pd.DataFrame({"a": ["x", "y", "z"]})).k_anonymity_violations
    1
    """

    function: str
    data: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    merges: tuple[str, ...] = ()
    column: str | None = None
    records: int | None = None
    source: str = "the data"

    def __post_init__(self) -> None:
        parameters = inspect.signature(_resolve(self.function)).parameters
        unknown = [name for name in self.arguments if name not in parameters]
        if unknown:
            raise InputError(f"{self.function} has no parameter {unknown[0]!r}")
        if "source" in self.arguments:
            raise InputError("source is the specification's own field, not one of its arguments")
        object.__setattr__(self, "arguments", {name: _plain(value) for name, value in self.arguments.items()})
        object.__setattr__(self, "merges", tuple(self.merges))
        if self.records is not None and (self.column is None or isinstance(self.records, bool)
                                         or not isinstance(self.records, int)
                                         or not PARAMETERS["records"].contains(self.records)):
            raise InputError(f"records must be a whole number >= 1 of a column's values, got {self.records!r}")
        if self.merges:
            from rumap.masking.categorical import parse_merges

            parse_merges(list(self.merges))

    @property
    def module(self) -> str:
        """The module the function is imported from."""
        return self.function.rpartition(".")[0]

    @property
    def name(self) -> str:
        """The function's own name."""
        return self.function.rpartition(".")[2]

    def mapping(self) -> dict[str, dict[str, str]]:
        """The recodings as :func:`rumap.masking.categorical.recode` takes them."""
        from rumap.masking.categorical import parse_merges

        return parse_merges(list(self.merges)) if self.merges else {}

    def table(self, frame: pd.DataFrame) -> Any:
        """What the function is given: ``frame`` recoded, or the values of its column."""
        if self.column is not None:
            from rumap.io.data import numeric_column

            return numeric_column(frame, self.column, source=self.source)[: self.records]
        if not self.merges:
            return frame
        from rumap.masking.categorical import recode

        return recode(frame, self.mapping(), source=self.source)

    def apply(self, table: Any) -> Any:
        """The function's result on ``table``, already recoded or read as a column (:meth:`table`)."""
        function = _resolve(self.function)
        extra = {"source": self.source} if "source" in inspect.signature(function).parameters else {}
        return function(table, **self.arguments, **extra)

    def run(self, frame: pd.DataFrame) -> Any:
        """The function's result on ``frame`` (the data file's table)."""
        return self.apply(self.table(frame))

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return {"function": self.function, "data": self.data, "arguments": dict(self.arguments),
                "merges": list(self.merges), "column": self.column, "records": self.records}
