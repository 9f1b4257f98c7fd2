"""The cell key method on magnitude tables, as R's cellKey (1.0) perturbs a numeric variable.

A cell's value is the (weighted) sum of its records' values x. Its perturbation
is built from its magnifiers: the ``top_k`` largest contributions (by |x|, then
by weight; their weighted values ``w x``), or the cell's weighted mean, the
spread of its x (largest minus smallest) or its sum (``type``). For each
magnifier x_j in turn, with the value so far xo (the original first):

- its perturbation magnitude ``x_delta = x_j m_j``: with the flex function
  (``multiplier="flex"``) ``m_j = p_small`` below the flex point ``fp`` and
  ``p_large (1 + (p_small x - p_large fp) / (p_large fp) (2 fp / (fp + x))^q)
  epsilon_j`` from it on (x = |x_j|); with ``"simple"``, ``m_j = p epsilon_j``;
  when |xo| < |x_delta|, ``x_delta = xo``;
- the perturbation table's v at the class ``a = |xo / x_delta|`` (cut at the
  table's largest class D) and the cell key k_j: the row of a class ``a`` holds,
  between two classes ``a0 < a < a1`` the mix ``(1 - l) v(a0) + l v(a1)`` with
  ``l = (a - a0) / (a1 - a0)``, each v the row's first whose ``p_int_ub``
  exceeds k_j;
- ``x_hat_j = sign(xo) |x_delta| sign(v) (mu + |v|)`` (``mu = mu_c`` for a cell
  flagged sensitive, else 0), never taking the value past zero when v < 0;
  ``xo`` becomes ``xo + x_hat_j``.

The published value is the original plus the sum of the x_hat_j. Cell keys are
those of the records with a non-zero value (``use_zero_rkeys=False``, cellKey's
default) or of every record; k_1 is the cell key (``same_key``; otherwise its
first decimal digit moved to the end) and each next k_j the previous one's
digits rotated so, as cellKey writes the key with 15 significant digits. A cell
without contributions, or whose value is 0, is published unchanged.

Differences from cellKey 1.0.2/1.0.3: cell keys are the exact sums of 8-digit
record keys (cellKey's floating-point sums differ in the 15th digit, which the
rotation of ``top_k > 1`` or ``same_key=False`` moves forward); separate
perturbation tables for small cells (``separation``) and for cells of even and
odd numbers of contributors (``even_odd``) are not offered; a magnifier met
when the value so far is 0 adds nothing (cellKey returns NA).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, Boolean, InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.tables.cellkey import CellKeyTable, _check_keys, _integer_keys, cell_keys, record_keys
from rumap.tables.ndtable import NDTable, build_table
from rumap.tables.ptable import PTable, create_ptable

__all__ = ["MAGNITUDE_TYPES", "MagnitudeParams", "magnitude_params", "perturb_magnitudes", "scramble_keys",
           "cellkey_magnitude_table"]

#: What a cell's perturbation scales: its largest contributions, its mean, its spread or its sum.
MAGNITUDE_TYPES = ("top_contr", "mean", "range", "sum")
#: The multipliers of the perturbation's magnitude: cellKey's flex function or one percentage.
MULTIPLIERS = ("flex", "simple")
#: The most contributions a perturbation scales (cellKey's limit).
TOP_MOST = 6


@dataclass(frozen=True)
class MagnitudeParams:
    """The parameters of the cell key method on a magnitude table (cellKey's ``ck_params_nums``).

    Build it with :func:`magnitude_params`, which checks it.

    Parameters
    ----------
    type : {"top_contr", "mean", "range", "sum"}
    top_k : int
        The contributions scaled (1 unless ``type`` is ``"top_contr"``).
    multiplier : {"flex", "simple"}
    fp, p_small, p_large, q : float
        The flex function's flex point, its percentages for small and large values, and its exponent.
    p : float
        The simple multiplier's percentage.
    epsilon : tuple of float
        The weight of each contribution's multiplier (the first 1, then not increasing).
    mu_c : float
        The least |v| of a sensitive cell's perturbation (added to |v|).
    same_key : bool
        Whether the first contribution uses the cell key itself.
    use_zero_rkeys : bool
        Whether the records whose value is 0 count in the cell key.
    """

    type: str = "top_contr"
    top_k: int = 1
    multiplier: str = "flex"
    fp: float = 0.0
    p_small: float = 0.25
    p_large: float = 0.05
    q: float = 3.0
    p: float = 0.0
    epsilon: tuple[float, ...] = (1.0,)
    mu_c: float = 0.0
    same_key: bool = True
    use_zero_rkeys: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The parameters, those of the other multiplier left out."""
        out = {"type": self.type, "top_k": self.top_k, "multiplier": self.multiplier}
        out.update({"fp": self.fp, "p_small": self.p_small, "p_large": self.p_large, "q": self.q}
                   if self.multiplier == "flex" else {"p": self.p})
        out.update(epsilon=list(self.epsilon), mu_c=self.mu_c, same_key=self.same_key,
                   use_zero_rkeys=self.use_zero_rkeys)
        return json_safe(out)


@validate_params({"type": StrOptions(MAGNITUDE_TYPES), "top_k": [None, "ckm_top_k"],
                  "multiplier": StrOptions(MULTIPLIERS), "fp": [None, "ckm_flex_point"], "p_small": "ckm_percentage",
                  "p_large": "ckm_percentage", "q": "ckm_flex_exponent", "p": [None, "ckm_percentage"],
                  "mu_c": "ckm_mu_c", "same_key": Boolean(), "use_zero_rkeys": Boolean()},
                 example=lambda: {"type": "top_contr", "top_k": 2, "fp": 1000.0, "epsilon": [1.0, 0.5]})
def magnitude_params(type: str = "top_contr", top_k: int | None = None, *, multiplier: str = "flex",
                     fp: float | None = None, p_small: float = 0.25, p_large: float = 0.05, q: float = 3.0,
                     p: float | None = None, epsilon: Sequence[float] = (1.0,), mu_c: float = 0.0,
                     same_key: bool = True, use_zero_rkeys: bool = False) -> MagnitudeParams:
    """The checked parameters of the cell key method on a magnitude table, as cellKey's ``ck_params_nums`` with
    ``ck_flexparams`` (``multiplier="flex"``) or ``ck_simpleparams`` (``"simple"``) checks them.

    Parameters
    ----------
    type : {"top_contr", "mean", "range", "sum"}, default "top_contr"
    top_k : int, optional
        1 to 6 contributions (``top_contr`` only; default 1).
    multiplier : {"flex", "simple"}, default "flex"
    fp : float, optional
        The flex point (> 0; the flex function needs it).
    p_small, p_large : float, default 0.25 and 0.05
        The flex function's percentages, in [0, 1], ``p_small >= p_large``.
    q : float, default 3
        The flex function's exponent (>= 1).
    p : float, optional
        The simple multiplier's percentage, in (0, 1].
    epsilon : sequence of float, default (1,)
        One weight per contribution (``top_k`` of them): the first 1, each in [0, 1], not increasing.
    mu_c : float, default 0
        Added to |v| of a sensitive cell's first perturbation (>= 0).
    same_key, use_zero_rkeys : bool

    Returns
    -------
    MagnitudeParams

    Examples
    --------
    >>> magnitude_params("top_contr", 2, fp=1000, epsilon=[1, 0.5]).to_dict()["epsilon"]
    [1.0, 0.5]
    """
    if type == "top_contr":
        top_k = 1 if top_k is None else int(top_k)
    elif top_k not in (None, 1):
        raise InputError(f"top_k applies to type top_contr, not {type}")
    else:
        top_k = 1
    eps = np.asarray(list(epsilon) if not isinstance(epsilon, (int, float)) else [epsilon], dtype=float)
    if eps.size != top_k:
        raise InputError(f"epsilon must hold one weight per contribution (top_k = {top_k}), got {eps.size}")
    if eps[0] != 1 or np.any((eps < 0) | (eps > 1)) or np.any(np.diff(eps) > 0):
        raise InputError(f"epsilon must start at 1 and not increase, each in [0, 1], got {eps.tolist()}")
    out: dict[str, Any] = {"type": type, "top_k": top_k, "multiplier": multiplier, "epsilon": tuple(eps.tolist()),
                           "mu_c": float(mu_c), "same_key": bool(same_key),
                           "use_zero_rkeys": bool(use_zero_rkeys)}
    if multiplier == "flex":
        if fp is None:
            raise InputError("the flex multiplier needs its flex point fp")
        out.update(fp=float(fp), p_small=float(p_small), p_large=float(p_large), q=float(q))
        if out["p_small"] < out["p_large"]:
            raise InputError(f"p_small ({out['p_small']:g}) must not be below p_large ({out['p_large']:g})")
    else:
        if p is None or p == 0:
            raise InputError(f"the simple multiplier needs its percentage p, > 0 and <= 1, got {p!r}")
        out["p"] = float(p)
    return MagnitudeParams(**out)


def _r_text(x: float) -> str:
    """``as.character(x)`` of R for a number in [0, 1): 15 significant digits, fixed unless scientific is shorter."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.14e}".split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    power = int(exponent)
    sci = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + f"e{'-' if power < 0 else '+'}{abs(power):02d}"
    fixed = f"{x:.{max(len(digits) - 1 - power, 0)}f}"
    return fixed if len(fixed) <= len(sci) else sci


@assumes_valid
def scramble_keys(key: float, top_k: int, same_key: bool) -> list[float]:
    """The cell keys of a cell's ``top_k`` contributions (cellKey's ``.scramble_ckeys``).

    The first is ``key`` (``same_key``) or ``key`` with its first decimal digit moved to the end; each next one
    the previous one's so, on the key as R writes it (15 significant digits).

    Parameters
    ----------
    key : float
        The cell key.
    top_k : int
    same_key : bool

    Returns
    -------
    list of float

    Examples
    --------
    >>> scramble_keys(0.12345678, 3, True)
    [0.12345678, 0.23456781, 0.34567812]
    >>> scramble_keys(0.12345678, 1, False)
    [0.23456781]
    """
    text = _r_text(float(key))
    begin, size = text[:2], len(text)
    keys = [text]
    if not same_key:
        rest = text[3:size]
        keys[0] = begin + (rest if rest else "0") + text[2:3]
    for _ in range(1, top_k):
        previous = keys[-1]
        keys.append(begin + previous[3:size] + previous[2:3])
    return [float(k) if k not in ("", "0.", ".") else 0.0 for k in keys]


def _flex(x: np.ndarray, params: MagnitudeParams) -> np.ndarray:
    """cellKey's flex function of |x| from the flex point on."""
    f1 = (params.p_small * x - params.p_large * params.fp) / (params.p_large * params.fp)
    return params.p_large * (1.0 + f1 * (2.0 * params.fp / (params.fp + x)) ** params.q)


