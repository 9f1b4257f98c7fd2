"""The JJ format of cell suppression instances: read, write, make from a table, and solve.

The format the cell-suppression literature exchanges instances in (as
sdcTable's ``createJJFormat`` / ``writeJJFormat`` write it), whitespace
separated:

- a line ``0``;
- the number of cells n;
- n lines ``index value cost status lb ub LPL UPL SPL``: index from 0, the
  cell's value, the cost of suppressing it, its status (``u`` unsafe: a
  primary; ``s`` safe; ``z`` safe and to be published; ``x`` a suppressed
  secondary of an earlier run, here a cell that may be suppressed), the
  external bounds lb <= y <= ub the attacker knows, and the lower, upper and
  sliding protection levels (absolute);
- the number of equations m;
- m lines ``rhs k : j (coef) j (coef) ...``: sum_j coef y_j = rhs over k terms.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from rumap._validation import (
    MAX_MAGNITUDE,
    BooleanArray,
    InstanceOf,
    StrOptions,
    parse_integer,
    parse_number,
    validate_params,
)
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.ndtable import NDTable, example_table
from rumap.tables.rules import freeze_array_fields
from rumap.tables.secondary import COSTS
from rumap.tables.table_suppression import TABLE_SUPPRESSION_METHODS, SuppressionProblem, _audited, pattern_gap

__all__ = ["JJInstance", "JJSolution", "STATUS_CODES", "instance_from_table", "read_jj", "solve_jj", "write_jj"]

#: The JJ format's cell statuses.
STATUS_CODES = {"u": "unsafe (primary)", "s": "safe", "z": "safe, to be published", "x": "suppressed earlier"}

_TERM = re.compile(r"^(-?[0-9]+)\s*\(\s*([^()\s]+)\s*\)$")

#: The numeric fields of a cell's line after its index and the status, in the file's order.
_CELL_FIELDS = ("value", "cost", "lb", "ub", "LPL", "UPL", "SPL")


@dataclass(frozen=True)
class JJInstance:
    """A cell suppression instance: cells with their bounds and protection levels, and linear equations.

    Parameters
    ----------
    values, costs : ndarray
        Each cell's value and cost of suppression.
    status : tuple of str
        Each cell's status (:data:`STATUS_CODES`).
    lower, upper : ndarray
        External bounds lb_i <= y_i <= ub_i.
    lpl, upl, spl : ndarray
        Lower, upper and sliding protection levels.
    equations : scipy.sparse.csr_matrix
        A of A y = rhs.
    rhs : ndarray
    """

    values: np.ndarray
    costs: np.ndarray
    status: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray
    lpl: np.ndarray
    upl: np.ndarray
    spl: np.ndarray
    equations: sparse.csr_matrix
    rhs: np.ndarray
    config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = np.asarray(self.values).size
        for name in ("costs", "lower", "upper", "lpl", "upl", "spl"):
            if np.asarray(getattr(self, name)).size != n:
                raise InputError(f"a JJ instance needs one {name} per cell")
        if len(self.status) != n or self.equations.shape[1] != n:
            raise InputError("a JJ instance needs one status and one equation column per cell")
        bad = sorted(set(self.status) - set(STATUS_CODES))
        if bad:
            raise InputError(f"a JJ cell status is one of {', '.join(STATUS_CODES)}, got {bad[0]!r}")
        for name in ("values", "costs", "lower", "upper", "lpl", "upl", "spl", "rhs"):
            if not np.isfinite(np.asarray(getattr(self, name), dtype=float)).all():
                raise InputError(f"a JJ instance's {name} must be finite numbers")
        for name in ("lpl", "upl", "spl"):
            negative = np.flatnonzero(np.asarray(getattr(self, name), dtype=float) < 0)
            if negative.size:
                raise InputError(f"a JJ instance's {name} of cell {int(negative[0])} is negative "
                                 f"({float(getattr(self, name)[negative[0]]):g}); protection levels are >= 0")
        object.__setattr__(self, "equations", sparse.csr_matrix(self.equations))
        freeze_array_fields(self)

    @property
    def primaries(self) -> np.ndarray:
        """The positions of the unsafe cells."""
        return np.flatnonzero(np.array(self.status) == "u")

    def to_text(self) -> str:
        """The instance in the JJ format (:func:`write_jj`)."""
        return write_jj(self)

    def to_dict(self) -> dict[str, Any]:
        """The cells and the equations as JSON-ready lists."""
        eq = self.equations.tocoo()
        return json_safe({"values": self.values, "costs": self.costs, "status": list(self.status),
                          "lower": self.lower, "upper": self.upper, "lpl": self.lpl, "upl": self.upl,
                          "spl": self.spl, "rhs": self.rhs,
                          "equations": {"row": eq.row, "column": eq.col, "coefficient": eq.data}})


@dataclass(frozen=True)
class JJSolution:
    """A protecting pattern of a JJ instance, its cost and proof, and each primary's audited interval.

    Parameters
    ----------
    suppressed : ndarray of bool
        Primaries and secondaries.
    cost, lower_bound, gap : float
    optimal : bool
    method : str
    audit_min, audit_max : ndarray
        Each primary's attacker interval.
    protected : ndarray of bool
    status : {"protected", "infeasible"}
        ``"infeasible"`` when the cells' values do not satisfy the instance's
        equations (no table has them): nothing is suppressed, the cost, bound,
        gap and audit are NaN and no primary is protected; ``reason`` names the
        first equation broken. The statuses follow SciPy's ``milp``, whose
        infeasible problem is a status, not an error.
    reason : str
        Why the instance is infeasible (empty when protected).
    """

    suppressed: np.ndarray
    cost: float
    lower_bound: float
    gap: float
    optimal: bool
    method: str
    audit_min: np.ndarray
    audit_max: np.ndarray
    protected: np.ndarray
    status: str = "protected"
    reason: str = ""

    def __post_init__(self) -> None:
        freeze_array_fields(self)

    def to_dict(self) -> dict[str, Any]:
        """``{"suppressed", "cost", "lower_bound", "gap", "optimal", "method", "audit", "status", "reason"}``."""
        return json_safe({"suppressed": np.flatnonzero(self.suppressed), "cost": self.cost,
                          "lower_bound": self.lower_bound, "gap": self.gap, "optimal": self.optimal,
                          "method": self.method, "audit": {"min": self.audit_min, "max": self.audit_max,
                                                           "protected": self.protected},
                          "status": self.status, "reason": self.reason})


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def _number(text: str, what: str, line: int) -> float:
    try:
        value = parse_number(text)
    except ValueError:
        raise InputError(f"text: line {line} of the JJ file has {_shown(text)} where {what} should be a number") \
            from None
    if not np.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise InputError(f"text: line {line} of the JJ file has {_shown(text)} as {what}: numbers must be finite "
                         f"and at most {MAX_MAGNITUDE:.0e} in magnitude")
    return value


def _count(text: str, what: str, line: int) -> int:
    """A whole number >= 0 written in ASCII digits (no fraction, no sign)."""
    try:
        if text.startswith(("-", "+")):
            raise ValueError(text)
        return parse_integer(text)
    except ValueError:  # also an integer of more digits than Python converts
        raise InputError(f"text: line {line} of the JJ file has {_shown(text)} where {what} should be a whole "
                         "number >= 0") from None


@validate_params({"text": InstanceOf(str, "the text of a JJ file")},
                 example=lambda: {"text": "0\n3\n0 7 7 s 0 70 0 0 0\n1 3 3 u 0 70 1 1 0\n2 4 4 s 0 70 0 0 0\n1\n"
                                          "0.0 3 : 0 (-1) 1 (1) 2 (1)\n"})
def read_jj(text: str) -> JJInstance:
    """Read an instance in the JJ format.

    Parameters
    ----------
    text : str
        The file's text.

    Returns
    -------
    JJInstance

    Raises
    ------
    InputError
        A malformed line, a wrong or fractional count, an unknown status, an
        index out of range, a negative protection level (named by its line).

    Examples
    --------
    >>> inst = read_jj("0\\n3\\n0 7 7 s 0 70 0 0 0\\n1 3 3 u 0 70 1 1 0\\n2 4 4 s 0 70 0 0 0\\n1\\n0.0 3 : 0 (-1) 1 (1) 2 (1)\\n")
    >>> inst.primaries, inst.equations.toarray()
    (array([1]), array([[-1.,  1.,  1.]]))
    """
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(lines) < 2:
        raise InputError("text: a JJ file starts with a line 0 and the number of cells")
    line, head = lines[1]
    n = _count(head.split()[0], "the number of cells", line)
    if n < 1 or len(lines) < 3 + n:
        raise InputError(f"text: line {line} of the JJ file announces {n} cells but {max(0, len(lines) - 2)} "
                         "lines follow it")
    cells = np.zeros((n, 7))
    status: list[str] = []
    for i in range(n):
        line, content = lines[2 + i]
        parts = content.split()
        if len(parts) != 9:
            raise InputError(f"text: line {line} of the JJ file has {len(parts)} fields, not 9 (index value cost "
                             "status lb ub LPL UPL SPL)")
        if _count(parts[0], "a cell index", line) != i:
            raise InputError(f"text: line {line} of the JJ file has the index {_shown(parts[0])}, not {i}")
        if parts[3] not in STATUS_CODES:
            raise InputError(f"text: line {line} of the JJ file has the status {_shown(parts[3])}; a status is one "
                             f"of {', '.join(STATUS_CODES)}")
        status.append(parts[3])
        cells[i] = [_number(p, what, line) for p, what in zip((*parts[1:3], *parts[4:]), _CELL_FIELDS, strict=True)]
        negative = [what for what, value in zip(_CELL_FIELDS[-3:], cells[i, -3:], strict=True) if value < 0]
        if negative:
            raise InputError(f"text: line {line} of the JJ file has a negative {negative[0]}; protection levels "
                             "are >= 0")
    line, head = lines[2 + n]
    m = _count(head.split()[0], "the number of equations", line)
    if len(lines) != 3 + n + m:
        raise InputError(f"text: line {line} of the JJ file announces {m} equations but {len(lines) - 3 - n} "
                         "lines follow it")
    rows, cols, data, rhs = [], [], [], []
    for r in range(m):
        line, content = lines[3 + n + r]
        head, sep, terms = content.partition(":")
        fields = head.split()
        if not sep or len(fields) != 2:
            raise InputError(f"text: line {line} of the JJ file (equation {r + 1}) must read 'rhs k : j (coef) ...'")
        rhs.append(_number(fields[0], "an equation's right-hand side", line))
        announced = _count(fields[1], "an equation's number of terms", line)
        found = re.findall(r"-?[0-9]+\s*\([^()]*\)", terms)
        if len(found) != announced or re.sub(r"-?[0-9]+\s*\([^()]*\)", "", terms).strip():
            raise InputError(f"text: line {line} of the JJ file (equation {r + 1}) announces {announced} terms "
                             f"'j (coef)', has {len(found)}")
        for term in found:
            match = _TERM.match(term.strip())
            if match is None:
                raise InputError(f"text: line {line} of the JJ file has the term {_shown(term)}")
            j = _count(match.group(1), "a cell index", line) if not match.group(1).startswith("-") else -1
            if not 0 <= j < n:
                raise InputError(f"text: line {line} of the JJ file names the cell {_shown(match.group(1))}, "
                                 f"outside 0..{n - 1}")
            rows.append(r)
            cols.append(j)
            data.append(_number(match.group(2), "a coefficient", line))
    equations = sparse.csr_matrix((data, (rows, cols)), shape=(m, n))
    return JJInstance(cells[:, 0], cells[:, 1], tuple(status), cells[:, 2], cells[:, 3], cells[:, 4], cells[:, 5],
                      cells[:, 6], equations, np.array(rhs, dtype=float))


def _broken_equation(instance: JJInstance) -> str:
    """Why the cells' values break the instance's equations, or "" when they satisfy them (relative 1e-9)."""
    residual = instance.equations @ instance.values - instance.rhs
    scale = abs(instance.equations) @ np.abs(instance.values) + np.abs(instance.rhs)
    broken = np.flatnonzero(np.abs(residual) > 1e-9 * np.maximum(scale, 1.0))
    if not broken.size:
        return ""
    r = int(broken[0])
    return (f"equation {r + 1} does not hold for the cells' values: they give {residual[r] + instance.rhs[r]:g}, "
            f"the right-hand side is {instance.rhs[r]:g} ({broken.size} equation(s) broken)")


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


@validate_params({"instance": InstanceOf(JJInstance)}, example=lambda: _example_instance())
def write_jj(instance: JJInstance) -> str:
    """The instance as JJ-format text (the layout sdcTable's ``writeJJFormat`` writes).

    Parameters
    ----------
    instance : JJInstance

    Returns
    -------
    str

    Examples
    --------
    >>> text = "0\\n3\\n0 7 7 s 0 70 0 0 0\\n1 3 3 u 0 70 1 1 0\\n2 4 4 s 0 70 0 0 0\\n1\\n0.0 3 : 0 (-1) 1 (1) 2 (1)\\n"
    >>> write_jj(read_jj(text)) == text
    True
    """
    lines = ["0", str(instance.values.size)]
    for i in range(instance.values.size):
        fields = (instance.values[i], instance.costs[i], instance.status[i], instance.lower[i], instance.upper[i],
                  instance.lpl[i], instance.upl[i], instance.spl[i])
        lines.append(" ".join([str(i), *(f if isinstance(f, str) else _fmt(f) for f in fields)]))
    lines.append(str(instance.equations.shape[0]))
    eq = instance.equations
    for r in range(eq.shape[0]):
        cols = eq.indices[eq.indptr[r]:eq.indptr[r + 1]]
        data = eq.data[eq.indptr[r]:eq.indptr[r + 1]]
        order = np.argsort(cols)
        terms = " ".join(f"{int(j)} ({_fmt(v)})" for j, v in zip(cols[order], data[order], strict=True))
        lines.append(f"{float(instance.rhs[r])!r} {cols.size} : {terms}")
    return "\n".join(lines) + "\n"


def _table_example() -> dict[str, Any]:
    table = example_table()
    return {"table": table, "primary_mask": table.primary_mask("threshold", threshold=2)}


@validate_params({"table": InstanceOf(NDTable, "an NDTable"),
                  "primary_mask": BooleanArray(),
                  "protection": "protection",
                  "cost": StrOptions(COSTS)},
                 example=_table_example)
def instance_from_table(table: NDTable, primary_mask: Any, protection: float = 10.0,
                        cost: str = "value") -> JJInstance:
    """The JJ instance of a table: its cells, costs, primaries and protection levels, and every equation.

    Parameters
    ----------
    table : NDTable
    primary_mask : array_like of bool
        One per cell.
    protection : float, default 10
        LPL = UPL = protection % of each primary's value; SPL = 0.
    cost : {"value", "cells", "unity"}, default "value"

    Returns
    -------
    JJInstance
        lb = 0; ub = 10 times the sum of every cell (no upper knowledge);
        empty cells have status ``z`` (known zeros).

    Examples
    --------
    >>> from rumap.tables.ndtable import example_table
    >>> table = example_table()
    >>> inst = instance_from_table(table, table.primary_mask("threshold", threshold=2), protection=20)
    >>> inst.values.size, inst.equations.shape[0], inst.primaries.size
    (28, 19, 8)
    """
    mask = primary_mask
    if mask.size != table.size:
        raise InputError(f"primary_mask has {mask.size} entries, the table {table.size} cells")
    values, freq = table.values, table.frequencies
    status = np.where(mask, "u", np.where(freq == 0, "z", "s"))
    levels = np.where(mask, values * protection / 100.0, 0.0)
    big = 10.0 * float(values.sum()) + 1.0
    return JJInstance(values, COSTS[cost](values, freq), tuple(str(s) for s in status), np.zeros(table.size),
                      np.full(table.size, big), levels, levels.copy(), np.zeros(table.size), table.equations(),
                      np.zeros(table.equations().shape[0]), {"dims": list(table.dims), "protection": protection})


def _example_instance() -> dict[str, Any]:
    table = example_table()
    return {"instance": instance_from_table(table, table.primary_mask("threshold", threshold=2), 20.0)}


@validate_params({"instance": InstanceOf(JJInstance), "method": StrOptions(TABLE_SUPPRESSION_METHODS),
                  "time_limit": "time_limit"},
                 example=_example_instance)
def solve_jj(instance: JJInstance, method: str = "optimal", time_limit: float = 30.0) -> JJSolution:
    """Protect a JJ instance's primaries at least cost, and audit the pattern.

    Parameters
    ----------
    instance : JJInstance
    method : str, default "optimal"
        A key of :data:`rumap.tables.table_suppression.TABLE_SUPPRESSION_METHODS`.
    time_limit : float, default 30

    Returns
    -------
    JJSolution
        Its ``status`` is ``"infeasible"`` when the cells' values break an
        equation (beyond a relative 1e-9): no pattern is sought.

    Raises
    ------
    InputError
        Sliding protection levels (not supported), values outside their
        bounds, or no protecting pattern.

    Notes
    -----
    The attacker knows the published cells, the equations and
    lb_i <= y_i <= ub_i; a primary k is protected when his LPs reach
    a_k - LPL_k and a_k + UPL_k (Fischetti & Salazar 2001). Cells ``z`` are
    never suppressed.

    Examples
    --------
    >>> inst = read_jj("0\\n3\\n0 7 7 s 0 70 0 0 0\\n1 3 3 u 0 70 1 1 0\\n2 4 4 s 0 70 0 0 0\\n1\\n0.0 3 : 0 (-1) 1 (1) 2 (1)\\n")
    >>> solution = solve_jj(inst)
    >>> solution.suppressed.nonzero()[0], solution.cost, solution.optimal
    (array([1, 2]), 4.0, True)
    """
    if (instance.spl[instance.primaries] > 0).any():
        raise InputError("sliding protection levels (SPL > 0) are not supported: give LPL and UPL")
    if ((instance.values < instance.lower - 1e-9) | (instance.values > instance.upper + 1e-9)).any():
        raise InputError("a JJ cell's value lies outside its bounds lb..ub")
    broken = _broken_equation(instance)
    if broken:
        primaries = instance.primaries.size
        return JJSolution(np.zeros(instance.values.size, dtype=bool), math.nan, math.nan, math.nan, False, method,
                          np.full(primaries, math.nan), np.full(primaries, math.nan), np.zeros(primaries, dtype=bool),
                          "infeasible", broken)
    status = np.array(instance.status)
    keep = np.flatnonzero(status != "z")
    position = np.full(instance.values.size, -1)
    position[keep] = np.arange(keep.size)
    equations = instance.equations[:, keep].tocsr()
    primaries = position[instance.primaries]
    problem = SuppressionProblem(
        values=instance.values[keep], equations=equations, weights=instance.costs[keep], primaries=primaries,
        upper=instance.upl[instance.primaries], lower=instance.lpl[instance.primaries], covers=(),
        time_limit=float(time_limit), tables=(), positions=(), lower_bounds=instance.lower[keep],
        upper_bounds=instance.upper[keep],
        rhs=instance.rhs - instance.equations[:, status == "z"] @ instance.values[status == "z"])
    from rumap.tables._attacker import Pattern

    pattern = (TABLE_SUPPRESSION_METHODS[method](problem) if primaries.size else
               Pattern(np.zeros(keep.size, dtype=bool), 0.0, 0.0, True, "milp", 0, 0))
    pattern, low, high, ok = _audited(problem, pattern)
    suppressed = np.zeros(instance.values.size, dtype=bool)
    suppressed[keep] = pattern.suppressed
    suppressed[instance.primaries] = True
    return JJSolution(suppressed, float(pattern.cost), float(pattern.lower_bound), pattern_gap(pattern),
                      bool(pattern.optimal), method, low, high, ok)
