"""The specifications of the Tables page's analyses of a published table or of the paper's examples.

Each one holds what defines its result (a file's name or the example built
into rumap, and the parameters), computes it (``run``, and the steps the page
shows one by one), and is what :mod:`rumap.present.reproduce` writes as Python
and, where the command line has it, as a ``python -m rumap table`` command:

- :class:`RuleSpec`: a sensitivity rule on each cell of a magnitude table;
- :class:`DominanceFlawSpec`: Example 1 and the constructions of the dominance rule's flaw;
- :class:`SuppressedCellsSpec`: LP bounds of a table's suppressed cells, and an insider's;
- :class:`RedesignSpec`: the risk of the cells of merged rows;
- :class:`LinkedTablesSpec`: a 3-D table released as some of its 2-D projections;
- :class:`RoundingMapSpec`: the R-U maps of rounding a table;
- :class:`HierarchicalTableSpec`: a table with hierarchies built from microdata, protected at every level.

A spec whose ``data`` is None uses the example built into rumap; otherwise
``run`` takes the file's table (a page reads it in memory, the reproducing
code by its name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import SEED, InstanceOf, Table, validate_params
from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from rumap.result import RUMap
    from rumap.tables.bounds import TableBounds
    from rumap.tables.dominance import DominanceExample, DominanceFlaw, TheoremScan
    from rumap.tables.hierarchy import Hierarchy
    from rumap.tables.insider import InsiderBounds
    from rumap.tables.ndtable import NDTable
    from rumap.tables.published import PublishedTable
    from rumap.tables.rules import Contributions, RuleResult
    from rumap.tables.table_suppression import TableSuppression

__all__ = ["RuleSpec", "DominanceFlawSpec", "SuppressedCellsSpec", "RedesignSpec", "LinkedTablesSpec",
           "RoundingMapSpec", "HierarchicalTableSpec", "example_cube", "EXAMPLE_CUBE_SHAPE", "ROUNDING_STATISTICS",
           "HIERARCHY_FORMATS", "hierarchy_format", "prefix_codes"]

#: The shape of the Linked tables example's cube: activity x size x region.
EXAMPLE_CUBE_SHAPE = (3, 3, 2)


@validate_params({"seed": SEED}, example=lambda: {"seed": 1})
def example_cube(seed: int) -> np.ndarray:
    """The Linked tables example: a random 3 x 3 x 2 table of whole numbers in [0, 40).

    Parameters
    ----------
    seed : int
        The seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    ndarray of float, shape (3, 3, 2)

    Examples
    --------
    >>> example_cube(1).shape
    (3, 3, 2)
    """
    return np.random.default_rng(seed).integers(0, 40, EXAMPLE_CUBE_SHAPE).astype(float)


class _Plain:
    """``to_dict`` of a frozen dataclass: its fields as plain data."""

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return asdict(self)  # type: ignore[call-overload]


def _published(frame: pd.DataFrame | None, data: str | None, example: Any) -> PublishedTable:
    from rumap.tables.table_files import published_table_from_frame

    if data is None:
        return example()
    if frame is None:
        raise InputError(f"the table of {data} is needed")
    return published_table_from_frame(frame, source=data)


@dataclass(frozen=True)
class RuleSpec(_Plain):
    """A sensitivity rule applied to each cell of a magnitude table given by its contributions.

    Parameters
    ----------
    rule : str
        A key of :data:`rumap.tables.rules.RULES`.
    parameters : mapping of str to float
        The rule's parameters (``{"p": 10.0}``).
    data : str, optional
        The contributions file (None: :func:`rumap.tables.rules.example_contributions`).
    cell_column, value_column : str
        The file's columns of each respondent's cell and contribution.

    Examples
    --------
    >>> RuleSpec("p-percent", {"p": 10.0}).run().sensitive_cells
    ['A', 'D']
    """

    rule: str
    parameters: Mapping[str, float] = field(default_factory=dict)
    data: str | None = None
    cell_column: str = "cell"
    value_column: str = "value"

    def contributions(self, frame: pd.DataFrame | None = None) -> Contributions:
        """The contributions: the example's, or those of the file's table ``frame``."""
        from rumap.tables.rules import example_contributions
        from rumap.tables.table_files import contributions_from_frame

        if self.data is None:
            return example_contributions()
        if frame is None:
            raise InputError(f"the table of {self.data} is needed")
        return contributions_from_frame(frame, self.cell_column, self.value_column, source=self.data)

    def run(self, frame: pd.DataFrame | None = None) -> RuleResult:
        """The rule's outcome on each cell."""
        from rumap.tables.rules import apply_rule

        return apply_rule(self.contributions(frame), rule=self.rule, **self.parameters)


