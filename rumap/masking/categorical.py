"""Protecting categorical key variables, the mu-Argus way: recoding, top/bottom coding, local suppression, PRAM.

- Global recoding merges categories of a key variable everywhere in the file
  (:func:`recode`), or bands a numeric key into intervals (:func:`band`);
  top and bottom coding put the values beyond a limit into one category
  (:func:`top_bottom_code`).
- Local suppression (:func:`local_suppression`) blanks single key values of
  the records at risk until every record is k-anonymous (``f_k >= k``, a
  missing value matching any category) or below a risk threshold. It follows
  the rule of seed 004 (Mas, mu-Argus): in a record at risk, suppress the
  variable that occurs most often among the record's unsafe combinations of
  key variables; ties go to the variable of least importance, then to the one
  with the most categories (as sdcMicro's ``localSuppression``).
- PRAM (:func:`pram`, in :mod:`rumap.masking.pram`, and named here too)
  replaces each value by a draw from the invariant Markov matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, InstanceOf, assumes_valid, validate_params
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.engine import run_chunks
from rumap.errors import InputError
from rumap.masking.suppression_rounds import blank_chunk, suppression_rounds
from rumap.risk.cells import key_codes
from rumap.risk.individual import sampling_weights
from rumap.risk.paired import as_frame, select_columns

__all__ = ["parse_merge", "parse_merges", "recode", "category_text", "unmatched_categories", "band", "top_bottom_code",
           "SuppressionResult", "local_suppression", "pram_matrix", "pram", "PramResult", "perturb_weights", "key_importance",
           "MAX_DENSE_PRAM_CATEGORIES", "MAX_LISTED_PRAM_CATEGORIES", "k_out_of_reach"]


def _example() -> dict[str, Any]:
    return {"data": pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "c"]}),
            "keys": ["sex", "region"]}


@validate_params({"text": InstanceOf(str, "a recoding such as region: R01, R02 = north"),
                  "where": InstanceOf(str, "where the text comes from, for messages"),
                  "form": InstanceOf(str, "the expected form, for messages")},
                 example=lambda: {"text": "region: b, c = b+c"})
def parse_merge(text: str, where: str = "the recoding", form: str = "read VAR: A, B = NEW"
                ) -> tuple[str, dict[str, str]]:
    """One global recoding written ``VAR: A, B = NEW``: the variable and ``{A: NEW, B: NEW}``.

    Parameters
    ----------
    text : str
    where : str
        Names the text in messages (a flag, a line of a form).
    form : str
        How messages state the expected form (spaces are optional).

    Returns
    -------
    variable : str
    merges : dict

    Examples
    --------
    >>> parse_merge("region: R01, R02 = north")
    ('region', {'R01': 'north', 'R02': 'north'})

    A range ``A..B`` of whole numbers stands for each of them (an integer-coded
    variable's categories, such as ages):

    >>> parse_merge("age: 18..20, 99 = adult")
    ('age', {'18': 'adult', '19': 'adult', '20': 'adult', '99': 'adult'})
    """
    variable, sep, rest = text.partition(":")
    olds, eq, new = rest.partition("=")
    parts = [old.strip() for old in olds.split(",")]
    if not sep or not eq or not variable.strip() or not new.strip() or not all(parts):
        raise InputError(f"{where} must {form}, got {text.strip()!r}")
    return variable.strip(), {old: new.strip() for part in parts for old in _categories(part, where)}


#: The most categories one range ``A..B`` of a recoding may stand for.
MAX_RANGE = 100_000


def _categories(part: str, where: str) -> list[str]:
    """One category of a recoding, or the whole numbers of a range ``A..B`` (both ends included), as text."""
    if ".." not in part:
        return [part]
    low, _, high = (side.strip() for side in part.partition(".."))
    try:
        start, stop = int(low), int(high)
    except ValueError:
        raise InputError(f"{where}: a range is written with two whole numbers, A..B (e.g. 18..24), "
                         f"got {part!r}") from None
    if stop < start:
        raise InputError(f"{where}: the range {part!r} ends before it starts")
    if stop - start + 1 > MAX_RANGE:
        raise InputError(f"{where}: the range {part!r} stands for {stop - start + 1:,} categories, more than "
                         f"{MAX_RANGE:,}")
    return [str(v) for v in range(start, stop + 1)]


@validate_params({"where": InstanceOf(str, "where the texts come from, for messages"),
                  "form": InstanceOf(str, "the expected form, for messages")},
                 example=lambda: {"texts": ["region: b, c = b+c", "", "sex: f = x"]})
def parse_merges(texts: Sequence[str], where: str = "recoding line {number}", form: str = "read VAR: A, B = NEW"
                 ) -> dict[str, dict[str, str]]:
    """Several recodings ``VAR: A, B = NEW`` (blank ones skipped) as one mapping for :func:`recode`.

    Parameters
    ----------
    texts : sequence of str
        The recodings, such as the lines of a form or repeated flags.
    where : str
        Names a text in messages; ``{number}`` becomes its position (from 1).
    form : str
        How messages state the expected form.

    Returns
    -------
    dict
        ``{VAR: {A: NEW, B: NEW}}``, later recodings of a category winning.

    Examples
    --------
    >>> parse_merges(["region: R01, R02 = north", "region: R03 = south"])
    {'region': {'R01': 'north', 'R02': 'north', 'R03': 'south'}}
    """
    mapping: dict[str, dict[str, str]] = {}
    for number, text in enumerate(texts, start=1):
        if text.strip():
            variable, merges = parse_merge(text, where.format(number=number), form)
            mapping.setdefault(variable, {}).update(merges)
    return mapping


@validate_params({"mapping": InstanceOf(Mapping, "a mapping of variable -> {old category: new category}"),
                  "source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": _example()["data"], "mapping": {"region": {"b": "b+c", "c": "b+c"}}})
def recode(data: Any, mapping: Mapping[str, Mapping[Any, Any]], source: str = "the data") -> pd.DataFrame:
    """Global recoding: merge categories of key variables throughout the file.

    An old category names the values equal to it or written the same
    (:func:`category_text`): ``"1"`` names the integer code 1 (and 1.0). A
    recoded variable's categories become text; a missing value stays missing.

    Parameters
    ----------
    data : DataFrame or array_like
    mapping : mapping
        ``{variable: {old category: new category}}``; categories not named keep
        their value.
    source : str

    Returns
    -------
    DataFrame
        A copy with the variables recoded.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"region": ["a", "b", "c"], "education": [1, 2, 3]})
    >>> recode(frame, {"region": {"b": "b+c", "c": "b+c"}})["region"].tolist()
    ['a', 'b+c', 'b+c']
    >>> recode(frame, {"education": {"1": "basic", "2": "basic"}})["education"].tolist()
    ['basic', 'basic', '3']
    """
    frame = as_frame(data, source).copy()
    for variable, merges in mapping.items():
        (name,) = select_columns(frame, [variable], source, what="recoded")
        if not isinstance(merges, Mapping):
            raise InputError(f"mapping[{variable!r}] must map old categories to new ones, got {merges!r:.60}")
        by_text = {category_text(old): category_text(new) for old, new in merges.items()}
        frame[name] = frame[name].map(lambda v, m=by_text: v if _missing(v) else m.get(category_text(v),
                                                                                         category_text(v)))
        frame[name] = frame[name].astype(object)
    return frame


def _numeric_key(frame: pd.DataFrame, name: str, source: str, need: str) -> pd.Series:
    """Column ``name`` as finite numbers (missing stays missing); text or infinite values are refused by count."""
    column = frame[name]
    values = pd.to_numeric(column, errors="coerce")
    text = int((values.isna().to_numpy() & column.notna().to_numpy()).sum())
    if text:
        raise InputError(f"{source}: column {name!r} is not numeric: it holds {text} value(s) that are not numbers; {need}")
    infinite = int(np.isinf(values.to_numpy(dtype=float, na_value=np.nan)).sum())
    if infinite:
        raise InputError(f"{source}: column {name!r} holds {infinite} infinite value(s); {need} that are finite")
    return values


def _missing(value: Any) -> bool:
    missing = pd.isna(value)
    return bool(missing) if np.ndim(missing) == 0 else False


@assumes_valid
def category_text(value: Any) -> str:
    """A category as it is written: an integer-valued number without its decimals.

    Parameters
    ----------
    value : object
        A value of a key variable.

    Returns
    -------
    str

    Examples
    --------
    >>> category_text(1), category_text(1.0), category_text(2.5), category_text("R01")
    ('1', '1', '2.5', 'R01')
    """
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer, np.bool_)):
        return str(value.item())
    return str(value)


@validate_params({"mapping": InstanceOf(Mapping, "a mapping of variable -> {old category: new category}"),
                  "source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": _example()["data"], "mapping": {"region": {"b": "b+c", "z": "b+c"}}})
def unmatched_categories(data: Any, mapping: Mapping[str, Mapping[Any, Any]], source: str = "the data"
                         ) -> dict[str, list[str]]:
    """The old categories of a recoding that name no value of their variable (as :func:`recode` matches them).

    Parameters
    ----------
    data : DataFrame or array_like
    mapping : mapping
        ``{variable: {old category: new category}}``.
    source : str

    Returns
    -------
    dict
        ``{variable: [old categories found nowhere]}``, only variables with some.

    Examples
    --------
    >>> import pandas as pd
    >>> unmatched_categories(pd.DataFrame({"education": [1, 2, 3]}), {"education": {"1": "low", "7": "low"}})
    {'education': ['7']}
    """
    frame = as_frame(data, source)
    out: dict[str, list[str]] = {}
    for variable, merges in mapping.items():
        (name,) = select_columns(frame, [variable], source, what="recoded")
        present = {category_text(v) for v in frame[name].dropna().unique()}
        missing = [category_text(old) for old in merges if category_text(old) not in present]
        if missing:
            out[str(variable)] = missing
    return out


@validate_params({"width": "band_width",
                  "origin": "value",
                  "source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": pd.DataFrame({"age": [23, 37, 41]}), "variable": "age", "width": 10})
def band(data: Any, variable: str | int, width: float, origin: float = 0.0, source: str = "the data") -> pd.DataFrame:
    """Global recoding of a numeric key into bands ``[origin + j width, origin + (j + 1) width)``.

    Parameters
    ----------
    data : DataFrame or array_like
    variable : str or int
        The numeric key.
    width : float
        The band width.
    origin : float, default 0
        Where the bands start.
    source : str

    Returns
    -------
    DataFrame
        A copy whose ``variable`` holds labels such as ``"20-29"``.

    Examples
    --------
    >>> import pandas as pd
    >>> band(pd.DataFrame({"age": [23, 37, 41]}), "age", 10)["age"].tolist()
    ['20-29', '30-39', '40-49']
    """
    frame = as_frame(data, source).copy()
    (name,) = select_columns(frame, [variable], source, what="banded")
    values = _numeric_key(frame, name, source, "bands need numbers")
    with np.errstate(over="ignore", invalid="ignore"):
        low = origin + np.floor((values - origin) / width) * width
        wrong = ~np.isnan(values) & ~(np.abs((low + width) - low - width) <= 0.01 * width)
    if wrong.any():  # at this magnitude the numbers step by more than the width: a band's ends would be one number
        row = int(np.argmax(wrong))
        raise InputError(f"{source}: column {name!r} has the value {values[row]:g} in row {row + 1}, out of reach of "
                         f"bands of width {width:g} from {origin:g}: its band's ends would not be two finite numbers "
                         f"{width:g} apart (floating-point numbers there step by "
                         f"{np.spacing(abs(float(values[row]))):.3g}); choose another band width or rescale the column")
    integer = float(width).is_integer() and float(origin).is_integer()

    def label(lo: float) -> Any:
        if np.isnan(lo):
            return np.nan
        return f"{int(lo)}-{int(lo + width - 1)}" if integer else f"{lo:g}-{lo + width:g}"

    frame[name] = [label(v) for v in low]
    return frame


@validate_params({"source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": pd.DataFrame({"age": [3, 50, 97]}), "variable": "age", "above": 90})
def top_bottom_code(data: Any, variable: str | int, above: float | None = None, below: float | None = None,
                    source: str = "the data") -> pd.DataFrame:
    """Top and bottom coding: values above ``above`` become ``">above"``, below ``below`` become ``"<below"``.

    Parameters
    ----------
    data : DataFrame or array_like
    variable : str or int
        A numeric key.
    above, below : float, optional
        The limits (at least one).
    source : str

    Returns
    -------
    DataFrame
        A copy; the variable becomes text.

    Examples
    --------
    >>> import pandas as pd
    >>> top_bottom_code(pd.DataFrame({"age": [3, 50, 97]}), "age", above=90, below=5)["age"].tolist()
    ['<5', '50', '>90']
    """
    if above is None and below is None:
        raise InputError("give above, below or both")
    for limit, label in ((above, "above"), (below, "below")):
        if limit is not None and not (isinstance(limit, (int, float)) and np.isfinite(limit)):
            raise InputError(f"{label} must be a finite number, got {limit!r}")
    if above is not None and below is not None and below > above:
        raise InputError(f"below ({below:g}) must not exceed above ({above:g})")
    frame = as_frame(data, source).copy()
    (name,) = select_columns(frame, [variable], source, what="coded")
    values = _numeric_key(frame, name, source, "top and bottom coding need numbers")
    out = frame[name].astype(object).where(frame[name].isna(), values.map(lambda v: f"{v:g}"))
    if above is not None:
        out[values > above] = f">{above:g}"
    if below is not None:
        out[values < below] = f"<{below:g}"
    frame[name] = out
    return frame


@dataclass(frozen=True)
class SuppressionResult:
    """A file after local suppression, and what it cost.

    Attributes
    ----------
    data : DataFrame
        The protected file (suppressed key values are missing).
    keys : tuple of str
    suppressed : ndarray of bool, shape (n, len(keys))
        Which key values were suppressed.
    k : int or None
        The k-anonymity reached, if asked for.
    max_risk : float or None
        The individual-risk threshold reached, if asked for.
    rounds : int
        Passes over the records at risk.
    feasible : bool
        False when the target cannot be reached by any suppression (k larger
        than the file); then nothing was suppressed and :attr:`reason` says why.
    reason : str or None
        Why the target is out of reach, when it is.
    """

    data: pd.DataFrame = field(repr=False)
    keys: tuple[str, ...]
    suppressed: np.ndarray = field(repr=False)
    k: int | None
    max_risk: float | None
    rounds: int
    feasible: bool = True
    reason: str | None = None

    @property
    def suppressed_share(self) -> float:
        """Share of the key values suppressed (0 when none)."""
        return float(self.suppressed.mean()) if self.suppressed.size else 0.0

    def to_frame(self) -> pd.DataFrame:
        """Suppressions per key variable."""
        return pd.DataFrame({"variable": list(self.keys), "suppressed": self.suppressed.sum(axis=0).astype(int)})

    def to_dict(self) -> dict[str, Any]:
        """Counts, not data: suppressions per variable, their total and share, the target reached."""
        return {"keys": list(self.keys), "k": self.k, "max_risk": self.max_risk, "rounds": self.rounds,
                "suppressed": int(self.suppressed.sum()), "suppressed_share": self.suppressed_share,
                "per_variable": {k: int(v) for k, v in zip(self.keys, self.suppressed.sum(axis=0), strict=True)},
                "feasible": self.feasible, "reason": self.reason}


@assumes_valid
def key_importance(importance: Mapping[str, float] | None, keys: Sequence[str], default: float) -> np.ndarray:
    """The importance of each key (``default`` where not given), refusing unknown variables and non-numbers.

    Parameters
    ----------
    importance : mapping or None
        ``{variable: number}``; every variable must be one of ``keys``.
    keys : sequence of str
    default : float
        The importance of a key not named.

    Returns
    -------
    ndarray of float, shape (len(keys),)

    Examples
    --------
    >>> key_importance({"sex": 2}, ["sex", "region"], 0.0).tolist()
    [2.0, 0.0]
    """
    given = dict(importance or {})
    unknown = [name for name in given if name not in keys]
    if unknown:
        raise InputError(f"importance names {', '.join(map(repr, unknown))}, which is not among the keys "
                         f"({', '.join(keys)})")
    values = []
    for name in keys:
        value = given.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not np.isfinite(value):
            raise InputError(f"importance of {name!r} must be a finite number, got {value!r:.60}")
        values.append(float(value))
    return np.array(values)


@validate_params({"k": [None, "k"], "max_risk": [None, "risk_bound"],
                  "household": [None, InstanceOf(str, "a column name")],
                  "importance": [None, InstanceOf(Mapping, "a mapping of variable -> importance")],
                  "source": InstanceOf(str, "a name for messages"), "budget": InstanceOf(WorkBudget)},
                 example=lambda: {**_example(), "k": 2})
def local_suppression(data: Any, keys: Sequence[str | int], k: int | None = None, max_risk: float | None = None,
                      weight: str | int | None = None, importance: Mapping[str, float] | None = None,
                      dimension: int | None = None, household: str | None = None,
                      household_variables: Sequence[str] = (), source: str = "the data",
                      budget: WorkBudget = DEFAULT_BUDGET, progress: Callable[[str], None] | None = None
                      ) -> SuppressionResult:
    """Suppress key values of the records at risk until the file is k-anonymous or below a risk threshold.

    Parameters
    ----------
    data : DataFrame or array_like
    keys : sequence of str or int
        The key variables.
    k : int, optional
        Reach k-anonymity: every record's ``f_k >= k`` (missing values match
        any category).
    max_risk : float, optional
        Reach individual risk at most ``max_risk`` (see
        :func:`rumap.risk.individual.individual_risk`); give ``k``, ``max_risk``
        or both.
    weight : str or int, optional
        Sampling weights for the individual risk.
    importance : mapping, optional
        ``{variable: importance}``; the least important variable is suppressed
        first among equally frequent ones (default: all equal).
    dimension : int, optional
        Largest combination searched for unsafe cells (default: all keys).
    household : str, optional
        Household identifier column, with ``household_variables``.
    household_variables : sequence of str
        Keys that are the same for every member of a household (region,
        household size): suppressed in one member, they are suppressed in all,
        so the household's other records do not give the value away.
    source : str
    budget : WorkBudget
        Checked before each round: patterns of missing values x classes of
        records with the same key values x keys.
    progress : callable(str), optional
        Told, after each round's frequencies, how many records remain at risk.

    Returns
    -------
    SuppressionResult

    Notes
    -----
    The rounds run on classes of records with the same key values
    (:func:`rumap.masking.suppression_rounds.suppression_rounds`): a file of
    10^7 records and 8 keys takes minutes, not the quadratic time of comparing
    records.

    References
    ----------
    Seed 004 (Mas, EUSTAT), mu-Argus "local suppression"; Templ, Kowarik &
    Meindl (2015), sdcMicro ``localSuppression``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": ["f", "f", "m", "m", "m", "f"], "region": ["a", "a", "a", "b", "b", "c"]})
    >>> result = local_suppression(frame, ["sex", "region"], k=2)
    >>> result.suppressed.sum(), result.data["region"].isna().sum()
    (np.int64(2), np.int64(2))
    """
    if k is None and max_risk is None:
        raise InputError("give k (k-anonymity), max_risk (individual risk) or both")
    frame = as_frame(data, source).copy()
    names = select_columns(frame, keys, source, what="key")
    p = len(names)
    depth = p if dimension is None else int(dimension)
    if not 1 <= depth <= p:
        raise InputError(f"dimension must be between 1 and the number of keys ({p}), got {dimension!r}")
    rank = key_importance(importance, names, 0.0)
    reason = k_out_of_reach(k, frame.shape[0], source)
    if reason is not None:
        return SuppressionResult(data=frame, keys=tuple(names), suppressed=np.zeros((frame.shape[0], p), dtype=bool),
                                 k=k, max_risk=max_risk, rounds=0, feasible=False, reason=reason)
    codes = key_codes(frame, names)
    shared = [names.index(v) for v in household_variables if v in names]
    if len(shared) != len(household_variables):
        unknown = [v for v in household_variables if v not in names]
        raise InputError(f"household variables must be keys; {', '.join(map(repr, unknown))} is not")
    members = None
    if shared:
        if household is None:
            raise InputError("household_variables need the household identifier column (household)")
        (household_name,) = select_columns(frame, [household], source, what="household")
        members = pd.factorize(frame[household_name])[0]
    weights = None if weight is None else sampling_weights(frame, weight, names, source)
    suppressed, rounds = suppression_rounds(codes, k, max_risk, weights, rank, depth, members, tuple(shared),
                                            budget, progress)
    del codes
    blanked: list[pd.DataFrame] = []  # the frame in memory is the runner's one chunk
    run_chunks(frame, lambda chunk, start: (blank_chunk(chunk, names, suppressed[start:start + len(chunk)],
                                                        copy=False), None), sink=blanked.append)
    return SuppressionResult(data=blanked[0], keys=tuple(names), suppressed=suppressed, k=k, max_risk=max_risk,
                             rounds=rounds)


@assumes_valid
def k_out_of_reach(k: int | None, n: int, source: str) -> str | None:
    """Why no suppression of ``n`` records makes them ``k``-anonymous, or None when some can.

    Parameters
    ----------
    k : int or None
        The k of k-anonymity asked for (None: none asked for).
    n : int
        The records.
    source : str
        Names the data.

    Returns
    -------
    str or None

    Examples
    --------
    >>> k_out_of_reach(100, 40, "the data")
    'k = 100 is more than the 40 records of the data: no suppression makes a record 100-anonymous (a record shares its key with at most 40); nothing was suppressed'
    >>> k_out_of_reach(3, 40, "the data") is None
    True
    """
    if k is None or k <= n:
        return None
    return (f"k = {k} is more than the {n} records of {source}: no suppression makes a record "
            f"{k}-anonymous (a record shares its key with at most {n}); nothing was suppressed")


@validate_params({"relative_sd": "relative_sd",
                  "seed": SEED}, example=lambda: {"weights": [10.0, 250.0, 40.0], "relative_sd": 0.1, "seed": 1})
def perturb_weights(weights: Sequence[float], relative_sd: float, seed: int | np.random.Generator | None = None
                    ) -> np.ndarray:
    """Noise on the sampling weights, so that they no longer reveal a record's stratum or household size.

    Each weight is multiplied by ``1 + e`` with ``e`` normal with mean 0 and
    standard deviation ``relative_sd``, clipped to keep every weight >= 1; the
    weights are then rescaled to keep their total (the population size; a
    weight clipped at 1 afterwards can add a little).

    Parameters
    ----------
    weights : sequence of float
        The sampling weights (each >= 1).
    relative_sd : float
        Standard deviation of the multiplicative noise, in [0, 1].
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    ndarray
        The perturbed weights, with the same sum.

    References
    ----------
    Seed 004 (Mas), mu-Argus "noise on the weights".

    Examples
    --------
    >>> w = perturb_weights([10.0, 250.0, 40.0], 0.1, seed=1)
    >>> round(float(w.sum()), 6), bool((w >= 1).all())
    (300.0, True)
    """
    w = np.asarray(weights, dtype=float).reshape(-1)
    if w.size == 0 or not np.isfinite(w).all() or (w < 1).any():
        raise InputError("weights must be finite numbers >= 1")
    noisy = np.maximum(w * (1.0 + np.random.default_rng(seed).normal(0.0, relative_sd, w.size)), 1.0)
    scaled = noisy * (w.sum() / noisy.sum())
    return np.maximum(scaled, 1.0)


# PRAM lives in its own module; these names stay importable from here.
from rumap.masking.pram import (  # noqa: E402
    MAX_DENSE_PRAM_CATEGORIES,
    MAX_LISTED_PRAM_CATEGORIES,
    PramResult,
    pram,
    pram_matrix,
)
