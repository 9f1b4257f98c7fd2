"""Hierarchies of a table's spanning variable: codes, the parent of each, levels, and the readers of their files.

A hierarchy is a tree whose root is the variable's total, coded ``"Total"``
and left implicit: every other code has a parent, ``"Total"`` for the codes
of the top level. The codes of the records are the leaves; every other code
is a subtotal, the sum of its children. Three ways to write one:

- a tau-Argus ``.hrc`` file: one code a line, one ``@`` per level below the
  top (``A``, ``@A01``, ``@@A011``);
- a parent,child table (two columns; a missing parent, or ``Total``, for the
  codes of the top level);
- code prefixes: ``A`` is the parent of ``A01``, the parent of ``A011``, either
  by given lengths of each level's codes or by the longest other code that
  begins a code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import PARAMETERS, InstanceOf, Labels, NumberArray, validate_params
from rumap.errors import InputError
from rumap.io.formats import text_frame
from rumap.result import json_safe
from rumap.tables.published import TOTAL_LABEL, code_order

__all__ = ["Hierarchy", "TOTAL", "flat", "from_parents", "from_prefixes", "read_hrc", "read_parent_child"]

#: The code of a dimension's total, the root of every hierarchy.
TOTAL = TOTAL_LABEL


@dataclass(frozen=True)
class Hierarchy:
    """A tree of codes under the implicit ``"Total"``, each subtotal the sum of its children.

    Parameters
    ----------
    codes : tuple of str
        Every code but the total, depth first: each subtotal before its
        children, children in the order given (or in code order).
    parents : tuple of str
        The parent of each code, ``"Total"`` for the top level.

    Examples
    --------
    >>> h = read_hrc("A\\n@A1\\n@A2\\nB\\n")
    >>> h.codes, h.levels, h.leaves
    (('A', 'A1', 'A2', 'B'), (1, 2, 2, 1), ('A1', 'A2', 'B'))
    >>> h.children("A"), h.children("Total")
    (('A1', 'A2'), ('A', 'B'))
    """

    codes: tuple[str, ...]
    parents: tuple[str, ...]

    def __post_init__(self) -> None:
        codes = tuple(str(c) for c in self.codes)
        parents = tuple(str(p) for p in self.parents)
        if len(codes) != len(parents):
            raise InputError(f"a hierarchy needs one parent per code: {len(codes)} codes, {len(parents)} parents")
        if not codes:
            raise InputError("a hierarchy needs at least one code")
        seen: set[str] = set()
        for code, parent in zip(codes, parents, strict=True):
            _check_code(code)
            if code in seen:
                raise InputError(f"the code {code!r} appears twice in the hierarchy")
            if parent != TOTAL and parent not in seen:
                raise InputError(f"the parent {parent!r} of {code!r} must come before it in the hierarchy"
                                 if parent in codes else f"the parent {parent!r} of {code!r} is not a code of the "
                                 "hierarchy")
            seen.add(code)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "parents", parents)

    def parent(self, code: str) -> str:
        """The parent of ``code`` (``"Total"`` for the top level).

        Parameters
        ----------
        code : str

        Returns
        -------
        str
        """
        return self.parents[self.position(code)]

    def position(self, code: str) -> int:
        """The index of ``code`` in :attr:`codes`.

        Parameters
        ----------
        code : str

        Returns
        -------
        int
        """
        try:
            return self._index()[code]
        except KeyError:
            raise InputError(f"{code!r} is not a code of the hierarchy") from None

    def _index(self) -> dict[str, int]:
        cached = self.__dict__.get("_index_cache")
        if cached is None:
            cached = {code: i for i, code in enumerate(self.codes)}
            object.__setattr__(self, "_index_cache", cached)
        return cached

    def children(self, code: str) -> tuple[str, ...]:
        """The codes whose parent is ``code`` (``"Total"`` for the top level).

        Parameters
        ----------
        code : str

        Returns
        -------
        tuple of str
        """
        return tuple(c for c, p in zip(self.codes, self.parents, strict=True) if p == code)

    @property
    def levels(self) -> tuple[int, ...]:
        """The level of each code: 1 for the top level, 2 below it, ...; the total is level 0."""
        level: dict[str, int] = {TOTAL: 0}
        for code, parent in zip(self.codes, self.parents, strict=True):
            level[code] = level[parent] + 1
        return tuple(level[c] for c in self.codes)

    @property
    def depth(self) -> int:
        """The number of levels below the total."""
        return max(self.levels)

    @property
    def subtotals(self) -> tuple[str, ...]:
        """The codes with children."""
        has_children = set(self.parents)
        return tuple(c for c in self.codes if c in has_children)

    @property
    def leaves(self) -> tuple[str, ...]:
        """The codes without children: the codes records carry."""
        has_children = set(self.parents)
        return tuple(c for c in self.codes if c not in has_children)

    def ancestors(self, code: str) -> tuple[str, ...]:
        """The codes above ``code``, its parent first, up to the total (not included).

        Parameters
        ----------
        code : str

        Returns
        -------
        tuple of str
        """
        chain = []
        parent = self.parent(code)
        while parent != TOTAL:
            chain.append(parent)
            parent = self.parent(parent)
        return tuple(chain)

    def restricted(self, leaves: Iterable[str]) -> Hierarchy:
        """The hierarchy cut down to the given leaves and the subtotals above them.

        Parameters
        ----------
        leaves : iterable of str
            Leaves of this hierarchy.

        Returns
        -------
        Hierarchy
        """
        keep: set[str] = set()
        for leaf in leaves:
            keep.add(leaf)
            keep.update(self.ancestors(leaf))
        pairs = [(c, p) for c, p in zip(self.codes, self.parents, strict=True) if c in keep]
        return Hierarchy(tuple(c for c, _ in pairs), tuple(p for _, p in pairs))

    def to_frame(self) -> pd.DataFrame:
        """One row per code: ``code``, ``parent``, ``level``."""
        return pd.DataFrame({"code": list(self.codes), "parent": list(self.parents), "level": list(self.levels)})

    def to_dict(self) -> dict[str, Any]:
        """``{"codes": [...], "parents": [...]}``."""
        return json_safe({"codes": list(self.codes), "parents": list(self.parents)})

    def to_hrc(self) -> str:
        """The hierarchy as a tau-Argus ``.hrc`` text (one code a line, one ``@`` per level below the top)."""
        return "".join("@" * (level - 1) + code + "\n" for code, level in zip(self.codes, self.levels, strict=True))


def _shown(text: Any) -> str:
    """A code or line for a message: its repr, cut when long."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _check_code(code: str) -> None:
    if not code:
        raise InputError("a hierarchy has an empty code")
    if code == TOTAL:
        raise InputError(f"{TOTAL!r} is the code of the total, implicit in a hierarchy: remove it or rename it")