@dataclass(frozen=True)
class DominanceFlawSpec(_Plain):
    """Example 1 at its k, and Lemma 1, Constructions 1-2 and Theorem 1 for n, k and N contributions.

    Parameters
    ----------
    example_k : float
        Example 1's k.
    n : int
    k : float
    cells : int
        N, the number of contributions per cell.

    Examples
    --------
    >>> example, flaw, scan = DominanceFlawSpec(0.6, 1, 0.369, 3).run()
    >>> example.flawed, len(scan.cells)
    (True, 38)
    """

    example_k: float
    n: int
    k: float
    cells: int

    def scan_cells(self) -> list[int]:
        """The numbers of contributions Theorem 1 is scanned over: n + 1 to at least 40."""
        return list(range(self.n + 1, max(self.cells, 40) + 1))

    def example(self) -> DominanceExample:
        """Example 1 at ``example_k``."""
        from rumap.tables.dominance import example1

        return example1(self.example_k)

    def flaw(self) -> DominanceFlaw:
        """Lemma 1 and Constructions 1-2."""
        from rumap.tables.dominance import dominance_flaw

        return dominance_flaw(self.n, self.k, self.cells)

    def scan(self) -> TheoremScan:
        """Theorem 1 over :meth:`scan_cells`."""
        from rumap.tables.dominance import theorem1_scan

        return theorem1_scan(self.n, self.k, self.scan_cells())

    def run(self) -> tuple[DominanceExample, DominanceFlaw, TheoremScan]:
        """Example 1, the constructions and the scan."""
        return self.example(), self.flaw(), self.scan()


@dataclass(frozen=True)
class SuppressedCellsSpec(_Plain):
    """LP bounds and risk of a table's suppressed cells, and, given an insider, of its cell for it.

    Parameters
    ----------
    data : str, optional
        The published table's file (None: :func:`rumap.tables.published.paper_table1`).
    insider : (row, column, contribution), optional
        A suppressed cell and its insider's own contribution.

    Examples
    --------
    >>> bounds, insider = SuppressedCellsSpec(insider=("5", "5", 50.0)).run()
    >>> len(bounds.labels), insider.view.insider_min >= 0
    (4, True)
    """

    data: str | None = None
    insider: tuple[str, str, float] | None = None

    def table(self, frame: pd.DataFrame | None = None) -> PublishedTable:
        """The published table: the example, or the file's table ``frame``."""
        from rumap.tables.published import paper_table1

        return _published(frame, self.data, paper_table1)

    def bounds(self, table: PublishedTable) -> TableBounds:
        """Every suppressed cell's bounds and risk."""
        from rumap.tables.bounds import suppression_bounds

        return suppression_bounds(table)

    def insider_bounds(self, table: PublishedTable) -> InsiderBounds | None:
        """The insider's bounds (None without an insider)."""
        from rumap.tables.insider import insider_bounds

        return None if self.insider is None else insider_bounds(table, *self.insider)

    def run(self, frame: pd.DataFrame | None = None) -> tuple[TableBounds, InsiderBounds | None]:
        """The bounds, and the insider's."""
        table = self.table(frame)
        return self.bounds(table), self.insider_bounds(table)


@dataclass(frozen=True)
class RedesignSpec(_Plain):
    """Rows of the completed Table 1 merged into one, and the risk of their original cells.

    Parameters
    ----------
    parts : tuple of str
        At least two row labels of :func:`rumap.tables.published.paper_table1_completed`.

    Examples
    --------
    >>> RedesignSpec(("5", "6")).label
    '5,6'
    """

    parts: tuple[str, ...]

    @property
    def label(self) -> str:
        """The merged row's label."""
        return ",".join(self.parts)

    def merged(self) -> PublishedTable:
        """The redesigned table."""
        from rumap.tables.published import paper_table1_completed
        from rumap.tables.redesign import merge_categories

        return merge_categories(paper_table1_completed(), list(self.parts), merged_label=self.label)

    def run(self, merged: PublishedTable | None = None) -> TableBounds:
        """The bounds of the merged rows' original cells (of ``merged``, :meth:`merged` when given)."""
        from rumap.tables.redesign import redesign_bounds

        return redesign_bounds(self.merged() if merged is None else merged, self.label, list(self.parts))


@dataclass(frozen=True)
class LinkedTablesSpec(_Plain):
    """The example cube released as some of its 2-D projections: each cell's bounds.

    Parameters
    ----------
    seed : int
        The seed of :func:`example_cube`.
    released : tuple of str
        The released projections (``"AS"``, ``"AR"``, ``"SR"``).

    Examples
    --------
    >>> len(LinkedTablesSpec(1, ("AS", "AR")).run().labels)
    18
    """

    seed: int
    released: tuple[str, ...]

    def cube(self) -> np.ndarray:
        """The unreleased cube."""
        return example_cube(self.seed)

    def run(self) -> TableBounds:
        """Each cell's bounds under the released sums."""
        from rumap.tables.linked import linked_bounds

        return linked_bounds(self.cube(), list(self.released))


