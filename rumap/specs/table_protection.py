"""A table built from microdata and protected: the specification of its secondary suppression and of its R-U map.

:class:`TableProtectionSpec` holds what defines the protection (the file, the
spanning variables, the response and shadow, the sensitivity rule, the
protection level and the cost); :meth:`TableProtectionSpec.run` builds the
table (:func:`rumap.tables.microdata.table_from_microdata`), marks its
primaries and protects them (:func:`rumap.tables.secondary.suppress_secondary`).
:class:`TableMapSpec` adds what its R-U map runs over (the rule's first
parameter, the protection level or the rounding base, of
:data:`rumap.maps.tables.TABLE_SWEEPS`) and its measures;
:meth:`TableMapSpec.run` draws the map (:mod:`rumap.maps.tables`). The dashboard
and the reproduce code (:mod:`rumap.present.reproduce`) both run these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from rumap.result import RUMap
    from rumap.tables.microdata import MicrodataTable
    from rumap.tables.secondary import SecondarySuppression

__all__ = ["TableProtectionSpec", "TableMapSpec"]


def _one_of(value: Any, names: Any, what: str) -> None:
    if value not in names:
        raise InputError(f"{what} must be one of {', '.join(names)}, got {value!r}")


@dataclass(frozen=True)
class TableProtectionSpec:
    """A table built from a microdata file, its primaries by a sensitivity rule, protected by secondary suppression.

    Parameters
    ----------
    data : str
        The microdata file, as the reproduce code names it.
    rows : str
        The spanning variable of the rows.
    columns, layers : str, optional
        The spanning variables of the columns and of the layers.
    layer : str, optional
        The layer protected (None: the layers' total).
    response : str, optional
        The numeric variable summed (None: counts).
    shadow : str, optional
        The variable the rules look at.
    rule : str, default "p-percent"
        A key of :data:`rumap.tables.rules.RULES`.
    rule_parameters : mapping of str to float
        The rule's parameters, every one of them.
    protection : float, default 10
        The protection level P (percent).
    cost : str, default "value"
        A key of :data:`rumap.tables.secondary.COSTS`.

    Examples
    --------
    >>> from rumap.tables.microdata import example_microdata
    >>> spec = TableProtectionSpec("firms.csv", "region", "size", response="turnover",
    ...                            rule="p-percent", rule_parameters={"p": 10.0})
    >>> result = spec.run(example_microdata())
    >>> len(result.primary) == len(spec.primary(spec.table(example_microdata())))
    True
    """

    data: str
    rows: str
    columns: str | None = None
    layers: str | None = None
    layer: str | None = None
    response: str | None = None
    shadow: str | None = None
    rule: str = "p-percent"
    rule_parameters: Mapping[str, float] = field(default_factory=dict)
    protection: float = 10.0
    cost: str = "value"

    def __post_init__(self) -> None:
        from rumap.tables.rules import RULES
        from rumap.tables.secondary import COSTS

        _one_of(self.rule, list(RULES), "rule")
        _one_of(self.cost, list(COSTS), "cost")
        names = set(RULES[self.rule].parameters)
        if set(self.rule_parameters) != names:
            raise InputError(f"the {self.rule} rule takes the parameters {', '.join(RULES[self.rule].parameters)}, "
                             f"got {', '.join(map(str, self.rule_parameters)) or 'none'}")
        object.__setattr__(self, "rule_parameters", dict(self.rule_parameters))

    def table_arguments(self) -> dict[str, Any]:
        """The keyword arguments of :func:`rumap.tables.microdata.table_from_microdata` besides the frame."""
        return {"rows": self.rows, "columns": self.columns, "layers": self.layers, "response": self.response,
                "shadow": self.shadow}

    def table(self, frame: pd.DataFrame) -> MicrodataTable:
        """The table built from the microdata ``frame``."""
        from rumap.tables.microdata import table_from_microdata

        return table_from_microdata(frame, **self.table_arguments())

    def primary(self, table: MicrodataTable) -> list[tuple[str, str]]:
        """The primary cells of the protected layer of ``table`` under the rule."""
        return table.primary(self.rule, self.layer, **self.rule_parameters)

    def protect(self, table: MicrodataTable) -> SecondarySuppression:
        """The secondary suppression of ``table`` (built by :meth:`table`)."""
        from rumap.tables.secondary import suppress_secondary

        return suppress_secondary(table.published(self.layer), self.primary(table), protection=self.protection,
                                  cost=self.cost, frequencies=table.frequencies(self.layer))

    def run(self, frame: pd.DataFrame) -> SecondarySuppression:
        """Build the table from ``frame``, mark its primaries and protect them."""
        return self.protect(self.table(frame))

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return {"data": self.data, **self.table_arguments(), "layer": self.layer, "rule": self.rule,
                "rule_parameters": dict(self.rule_parameters), "protection": self.protection, "cost": self.cost}


@dataclass(frozen=True)
class TableMapSpec:
    """The R-U map of a protected table over the rule's first parameter, the protection level or the rounding base.

    Parameters
    ----------
    protection : TableProtectionSpec
        The table and the values not swept.
    sweep : {"rule", "protection", "base"}
        What the map runs over (:data:`rumap.maps.tables.TABLE_SWEEPS`).
    grid : sequence of float
        The swept values.
    risk : str, default "underprotected"
        A key of :data:`rumap.maps.tables.TABLE_RISKS`.
    utility : str, default "total_kept"
        A key of :data:`rumap.maps.tables.TABLE_UTILITIES`.
    time_limit : float, default 5
        Seconds given to each suppression.

    Examples
    --------
    >>> from rumap.tables.microdata import example_microdata
    >>> table = TableProtectionSpec("firms.csv", "region", "size", response="turnover", rule_parameters={"p": 10.0})
    >>> m = TableMapSpec(table, "base", (10.0, 100.0), risk="max_cell_risk").run(example_microdata())
    >>> m.values.tolist()
    [10.0, 100.0]
    """

    protection: TableProtectionSpec
    sweep: str
    grid: tuple[float, ...]
    risk: str = "underprotected"
    utility: str = "total_kept"
    time_limit: float = 5.0

    def __post_init__(self) -> None:
        from rumap.maps.tables import TABLE_RISKS, TABLE_SWEEPS, TABLE_UTILITIES

        if not isinstance(self.protection, TableProtectionSpec):
            raise InputError(f"protection must be a TableProtectionSpec, got {type(self.protection).__name__}")
        _one_of(self.sweep, TABLE_SWEEPS, "sweep")
        _one_of(self.risk, list(TABLE_RISKS), "risk")
        _one_of(self.utility, list(TABLE_UTILITIES), "utility")
        object.__setattr__(self, "grid", tuple(float(v) for v in self.grid))
        if not self.grid:
            raise InputError("grid must hold at least one value")

    def map(self, table: MicrodataTable) -> RUMap:
        """The map of ``table`` (built by :meth:`TableProtectionSpec.table`)."""
        from rumap.maps.tables import protection_map, rounding_base_map, rule_map
        from rumap.tables.rules import RULES

        s, measures = self.protection, {"risk": self.risk, "utility": self.utility}
        if self.sweep == "rule":
            swept = next(iter(RULES[s.rule].parameters))
            fixed = {k: v for k, v in s.rule_parameters.items() if k != swept}
            return rule_map(table, s.rule, list(self.grid), rule_parameters=fixed, layer=s.layer,
                            protection=s.protection, cost=s.cost, time_limit=self.time_limit, **measures)
        if self.sweep == "protection":
            return protection_map(table.published(s.layer), s.primary(table), list(self.grid), cost=s.cost,
                                  time_limit=self.time_limit, required=s.protection, counts=s.response is None,
                                  **measures)
        return rounding_base_map(table.published(s.layer), list(self.grid), primary=s.primary(table),
                                 protection=s.protection, counts=s.response is None, **measures)

    def run(self, frame: pd.DataFrame) -> RUMap:
        """Build the table from ``frame`` and draw its map."""
        return self.map(self.protection.table(frame))

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return {**self.protection.to_dict(), "sweep": self.sweep, "grid": list(self.grid), "risk": self.risk,
                "utility": self.utility, "time_limit": self.time_limit}