def _lookup(a: np.ndarray, keys: np.ndarray, ptable: PTable) -> np.ndarray:
    """v at classes ``a`` (cut at the largest) and keys: a class's row, or the mix of the two rows around it."""
    rows = ptable.rows
    classes = np.unique(rows["i"].to_numpy(dtype=float))
    a = np.minimum(a, classes[-1])
    upper = np.searchsorted(classes, a, side="left")
    exact = classes[np.minimum(upper, classes.size - 1)] == a
    high = np.minimum(upper, classes.size - 1)
    low = np.where(exact, high, upper - 1)
    lam = np.where(exact, 0.0, (a - classes[low]) / np.where(exact, 1.0, classes[high] - classes[low]))

    def v_at(index: np.ndarray) -> np.ndarray:
        out = np.zeros(a.size)
        for c in np.unique(index):
            row = rows[rows["i"] == classes[c]]
            ub = row["p_int_ub"].to_numpy(dtype=float)
            cells = index == c
            pos = np.minimum(np.searchsorted(ub, keys[cells], side="right"), ub.size - 1)
            out[cells] = row["v"].to_numpy(dtype=float)[pos]
        return out

    v = (1.0 - lam) * v_at(low) + lam * v_at(high)
    return np.where(keys == 0, 0.0, v)  # a key of 0: no perturbation (cellKey's lookup)