#: The statistics of a rounded table's cell risks, one map each.
ROUNDING_STATISTICS = ("max", "mean")


@dataclass(frozen=True)
class RoundingMapSpec(_Plain):
    """The R-U maps of rounding a table to multiples of each base: the largest and the mean cell risk.

    Parameters
    ----------
    bases : tuple of float
        The rounding bases.
    data : str, optional
        The table's file (None: :func:`rumap.tables.published.paper_table1_completed`).

    Examples
    --------
    >>> [m.risk.size for m in RoundingMapSpec((2.0, 10.0)).run()]
    [2, 2]
    """

    bases: tuple[float, ...]
    data: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "bases", tuple(float(b) for b in self.bases))

    def table(self, frame: pd.DataFrame | None = None) -> PublishedTable:
        """The table rounded: the example, or the file's table ``frame``."""
        from rumap.tables.published import paper_table1_completed

        return _published(frame, self.data, paper_table1_completed)

    def run(self, frame: pd.DataFrame | None = None, table: PublishedTable | None = None) -> list[RUMap]:
        """The maps of :data:`ROUNDING_STATISTICS` (of ``table`` when given)."""
        from rumap.tables.rounding import rounding_ru_map

        table = self.table(frame) if table is None else table
        return [rounding_ru_map(table, np.array(self.bases), statistic=s) for s in ROUNDING_STATISTICS]


#: The formats of a hierarchy file: tau-Argus ``.hrc``, or a parent,child CSV.
HIERARCHY_FORMATS = ("hrc", "parent_child")


@validate_params({"name": InstanceOf(str, "a file name"), "text": InstanceOf(str, "the file's text")},
                 example=lambda: {"name": "regions.hrc", "text": "N\n@N1\n"})
def hierarchy_format(name: str, text: str) -> str:
    """The format of a hierarchy file: ``"hrc"`` when named ``.hrc`` or written with tau-Argus's ``@`` levels.

    Parameters
    ----------
    name : str
        The file's name.
    text : str
        Its content.

    Returns
    -------
    str
        One of :data:`HIERARCHY_FORMATS`.

    Examples
    --------
    >>> hierarchy_format("regions.txt", "N\\n@N1\\n@N2\\n"), hierarchy_format("regions.csv", "N,N1\\nN,N2\\n")
    ('hrc', 'parent_child')
    """
    is_hrc = name.lower().endswith(".hrc") or any(line.startswith("@") for line in text.splitlines())
    return HIERARCHY_FORMATS[0] if is_hrc else HIERARCHY_FORMATS[1]


def _prefix_example() -> dict[str, Any]:
    import pandas as pd

    return {"frame": pd.DataFrame({"nace": ["A01", "A02"]}), "dim": "nace"}


@validate_params({"frame": Table(), "dim": InstanceOf(str, "a column name")}, example=_prefix_example)
def prefix_codes(frame: pd.DataFrame, dim: str) -> list[str]:
    """The codes of a dimension whose hierarchy comes from their prefixes: its distinct values as text, sorted.

    Parameters
    ----------
    frame : DataFrame
    dim : str
        A column of ``frame``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> prefix_codes(pd.DataFrame({"nace": ["A01 ", "A02", "A01", None]}), "nace")
    ['A01', 'A02']
    """
    if dim not in frame.columns:
        raise InputError(f"dim must be a column of frame, got {dim!r}; columns are {', '.join(frame.columns)}")
    return sorted(frame[dim].dropna().astype(str).str.strip().unique())