def _depth_first(parent_of: Mapping[str, str], order: Sequence[str], name: str) -> Hierarchy:
    """The hierarchy of ``{code: parent}`` with each subtotal before its children, siblings in ``order``.

    ``name`` (the parameter the codes came from) starts every message.
    """
    children: dict[str, list[str]] = {}
    for code in order:
        try:
            _check_code(code)  # a code "Total" would be its own child
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
        parent = parent_of[code]
        if parent != TOTAL and parent not in parent_of:
            raise InputError(f"{name}: the parent {_shown(parent)} of {_shown(code)} is not a code of the hierarchy")
        children.setdefault(parent, []).append(code)
    codes: list[str] = []
    parents: list[str] = []
    stack = [(TOTAL, c) for c in reversed(children.get(TOTAL, []))]
    while stack:
        parent, code = stack.pop()
        codes.append(code)
        parents.append(parent)
        stack.extend((code, c) for c in reversed(children.get(code, [])))
    if len(codes) < len(parent_of):
        lost = next(c for c in order if c not in set(codes))
        raise InputError(f"{name}: the hierarchy has a cycle through {_shown(lost)}")
    return Hierarchy(tuple(codes), tuple(parents))


_CODES = Labels("a list of codes (text or integers)")


@validate_params({"parent_of": InstanceOf(Mapping, "a mapping {code: parent}")},
                 example=lambda: {"parent_of": {"A1": "A", "A2": "A", "B": None}})
