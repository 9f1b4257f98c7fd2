"""The specification of the Tables page's table released with differential privacy.

:class:`DPTableSpec` holds what defines the release (the microdata file, the
dimensions and their hierarchies, the value summed with its bounds, the
mechanism, the privacy loss and the seed), computes it
(:func:`rumap.tables.dp.dp_table`) and is what
:mod:`rumap.present.reproduce` writes as Python and as ``python -m rumap table dp``.
:class:`DPTableMapSpec` is the same table's map over epsilon, or the map of its
cell suppression over the threshold rule's n on the same R and U
(``python -m rumap simulate --method dp-table``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from rumap.result import RUMap
    from rumap.tables.dp import DPTable
    from rumap.tables.hierarchy import Hierarchy

__all__ = ["DPTableSpec", "DPTableMapSpec"]


@dataclass(frozen=True)
class DPTableSpec:
    """A count or sum table built from microdata and released with differential privacy.

    Parameters
    ----------
    data : str
        The microdata file.
    dims : tuple of str
        The dimensions (columns of the file).
    prefixes, files : mapping
        The dimensions' hierarchies, as in :class:`rumap.specs.tables.HierarchicalTableSpec`.
    value_column : str, optional
        The variable summed (None: counts), each record's value clamped to ``bounds``.
    bounds : (float, float), optional
        The declared range of one contribution (with ``value_column``).
    mechanism : str, default "laplace"
        A key of :data:`rumap.privacy.accounting.MECHANISMS`.
    epsilon, rho, delta : float, optional
        The privacy loss (:func:`rumap.privacy.accounting.calibrate`).
    seed : int, optional
        The noise's seed (None: OpenDP's sampler, not reproducible).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"nace": ["A1", "A2", "A2", "B1", "B1", "B1"], "size": list("ssllsl")})
    >>> spec = DPTableSpec("firms.csv", ("nace", "size"), prefixes={"nace": (1, 2)}, epsilon=1.0, seed=4)
    >>> release = spec.run(frame)
    >>> release.privacy.epsilon, bool((release.published >= 0).all())
    (1.0, True)
    """

    data: str
    dims: tuple[str, ...]
    prefixes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    files: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    value_column: str | None = None
    bounds: tuple[float, float] | None = None
    mechanism: str = "laplace"
    epsilon: float | None = None
    rho: float | None = None
    delta: float | None = None
    seed: int | None = 0

    def __post_init__(self) -> None:
        from rumap.privacy.accounting import MECHANISMS

        if self.mechanism not in MECHANISMS:
            raise InputError(f"mechanism must be one of {', '.join(MECHANISMS)}, got {self.mechanism!r}")
        object.__setattr__(self, "dims", tuple(self.dims))
        object.__setattr__(self, "prefixes", {d: tuple(int(n) for n in v) for d, v in self.prefixes.items()})
        object.__setattr__(self, "files", {d: (str(v[0]), str(v[1])) for d, v in self.files.items()})
        if self.bounds is not None:
            object.__setattr__(self, "bounds", (float(self.bounds[0]), float(self.bounds[1])))

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return asdict(self)

    def hierarchies(self, frame: pd.DataFrame, read: Mapping[str, Hierarchy] | None = None) -> dict[str, Hierarchy]:
        """Each dimension's hierarchy: from its codes' prefixes in ``frame``, or its file (``read``: already read)."""
        from rumap.specs.tables import HierarchicalTableSpec

        return HierarchicalTableSpec(self.data, self.dims, self.prefixes, self.files).hierarchies(frame, read)

    def run(self, frame: pd.DataFrame, read: Mapping[str, Hierarchy] | None = None) -> DPTable:
        """The released table, built from ``frame`` (``read``: hierarchies of files already read)."""
        from rumap.tables.dp import dp_table

        return dp_table(frame, list(self.dims), self.hierarchies(frame, read), self.value_column, self.bounds,
                        mechanism=self.mechanism, epsilon=self.epsilon, rho=self.rho, delta=self.delta,
                        seed=self.seed)


@dataclass(frozen=True)
class DPTableMapSpec:
    """The map over epsilon of a count table released with noise, or of its cell suppression beside it.

    Parameters
    ----------
    table : DPTableSpec
        The table (dimensions, hierarchies), the mechanism, delta and the seed (its epsilon is not used).
    epsilons : tuple of float
        The map's privacy losses.
    replicates : int, default 20
        Releases per epsilon.
    thresholds : tuple of int, optional
        The threshold rule's n of the suppression map drawn beside it.
    curve : {"dp", "suppression"}, default "dp"
        Which of the two maps :meth:`run` gives.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": list("xxyyyz"), "b": list("pqpqpq")})
    >>> spec = DPTableMapSpec(DPTableSpec("t.csv", ("a", "b")), (1.0, 10.0), replicates=3)
    >>> spec.run(frame).parameter, spec.run(frame).values.tolist()
    ('epsilon', [1.0, 10.0])
    """

    table: DPTableSpec
    epsilons: tuple[float, ...]
    replicates: int = 20
    thresholds: tuple[int, ...] | None = None
    curve: str = "dp"

    def __post_init__(self) -> None:
        if self.curve not in ("dp", "suppression"):
            raise InputError(f"curve must be 'dp' or 'suppression', got {self.curve!r}")
        if self.curve == "suppression" and not self.thresholds:
            raise InputError("the suppression map needs thresholds")
        object.__setattr__(self, "epsilons", tuple(float(e) for e in self.epsilons))
        if self.thresholds is not None:
            object.__setattr__(self, "thresholds", tuple(int(n) for n in self.thresholds))

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return asdict(self)

    def run(self, frame: pd.DataFrame, read: Mapping[str, Hierarchy] | None = None) -> RUMap:
        """The map of the table built from ``frame`` (``read``: hierarchies of files already read)."""
        from rumap.maps.dp_tables import dp_table_map, suppression_threshold_map
        from rumap.tables.ndtable import build_table

        t = self.table
        table = build_table(frame, list(t.dims), t.hierarchies(frame, read), None)
        if self.curve == "suppression":
            return suppression_threshold_map(table, list(self.thresholds or ()))
        return dp_table_map(table, list(self.epsilons), mechanism=t.mechanism, delta=t.delta,
                            replicates=self.replicates, seed=t.seed)