@validate_params({"ptable": InstanceOf(PTable, "a PTable (see rumap.tables.ptable.create_ptable)"),
                  "params": InstanceOf(MagnitudeParams, "MagnitudeParams (see magnitude_params)")},
                 example=lambda: {"values": [500.0, 2500.0], "magnifiers": [[300.0], [2000.0]],
                                  "keys": [[0.3], [0.9]], "ptable": create_ptable(5, 2, table="nums", step=4,
                                                                                  icat=[1, 3, 5]),
                                  "params": magnitude_params(fp=1000)})
def perturb_magnitudes(values: Sequence[float], magnifiers: Any, keys: Any, ptable: PTable,
                       params: MagnitudeParams, sensitive: Sequence[bool] | None = None) -> np.ndarray:
    """The perturbation of each cell: the sum of its x_hat_j (module docstring).

    Parameters
    ----------
    values : sequence of float
        The cells' original values.
    magnifiers : array-like, shape (cells, top_k)
        Each cell's magnifiers x_j, NaN where a cell has fewer.
    keys : array-like, shape (cells, top_k)
        The cell keys of each magnifier (:func:`scramble_keys`); a first key of 0: no contributions.
    ptable : PTable
        A magnitude table's perturbation table (``create_ptable(..., table="nums")``).
    params : MagnitudeParams
    sensitive : sequence of bool, optional
        The cells that get ``mu_c``.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> pt = create_ptable(5, 2, table="nums", step=4, icat=[1, 3, 5])
    >>> pert = perturb_magnitudes([500.0, 0.0], [[300.0], [0.0]], [[0.3], [0.0]], pt, magnitude_params(fp=1000))
    >>> float(pert[1]), bool(pert[0] != 0)
    (0.0, True)
    """
    xo = np.asarray(values, dtype=float).copy()
    x = np.asarray(magnifiers, dtype=float).reshape(xo.size, -1)
    k = np.asarray(keys, dtype=float).reshape(xo.size, -1)
    if x.shape != k.shape:
        raise InputError(f"magnifiers and keys differ in shape ({x.shape} and {k.shape})")
    if sensitive is not None and len(sensitive) != xo.size:
        raise InputError(f"sensitive must flag each of the {xo.size} cells, got {len(sensitive)}")
    mu = np.where(np.asarray(sensitive, dtype=bool), params.mu_c, 0.0) if sensitive is not None else \
        np.zeros(xo.size)
    live = (k[:, 0] != 0) & (xo != 0)
    total = np.zeros(xo.size)
    for j in range(x.shape[1]):
        cells = live & ~np.isnan(x[:, j]) & (xo != 0)
        if not cells.any():
            continue
        xj, now = x[cells, j], xo[cells]
        eps = params.epsilon[j] if j < len(params.epsilon) else params.epsilon[-1]
        if params.multiplier == "flex":
            small = np.abs(xj) < params.fp
            delta = np.where(small, xj * params.p_small, xj * _flex(np.abs(xj), params) * eps)
        else:
            delta = xj * params.p * eps
        delta = np.where(np.abs(now) < np.abs(delta), now, delta)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.abs(now / delta)  # a zero magnifier: an infinite class, cut at D, scaled by 0
        v = _lookup(np.where(np.isnan(a), np.inf, a), k[cells, j], ptable)
        sign_x = np.where(now >= 0, 1.0, -1.0)
        sign_v = np.where(v >= 0, 1.0, -1.0)
        hat = sign_x * np.abs(delta) * sign_v * (mu[cells] + np.abs(v))
        down = sign_v < 0
        hat = np.where(down & (sign_x < 0), np.minimum(hat, -now), np.where(down & (sign_x > 0),
                                                                           np.maximum(hat, -now), hat))
        xo[cells] = now + hat
        total[cells] += hat
    return total