def from_parents(parent_of: Mapping[Any, Any]) -> Hierarchy:
    """A hierarchy from ``{code: parent}`` (a parent ``None`` or ``"Total"`` for the top level).

    Parameters
    ----------
    parent_of : mapping
        Each code's parent; a parent that is no key of the mapping is a code
        of the top level's.

    Returns
    -------
    Hierarchy

    Examples
    --------
    >>> from_parents({"A1": "A", "A2": "A", "B": None}).codes
    ('A', 'A1', 'A2', 'B')
    """
    if not parent_of:
        raise InputError("parent_of is empty: a hierarchy needs at least one code")
    codes = _CODES.check("parent_of", list(parent_of))
    parents: dict[str, str] = {}
    for code, parent in zip(codes, parent_of.values(), strict=True):
        if parent is None or (isinstance(parent, float) and pd.isna(parent)) or str(parent).strip() == "":
            parent = TOTAL
        elif isinstance(parent, (bool, float)) or not isinstance(parent, (str, Integral, np.integer)):
            raise InputError(f"parent_of: the parent of {code!r} must be a code (text or an integer) or None, "
                             f"got {parent!r}")
        else:
            parent = str(parent).strip()
        if code == parent:
            raise InputError(f"parent_of makes {code!r} its own parent")
        if code in parents:
            raise InputError(f"parent_of gives the code {code!r} twice")
        parents[code] = parent
    for parent in set(parents.values()) - set(parents) - {TOTAL}:
        parents[parent] = TOTAL
    return _depth_first(parents, sorted(parents, key=code_order), "parent_of")


@validate_params({"codes": _CODES}, example=lambda: {"codes": ["10", "2", "1"]})
def flat(codes: Iterable[Any]) -> Hierarchy:
    """The hierarchy of one level: every code's parent is the total.

    Parameters
    ----------
    codes : iterable
        The codes (read as text), sorted in code order.

    Returns
    -------
    Hierarchy

    Examples
    --------
    >>> flat(["10", "2", "1"]).codes
    ('1', '2', '10')
    """
    unique = sorted(set(codes), key=code_order)
    if TOTAL in unique:
        raise InputError(f"codes: {TOTAL!r} is the code of the total, implicit in a hierarchy: remove it or rename it")
    return Hierarchy(tuple(unique), (TOTAL,) * len(unique))


@validate_params({"text": InstanceOf(str, "the text of a .hrc file")}, example=lambda: {"text": "A\n@A1\nB\n"})
def read_hrc(text: str) -> Hierarchy:
    """Read a tau-Argus ``.hrc`` hierarchy: one code a line, one ``@`` per level below the top.

    Parameters
    ----------
    text : str
        The file's text. Blank lines are skipped; the total is implicit.

    Returns
    -------
    Hierarchy

    Raises
    ------
    InputError
        No code, a line more than one level below the line above it, an
        empty or repeated code, a code ``Total`` (named by its line).

    Examples
    --------
    >>> h = read_hrc("A\\n@A01\\n@@A011\\n@@A012\\n@A02\\nB\\n")
    >>> h.parent("A011"), h.parent("A02"), h.parent("B")
    ('A01', 'A', 'Total')
    """
    codes: list[str] = []
    parents: list[str] = []
    path: list[str] = []  # the codes above the current line, one per level
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        level = len(stripped) - len(stripped.lstrip("@"))
        code = stripped[level:].strip()
        if level > len(path):
            raise InputError(f"text: line {number} of the hierarchy ({_shown(stripped)}) is {level} levels down, "
                             f"but the line above is {len(path) - 1}: each level adds one '@'")
        try:
            _check_code(code)
        except InputError as exc:
            raise InputError(f"text: line {number} of the hierarchy ({_shown(stripped)}): {exc}") from None
        if code in seen:
            raise InputError(f"text: line {number} of the hierarchy has the code {_shown(code)} twice")
        seen.add(code)
        path = path[:level]
        codes.append(code)
        parents.append(path[-1] if path else TOTAL)
        path.append(code)
    if not codes:
        raise InputError("text: the hierarchy has no code (one code a line, one '@' per level below the top)")
    return Hierarchy(tuple(codes), tuple(parents))


@validate_params({"source": InstanceOf((str, pd.DataFrame), "a DataFrame or CSV text")},
                 example=lambda: {"source": "parent,child\nA,A1\nA,A2\n,B\n"})