@dataclass(frozen=True)
class HierarchicalTableSpec(_Plain):
    """A table of up to five dimensions with hierarchies built from microdata, protected at every level.

    Primaries by a sensitivity rule (threshold; dominance, p% or pq on a
    magnitude table); secondary suppression over every equation
    (:func:`rumap.tables.table_suppression.suppress_table`).

    Parameters
    ----------
    data : str
        The microdata file.
    dims : tuple of str
        The dimensions (columns of the file).
    prefixes : mapping of str to tuple of int
        A dimension -> the code lengths of its levels, top first (its hierarchy from its codes' prefixes).
    files : mapping of str to (str, str)
        A dimension -> its hierarchy file and that file's format (:data:`HIERARCHY_FORMATS`).
    value_column : str, optional
        The numeric variable summed (None: counts).
    threshold : int
        The threshold rule's least number of records.
    protection : float
        The protection level P (%).
    cost : str
        A key of :data:`rumap.tables.secondary.COSTS`.
    method : str, optional
        A key of :data:`rumap.tables.table_suppression.TABLE_SUPPRESSION_METHODS` (None: by the table's size).
    rule : str, default "threshold"
        A key of :data:`rumap.tables.rules.RULES`; a rule on contributions other
        than the threshold rule needs ``value_column`` (a magnitude table).
    rule_parameters : mapping of str to float
        The parameters of a rule other than the threshold rule (``n``, ``k``;
        ``p``; ``p``, ``q``); the threshold rule reads ``threshold``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"nace": ["A1", "A2", "A2", "B1", "B1", "B1"], "size": list("ssllsl")})
    >>> spec = HierarchicalTableSpec("firms.csv", ("nace", "size"), prefixes={"nace": (1, 2)}, threshold=2)
    >>> spec.run(frame).counts()["primary"] > 0
    True
    >>> frame["turnover"] = [50.0, 3.0, 4.0, 90.0, 2.0, 1.0]
    >>> dominance = HierarchicalTableSpec("firms.csv", ("nace", "size"), prefixes={"nace": (1, 2)},
    ...                                   value_column="turnover", rule="dominance", rule_parameters={"n": 1, "k": 0.8})
    >>> dominance.primary_parameters()
    {'n': 1, 'k': 0.8}
    """

    data: str
    dims: tuple[str, ...]
    prefixes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    files: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    value_column: str | None = None
    threshold: int = 3
    protection: float = 10.0
    cost: str = "value"
    method: str | None = None
    rule: str = "threshold"
    rule_parameters: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from rumap.tables.rules import RULES, check_rule_parameters

        if self.rule not in RULES:
            raise InputError(f"rule must be one of {', '.join(RULES)}, got {self.rule!r}")
        if self.rule != "threshold" and self.value_column is None:
            raise InputError(f"the {self.rule} rule looks at each cell's contributions: give a value column "
                             "(a magnitude table), or use the threshold rule on counts")
        if self.rule != "threshold":
            object.__setattr__(self, "rule_parameters", check_rule_parameters(self.rule, dict(self.rule_parameters)))
        elif self.rule_parameters:
            raise InputError("the threshold rule reads threshold, not rule_parameters")
        else:
            object.__setattr__(self, "rule_parameters", {})
        object.__setattr__(self, "dims", tuple(self.dims))
        object.__setattr__(self, "prefixes", {d: tuple(int(n) for n in v) for d, v in self.prefixes.items()})
        object.__setattr__(self, "files", {d: (str(v[0]), str(v[1])) for d, v in self.files.items()})
        for dim, (_name, kind) in self.files.items():
            if kind not in HIERARCHY_FORMATS:
                raise InputError(f"the hierarchy file of {dim} must be one of {', '.join(HIERARCHY_FORMATS)}, "
                                 f"got {kind!r}")

    def hierarchies(self, frame: pd.DataFrame, read: Mapping[str, Hierarchy] | None = None) -> dict[str, Hierarchy]:
        """Each dimension's hierarchy: from its codes' prefixes in ``frame``, or its file (``read``: already read)."""
        from rumap.io.data import read_file_bytes
        from rumap.tables.hierarchy import from_prefixes, read_hrc, read_parent_child

        out = {dim: from_prefixes(prefix_codes(frame, dim), list(lengths)) for dim, lengths in self.prefixes.items()}
        for dim, (name, kind) in self.files.items():
            if read is not None and dim in read:
                out[dim] = read[dim]
            else:
                text = read_file_bytes(name, f"the hierarchy of {dim}").decode("utf-8-sig")
                out[dim] = read_hrc(text) if kind == "hrc" else read_parent_child(text)
        return out

    def table(self, frame: pd.DataFrame, hierarchies: Mapping[str, Hierarchy]) -> NDTable:
        """The table with every subtotal."""
        from rumap.tables.ndtable import build_table

        return build_table(frame, list(self.dims), dict(hierarchies), self.value_column)

    def primary_parameters(self) -> dict[str, float]:
        """The rule's parameters: ``threshold`` for the threshold rule, else :attr:`rule_parameters`."""
        return {"threshold": self.threshold} if self.rule == "threshold" else dict(self.rule_parameters)

    def protect(self, table: NDTable) -> TableSuppression:
        """The table's primaries by the rule, protected."""
        from rumap.tables.table_suppression import suppress_table

        mask = table.primary_mask(self.rule, **self.primary_parameters())
        return suppress_table(table, mask, protection=self.protection, cost=self.cost, method=self.method)

    def run(self, frame: pd.DataFrame, read: Mapping[str, Hierarchy] | None = None) -> TableSuppression:
        """The protected table, built from ``frame`` (``read``: hierarchies of files already read)."""
        return self.protect(self.table(frame, self.hierarchies(frame, read)))