def _values(frame: pd.DataFrame, column: str, what: str) -> np.ndarray:
    from rumap._validation import MAX_MAGNITUDE

    if column not in frame.columns:
        raise InputError(f"{what}: no column {column!r} in the data")
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values) | (np.abs(values) > MAX_MAGNITUDE))
    if bad.size:
        raise InputError(f"{what} {column!r}, record {int(bad[0]) + 1}: {frame[column].iloc[bad[0]]!r} is not a "
                         "finite number (a magnitude table needs a value in every record)")
    return values


def _memberships(table: NDTable, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each record's cells: pairs (record, cell) over every combination of its codes' chains up to the totals."""
    from rumap.tables.microdata import _codes

    n = frame.shape[0]
    chains = []
    for dim, h in zip(table.dims, table.hierarchies, strict=True):
        codes = _codes(frame, dim, "dims")
        index = {code: [h.position(code) + 1, *(h.position(a) + 1 for a in h.ancestors(code)), 0]
                 for code in codes.unique()}
        width = max(len(c) for c in index.values()) if index else 1
        padded = {code: chain + [-1] * (width - len(chain)) for code, chain in index.items()}
        chains.append(np.array([padded[c] for c in codes], dtype=np.int64).reshape(n, width))
    combos = np.stack(np.meshgrid(*[np.arange(c.shape[1]) for c in chains], indexing="ij"), -1).reshape(
        -1, len(chains))
    positions = np.stack([chains[d][:, combos[:, d]] for d in range(len(chains))], -1)  # (n, combos, dims)
    valid = (positions >= 0).all(axis=-1)
    records = np.broadcast_to(np.arange(n)[:, None], valid.shape)[valid]
    cells = np.ravel_multi_index(tuple(positions[valid].T), table.shape)
    return records, cells


@dataclass(frozen=True)
class _Stats:
    """Per cell: records, weighted sum, sum of weights, spread, key sums of the non-zero records, top w x."""

    records: np.ndarray
    total: np.ndarray
    weights: np.ndarray
    spread: np.ndarray
    nonzero_keys: np.ndarray
    top: np.ndarray = field(repr=False)


def _cell_stats(table: NDTable, frame: pd.DataFrame, x: np.ndarray, w: np.ndarray, keys: np.ndarray,
                top_k: int) -> _Stats:
    records, cells = _memberships(table, frame)
    size = table.size
    wx = w * x
    count = np.bincount(cells, minlength=size).astype(float)
    total = np.bincount(cells, weights=wx[records], minlength=size)
    weights = np.bincount(cells, weights=w[records], minlength=size)
    high = np.full(size, -np.inf)
    low = np.full(size, np.inf)
    np.maximum.at(high, cells, x[records])
    np.minimum.at(low, cells, x[records])
    spread = np.where(count > 0, high - low, 0.0)
    nonzero = np.bincount(cells, weights=np.where(x != 0, keys, 0.0)[records], minlength=size)
    # each cell's records by |x| then w, both descending, in the file's order on ties (a stable sort)
    order = np.lexsort((records, -w[records], -np.abs(x[records]), cells))
    ranked_cells, ranked = cells[order], records[order]
    rank = np.arange(order.size) - np.searchsorted(ranked_cells, ranked_cells, side="left")
    top = np.full((size, top_k), np.nan)
    keep = rank < top_k
    top[ranked_cells[keep], rank[keep]] = wx[ranked[keep]]
    return _Stats(count, total, weights, spread, nonzero, top)


@validate_params({"frame": InstanceOf(pd.DataFrame, "a pandas DataFrame"),
                  "ptable": InstanceOf(PTable, "a PTable (see rumap.tables.ptable.create_ptable)"),
                  "params": InstanceOf(MagnitudeParams, "MagnitudeParams (see magnitude_params)"), "seed": SEED},
                 example=lambda: {"frame": pd.DataFrame({"a": ["x", "y", "x"], "v": [10.0, 200.0, 30.0],
                                                         "rk": [0.1, 0.5, 0.25]}),
                                  "dims": ["a"], "value_column": "v", "record_key": "rk",
                                  "ptable": create_ptable(5, 2, table="nums", step=4, icat=[1, 3, 5]),
                                  "params": magnitude_params(fp=100)})
def cellkey_magnitude_table(frame: pd.DataFrame, dims: Sequence[str] | str, value_column: str, ptable: PTable,
                            params: MagnitudeParams, hierarchies: Mapping[str, Any] | None = None, *,
                            record_key: str | None = None, seed: int | np.random.Generator | None = None,
                            weight: str | None = None, sensitive: Sequence[bool] | None = None) -> CellKeyTable:
    """A magnitude table of ``value_column`` over ``dims`` (every subtotal and total), perturbed by the cell key
    method (module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        One record per row.
    dims : sequence of str
        The spanning variables, as :func:`rumap.tables.ndtable.build_table` takes them.
    value_column : str
        The numeric variable summed (any sign; a value in every record).
    ptable : PTable
        A magnitude table's perturbation table (``create_ptable(D, V, table="nums", step=..., icat=...)``).
    params : MagnitudeParams
        :func:`magnitude_params`.
    hierarchies : mapping, optional
        ``{dimension: Hierarchy}``.
    record_key : str, optional
        The column of record keys; without it they are drawn from ``seed``.
    seed : int or numpy.random.Generator, optional
    weight : str, optional
        Sampling weights: cells sum ``w x``.
    sensitive : sequence of bool, optional
        Per cell of the table (C order over its shape), the cells whose perturbation gets ``mu_c``.

    Returns
    -------
    CellKeyTable
        Its ``values`` the cells' original sums, ``perturbation`` the sums of their x_hat_j, ``published``
        their sum; ``table`` the table of counts.

    Examples
    --------
    >>> t = cellkey_magnitude_table(**_example())
    >>> t.table.labels("a"), [float(v) for v in t.values]
    (('Total', 'x', 'y'), [240.0, 40.0, 200.0])
    """
    if value_column in (list(dims) if not isinstance(dims, str) else dims.split(",")):
        raise InputError(f"value_column {value_column!r} is also one of dims")
    if ptable.params.get("table", "nums") != "nums":
        raise InputError("a magnitude table needs a perturbation table of magnitudes (create_ptable(..., "
                         "table='nums'))")
    x = _values(frame, value_column, "value_column")
    w = np.ones(frame.shape[0]) if weight is None else _values(frame, weight, "weight")
    if (w < 0).any():
        raise InputError(f"weight {weight!r}, record {int(np.argmax(w < 0)) + 1}: a weight must be >= 0")
    if record_key is not None and record_key not in frame.columns:
        raise InputError(f"record_key: no column {record_key!r} in the data")
    keys = _check_keys(frame[record_key], f"record_key {record_key!r}") if record_key is not None \
        else record_keys(max(frame.shape[0], 1), seed)[:frame.shape[0]]
    scaled = _integer_keys(keys)
    summed = scaled if scaled is not None else keys
    table = build_table(frame.drop(columns=[record_key] if record_key else []).assign(__key=summed), dims,
                        hierarchies, "__key", top=2)
    if sensitive is not None and len(sensitive) != table.size:
        raise InputError(f"sensitive must flag each of the table's {table.size} cells, got {len(sensitive)}")
    stats = _cell_stats(table, frame, x, w, summed, params.top_k)
    every = cell_keys(table.values, scaled is not None)
    ck = every if params.use_zero_rkeys else cell_keys(stats.nonzero_keys, scaled is not None)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnifier = {"top_contr": stats.top[:, :params.top_k],
                     "mean": np.where(stats.weights > 0, stats.total / stats.weights, 0.0)[:, None],
                     "range": stats.spread[:, None], "sum": stats.total[:, None]}[params.type]
    if params.top_k == 1 and params.same_key:
        scrambled = ck[:, None]
    else:
        scrambled = np.array([scramble_keys(c, params.top_k, params.same_key) for c in ck]).reshape(-1, params.top_k)
    perturbation = perturb_magnitudes(stats.total, magnifier, scrambled, ptable, params, sensitive)
    names = list(table.dims)
    counts = np.rint(table.frequencies)
    counted = table.cells[names].assign(value=counts, frequency=counts.astype(np.int64))
    config = {"dims": names, "value_column": value_column, "record_key": record_key,
              "seed": seed if record_key is None and isinstance(seed, int) else None, "weight": weight,
              "hierarchies": table.config.get("hierarchies", {}), "ptable": dict(ptable.params),
              "magnitude": params.to_dict()}
    return CellKeyTable(NDTable(table.dims, table.hierarchies, counted, None, table.config), ck, perturbation,
                        ptable, None, config, values=stats.total)


def _example() -> dict[str, Any]:
    return {"frame": pd.DataFrame({"a": ["x", "y", "x"], "v": [10.0, 200.0, 30.0], "rk": [0.1, 0.5, 0.25]}),
            "dims": ["a"], "value_column": "v", "record_key": "rk",
            "ptable": create_ptable(5, 2, table="nums", step=4, icat=[1, 3, 5]), "params": magnitude_params(fp=100)}