def read_parent_child(source: Any) -> Hierarchy:
    """Read a hierarchy from a parent,child table (a DataFrame, or CSV text with a header line).

    Parameters
    ----------
    source : pandas.DataFrame or str
        Two columns, the parent then the child (named ``parent`` and
        ``child`` if such columns exist). A child of an empty parent, or of
        ``Total``, is at the top level; so is a parent that is no child.

    Returns
    -------
    Hierarchy

    Examples
    --------
    >>> h = read_parent_child("parent,child\\nA,A1\\nA,A2\\n,B\\n")
    >>> h.codes, h.parents
    (('A', 'A1', 'A2', 'B'), ('Total', 'A', 'A', 'Total'))
    """
    if isinstance(source, pd.DataFrame):
        frame = source
    else:
        frame = text_frame(source, "source: the parent,child hierarchy")
    if frame.shape[1] < 2:
        raise InputError("source: a parent,child hierarchy needs two columns: the parent, then the child")
    names = [str(c).strip().lower() for c in frame.columns]
    parent_col = names.index("parent") if "parent" in names else 0
    child_col = names.index("child") if "child" in names else 1
    parent_of: dict[str, Any] = {}
    for row, (parent, child) in enumerate(zip(frame.iloc[:, parent_col], frame.iloc[:, child_col], strict=True),
                                          start=1):
        where = f"source: row {row} of the parent,child hierarchy"
        if child is None or (isinstance(child, float) and pd.isna(child)) or not str(child).strip():
            raise InputError(f"{where} has no child")
        if not isinstance(child, (str, Integral, np.integer)) or isinstance(child, bool):
            raise InputError(f"{where} has the child {_shown(child)}, which is no code")
        child = str(child).strip()
        if child in parent_of:
            raise InputError(f"{where}: {_shown(child)} has two parents")
        parent_of[child] = None if parent is None or (isinstance(parent, float) and pd.isna(parent)) else parent
    if not parent_of:
        raise InputError("source: the parent,child hierarchy has no row")
    try:
        return from_parents(parent_of)
    except InputError as exc:
        raise InputError(f"source: {str(exc).removeprefix('parent_of: ')}") from None


@validate_params({"codes": _CODES, "lengths": [None, NumberArray(PARAMETERS["code_length"], ndim=(1,))]},
                 example=lambda: {"codes": ["A011", "A012", "A02", "B011"], "lengths": [1, 3, 4]})
def from_prefixes(codes: Iterable[Any], lengths: Sequence[int] | None = None) -> Hierarchy:
    """A hierarchy of codes that begin with their parent's code (A, A01, A011).

    Parameters
    ----------
    codes : iterable
        The codes (read as text): at least the leaves.
    lengths : sequence of int, optional
        The length of the codes of each level, top first (``(1, 3, 4)`` for
        A, A01, A011): every code is cut to each shorter length to make its
        subtotals, which need not be among ``codes``. Without it, the parent of
        a code is the longest other code among ``codes`` that begins it.

    Returns
    -------
    Hierarchy

    Raises
    ------
    InputError
        Lengths not increasing, or a code whose length is not one of them; a
        code (or subtotal) ``Total``.

    Examples
    --------
    >>> h = from_prefixes(["A011", "A012", "A02", "B011"], lengths=[1, 3, 4])
    >>> h.codes
    ('A', 'A01', 'A011', 'A012', 'A02', 'B', 'B01', 'B011')
    >>> from_prefixes(["A", "A01", "A02", "B"]).parent("A02")
    'A'
    """
    unique = sorted(set(codes), key=code_order)
    parent_of: dict[str, str] = {}
    if lengths is not None:
        steps = [int(n) for n in lengths]
        if any(b <= a for a, b in zip(steps, steps[1:], strict=False)):
            raise InputError(f"lengths of the levels' codes must increase, got {steps}")
        for code in unique:
            if len(code) not in steps:
                raise InputError(f"codes: the code {_shown(code)} has {len(code)} characters; lengths of the "
                                 f"levels' codes are {', '.join(map(str, steps))}")
            level = steps.index(len(code))
            for k in range(level, -1, -1):
                part = code[:steps[k]]
                parent_of.setdefault(part, code[:steps[k - 1]] if k > 0 else TOTAL)
    else:
        present = set(unique)
        for code in unique:
            parent_of[code] = next((code[:n] for n in range(len(code) - 1, 0, -1) if code[:n] in present), TOTAL)
    return _depth_first(parent_of, sorted(parent_of, key=code_order), "codes")
