"""Identity disclosure on a key of categorical variables (Mokken, Kooiman, Pannekoek & Willenborg 1992).

An investigator knows the key values (say age x sex x marital status) of ``a``
*acquaintances* in a population of size ``N``. A released sample of ``n = f N``
records reveals an acquaintance when he or she is unique in the population on
the key and is in the sample. With ``u`` population uniques (``f_u = u / N``)
and ``f_a = a / N`` the risk that at least one sample element is identified is

    R = 1 - (1 - f_a f_u)^n  ~  1 - exp(-f a f_u)            (Eq 5, 6).

``f_u`` is estimated from the sample with the Poisson-gamma model: the key's
``k`` population cell frequencies are negative binomial with mean ``N / k``,
``alpha = 1 / (k beta)``, and the expected number of population uniques is
``mu_u = N (1 + N beta)^-(1 + alpha)`` (Eq 10).

References
----------
.. [1] R. J. Mokken, P. Kooiman, J. Pannekoek, L. C. R. J. Willenborg (1992),
   "Disclosure risks for microdata", Statistica Neerlandica 46(1), 49-67,
   Equations 5, 6, 10, 13-17, 19-21, 26-27.
.. [2] J. G. Bethlehem, W. J. Keller, J. Pannekoek (1990), "Disclosure control of
   microdata", JASA 85, 38-45 (the Poisson-gamma model).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from rumap._validation import Boolean, Grid, InstanceOf, StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.result import RUMap, json_safe
from rumap.risk.poisson_gamma import BETA_ESTIMATORS, fit_poisson_gamma

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "identification_risk",
    "max_sample_fraction",
    "expected_acquaintances",
    "multiple_investigators_risk",
    "subpopulation_risk",
    "worst_case_subpopulation_risk",
    "nested_keys_total_risk",
    "key_frequencies",
    "IdentityResult",
    "identity_risk_from_data",
    "subsampling_map",
    "recoding_map",
    "recoding_total_risk",
    "RISK_LABEL",
]


RISK_LABEL = "R = P(at least one identification)"


def _example_data() -> pd.DataFrame:
    """Forty persons with two key variables, for the validation examples."""
    import pandas as pd

    return pd.DataFrame({"age": [20 + (7 * i) % 31 for i in range(40)], "sex": ["f", "m"] * 20})


@validate_params({"f": "f", "a": "a", "f_u": "f_u", "N": [None, "N"]},
                 example=lambda: {"f": 0.001, "a": 300.0, "f_u": 0.001, "N": 63624.0})
def identification_risk(f: float, a: float, f_u: float, N: float | None = None) -> float:
    """Risk that an investigator identifies at least one sample element.

    Parameters
    ----------
    f : float
        Sample fraction n / N, in (0, 1].
    a : float
        Number of acquaintances of the investigator (>= 0).
    f_u : float
        Fraction of population uniques on the key, in [0, 1].
    N : float, optional
        Population size. Given: Eq 5 with ``n = f N``, ``f_a = a / N``;
        otherwise the approximation Eq 6.

    Returns
    -------
    float
        ``1 - (1 - f_a f_u)^n`` (Eq 5) or ``1 - exp(-f a f_u)`` (Eq 6).

    References
    ----------
    Mokken et al. (1992), Equations 5 and 6.

    Examples
    --------
    >>> from rumap.risk.identity import identification_risk
    >>> round(identification_risk(f=0.001, a=300, f_u=0.001, N=63624), 6)  # Mokken et al., Section 4: 0.0003
    0.0003
    """
    if N is not None:
        _check_acquaintances(a, N)
    return _identification(f, a, f_u, N)


def _check_acquaintances(a: float, N: float) -> None:
    if a > N:
        raise InputError(f"a (acquaintances) must be at most N = {N:g}, got {a:g}")


def _identification(f: float, a: float, f_u: float, N: float | None) -> float:
    if N is None:
        return -math.expm1(-f * a * f_u)
    return _risk_eq5(a / N * f_u, f * N)


def _risk_eq5(p_identify: float, n: float) -> float:
    """``1 - (1 - p)^n`` computed without cancellation."""
    if p_identify >= 1.0:
        return 1.0 if n > 0 else 0.0
    return -math.expm1(n * math.log1p(-p_identify))


@validate_params({"risk_bound": "risk_bound", "a": "a", "f_u": "f_u", "N": [None, "N"]},
                 example=lambda: {"risk_bound": 0.001, "a": 300.0, "f_u": 0.001, "N": 63624.0})
def max_sample_fraction(risk_bound: float, a: float, f_u: float, N: float | None = None) -> float:
    """Largest sample fraction with risk at most ``risk_bound`` (subsampling).

    Parameters
    ----------
    risk_bound : float
        The bound g on R, in (0, 1).
    a, f_u, N : float
        As in :func:`identification_risk`.

    Returns
    -------
    float
        ``f_max = -ln(1 - g) / (a f_u)`` (from Eq 6) or, with N,
        ``ln(1 - g) / (N ln(1 - f_a f_u))`` (from Eq 5); capped at 1 (the whole
        population may be released) and 1 when ``a f_u = 0``.

    References
    ----------
    Mokken et al. (1992), Section 2.2 (f_max).
    """
    return _max_sample_fraction(risk_bound, a, f_u, N)


def _max_sample_fraction(g: float, a: float, f_u: float, N: float | None) -> float:
    if a * f_u == 0:
        return 1.0
    if N is None:
        return min(1.0, -math.log1p(-g) / (a * f_u))
    p = a / N * f_u
    if p >= 1.0:
        return 0.0
    return min(1.0, math.log1p(-g) / (N * math.log1p(-p)))


@validate_params({"a": "a", "N": "N", "investigators": "investigators"},
                 example=lambda: {"a": 300.0, "N": 63624.0, "investigators": 1000})
def expected_acquaintances(a: float, N: float, investigators: int) -> float:
    """Expected number of population elements known to at least one of m investigators.

    ``E(a_m) = N - N (1 - a / N)^m`` (Eq 21), each investigator knowing a random ``a``.

    Parameters
    ----------
    a : float
        Acquaintances of each investigator.
    N : float
        Population size.
    investigators : int
        Number m of investigators.

    Returns
    -------
    float
    """
    _check_acquaintances(a, N)
    return _expected_acquaintances(a, N, investigators)


def _expected_acquaintances(a: float, N: float, m: int) -> float:
    return N - N * math.exp(m * math.log1p(-a / N)) if a < N else N


@validate_params({"f": "f", "a": "a", "f_u": "f_u", "N": "N", "investigators": "investigators"},
                 example=lambda: {"f": 0.001, "a": 300.0, "f_u": 0.001, "N": 63624.0, "investigators": 1000})
def multiple_investigators_risk(f: float, a: float, f_u: float, N: float, investigators: int) -> float:
    """Risk that at least one of m investigators identifies at least one sample element.

    Parameters
    ----------
    f, a, f_u, N : float
        As in :func:`identification_risk`; ``a`` acquaintances per investigator.
    investigators : int
        m, the number of investigators.

    Returns
    -------
    float
        ``R_m = 1 - (1 - (E(a_m) / N) f_u)^n`` with ``n = f N`` (Eq 19, 21).

    References
    ----------
    Mokken et al. (1992), Section 4, Equations 19 and 21.
    """
    _check_acquaintances(a, N)
    ea = _expected_acquaintances(a, N, investigators)
    return _risk_eq5(ea / float(N) * f_u, f * float(N))


@validate_params({"f": Grid("f"), "acquaintances": Grid("a"), "f_u": Grid("f_u")},
                 example=lambda: {"f": [0.01], "acquaintances": [100.0, 50.0], "f_u": [0.001, 0.002]})
def subpopulation_risk(f: ArrayLike, acquaintances: ArrayLike, f_u: ArrayLike) -> float:
    """Risk over subpopulations of known size: ``ln(1 - R) = -sum_j f_j a_j f_uj`` (Eq 13).

    Parameters
    ----------
    f : array_like, shape (J,) or scalar
        Sample fraction of each subpopulation.
    acquaintances : array_like, shape (J,)
        Acquaintances a_j in each subpopulation (``N_j f_aj``).
    f_u : array_like, shape (J,)
        Fraction of uniques in each subpopulation.

    References
    ----------
    Mokken et al. (1992), Section 3.1, Equation 13.
    """
    a, fu, fr = acquaintances, f_u, f
    if not (a.size == fu.size and fr.size in (1, a.size)):
        raise InputError(f"acquaintances ({a.size}), f_u ({fu.size}) and f ({fr.size}) must have the same length")
    return float(-np.expm1(-np.sum(fr * a * fu)))


@validate_params({"f": "f", "a": "a", "f_u": Grid("f_u")}, example=lambda: {"f": 0.01, "a": 100.0, "f_u": [0.001, 0.002]})
def worst_case_subpopulation_risk(f: float, a: float, f_u: ArrayLike) -> float:
    """Maximal risk over allocations of ``a`` acquaintances: all in the subpopulation of largest f_uj (Eq 14).

    Parameters
    ----------
    f : float
        Sampling fraction.
    a : float
        Number of acquaintances.
    f_u : array_like
        Fraction of population uniques in each subpopulation.

    Returns
    -------
    float
    """
    return _identification(f, a, float(f_u.max()), None)


@validate_params({"n": "N", "f_a": Grid("f_a"), "f_u": Grid("f_u"), "approximate": Boolean()},
                 example=lambda: {"n": 1000.0, "f_a": [0.001, 0.002], "f_u": [0.001, 0.004]})
def nested_keys_total_risk(n: float, f_a: ArrayLike, f_u: ArrayLike, approximate: bool = False) -> float:
    """Total risk over nested keys K_1 (coarsest) .. K_m (finest).

    Parameters
    ----------
    n : float
        Sample size.
    f_a : array_like, shape (m,)
        Fraction of acquaintances for each key (non-increasing with detail).
    f_u : array_like, shape (m,)
        Fraction of population uniques for each key (non-decreasing with detail).
    approximate : bool
        Use Eq 27, ``1 - exp(-n sum_i f_ai (f_ui - f_u,i-1))``, instead of Eq 26.

    Returns
    -------
    float
        ``TR = 1 - (1 - f_a1 f_u1)^n prod_{i>=2} [1 - f_ai (f_ui - f_u,i-1)]^n`` (Eq 26).

    References
    ----------
    Mokken et al. (1992), Section 5.1, Equations 26 and 27.
    """
    fa, fu = f_a, f_u
    if fa.size != fu.size:
        raise InputError(f"f_a has {fa.size} entries but f_u has {fu.size}")
    if np.any(np.diff(fu) < 0):
        raise InputError("f_u must not decrease from the coarsest key to the finest (assumption 24)")
    increments = fa * np.diff(fu, prepend=0.0)
    if approximate:
        return float(-np.expm1(-n * increments.sum()))
    return float(-np.expm1(n * np.sum(np.log1p(-increments))))


@validate_params({"source": InstanceOf(str, "a name for messages")},
                 example=lambda: {"data": _example_data(), "key": ["age", "sex"]})
def key_frequencies(data: Any, key: Sequence[str | int], source: str = "the data") -> pd.Series:
    """Sample frequency of each observed key value (a Series indexed by the key's combinations).

    Parameters
    ----------
    data : DataFrame or array_like
        The sample.
    key : sequence of str or int
        The key's columns.
    source : str
        The data's name, for messages.

    Returns
    -------
    pandas.Series

    Raises
    ------
    InputError
        Unknown key columns or missing values in them (named with the row).
    """
    from rumap.risk.paired import as_frame, select_columns

    frame = as_frame(data, source)
    names = select_columns(frame, key, source, what="key")
    sub = frame[names]
    missing = sub.isna().to_numpy()
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise InputError(f"{source}: key column {names[col]!r} has a missing value in row {row + 1}")
    return sub.value_counts(sort=False)


@dataclass(frozen=True)
class IdentityResult:
    """Identity disclosure risk of a sample on a key.

    Parameters
    ----------
    key : tuple of str
        The key variables.
    n, N : int, float
        Sample and population size; ``f = n / N``.
    a : float
        Acquaintances of the investigator.
    cells : int
        k, the number of key values (product of the variables' category counts).
    observed_cells : int
        Key values that occur in the sample.
    sample_uniques : int
        Key values that occur exactly once in the sample.
    beta : float
        Poisson-gamma scale parameter.
    population_uniques : float
        Estimated number of population uniques, ``mu_u`` (Eq 10).
    risk : float
        ``1 - (1 - f_a f_u)^n`` (Eq 5).
    f_max : float
        Largest sample fraction with risk at most ``max_risk`` (nan without a bound).
    max_risk : float
        The bound (nan if none).
    method : str
        Estimator of beta.
    """

    key: tuple[str, ...]
    n: int
    N: float
    a: float
    cells: int
    observed_cells: int
    sample_uniques: int
    beta: float
    population_uniques: float
    risk: float
    f_max: float = math.nan
    max_risk: float = math.nan
    method: str = "ml"

    @property
    def f(self) -> float:
        """Sample fraction n / N."""
        return self.n / self.N

    @property
    def f_u(self) -> float:
        """Estimated fraction of population uniques, ``mu_u / N``."""
        return self.population_uniques / self.N

    @property
    def alpha(self) -> float:
        """``1 / (k beta)``."""
        return math.inf if self.beta == 0 else 1.0 / (self.cells * self.beta)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: n, sample_uniques, population_uniques, f_u, risk, f_max and the inputs."""
        return json_safe({"n": self.n, "sample_uniques": self.sample_uniques,
                          "population_uniques": self.population_uniques, "f_u": self.f_u, "risk": self.risk,
                          "f_max": self.f_max, "N": self.N, "f": self.f, "a": self.a, "key": list(self.key),
                          "cells": self.cells, "observed_cells": self.observed_cells, "beta": self.beta,
                          "alpha": self.alpha, "max_risk": self.max_risk, "method": self.method})

    def to_frame(self) -> pd.DataFrame:
        """Two columns, quantity and value."""
        d = self.to_dict()
        d["key"] = " x ".join(self.key)
        import pandas as pd

        return pd.DataFrame({"quantity": list(d), "value": list(d.values())})


def _cells_of(frame: pd.DataFrame, names: Sequence[str]) -> int:
    return int(np.prod([frame[c].nunique() for c in names], dtype=float))


@validate_params({"N": "N", "a": "a", "max_risk": [None, "risk_bound"], "cells": [None, "cells"],
                  "method": StrOptions(BETA_ESTIMATORS)},
                 example=lambda: {"data": _example_data(), "key": ["age", "sex"], "N": 1000.0, "a": 10.0})
def identity_risk_from_data(data: Any, key: Sequence[str | int], N: float, a: float,
                            max_risk: float | None = None, cells: int | None = None,
                            method: str = "ml", source: str = "the data") -> IdentityResult:
    """Estimate population uniques on a key from a sample and the identification risk.

    Parameters
    ----------
    data : DataFrame or ndarray, shape (n, p)
        The sample (the file to be released).
    key : sequence of str or int
        The key variables (categorical; any values).
    N : float
        Population size (>= n).
    a : float
        Acquaintances of the investigator.
    max_risk : float, optional
        Bound g on the risk, in (0, 1): gives ``f_max``.
    cells : int, optional
        k, the number of possible key values; default the product of the numbers
        of distinct values of the key variables in the sample.
    method : {"ml", "moments"}
        Estimator of beta (:func:`fit_poisson_gamma`).
    source : str
        Name of the file, for messages.

    Returns
    -------
    IdentityResult

    Notes
    -----
    ``f_u = mu_u / N`` with ``mu_u = N (1 + N beta)^-(1 + alpha)`` (Eq 10), then
    ``R = 1 - (1 - (a / N) f_u)^n`` (Eq 5) and
    ``f_max = ln(1 - g) / (N ln(1 - (a / N) f_u))``.

    References
    ----------
    Mokken et al. (1992), Sections 2.2-2.3.
    """
    from rumap.risk.paired import as_frame, select_columns

    frame = as_frame(data, source)
    names = select_columns(frame, key, source, what="key")
    freq = key_frequencies(frame, names, source)
    k = _cells_of(frame, names) if cells is None else cells
    return identity_from_frequencies(freq.to_numpy(), names, k, N, a, max_risk, method, source)


@assumes_valid
def identity_from_frequencies(freq: np.ndarray, names: Sequence[str], k: int, N: float, a: float,
                              max_risk: float | None, method: str, source: str) -> IdentityResult:
    """:func:`identity_risk_from_data` from the sample frequencies of the key's observed values.

    Parameters
    ----------
    freq : ndarray of int, shape (m,)
        Records with each observed key value.
    names : sequence of str
        The key variables.
    k : int
        The number of possible key values.
    N, a, max_risk, method, source
        As in :func:`identity_risk_from_data` (checked there).

    Returns
    -------
    IdentityResult

    Examples
    --------
    >>> import numpy as np
    >>> identity_from_frequencies(np.array([3, 1, 1]), ["age"], 4, 100.0, 5.0, None, "ml", "x").sample_uniques
    2
    """
    freq = np.asarray(freq)
    n = int(freq.sum())
    if n < 2:
        raise InputError(f"{source}: identity risk needs at least 2 records, got {n}")
    if N < n:
        raise InputError(f"N (population size) must be at least the sample size n = {n}, got {N:g}")
    if a > N:
        raise InputError(f"a (acquaintances) must be at most N = {N:g}, got {a:g}")
    fit = fit_poisson_gamma(freq, k, method)
    f_u = fit.fraction_unique(N)
    risk = _risk_eq5(a / N * f_u, n)
    f_max = math.nan
    if max_risk is not None:
        f_max = _max_sample_fraction(max_risk, a, f_u, N)
    return IdentityResult(tuple(names), n, N, a, k, int(freq.size), int((freq == 1).sum()), fit.beta,
                          N * f_u, risk, f_max, math.nan if max_risk is None else float(max_risk), method)


@validate_params({"N": "N", "a": "a", "fractions": Grid("f"), "cells": [None, "cells"],
                  "method": StrOptions(BETA_ESTIMATORS)},
                 example=lambda: {"data": _example_data(), "key": ["age", "sex"], "N": 1000.0, "a": 10.0,
                                  "fractions": [0.02, 0.04]})
def subsampling_map(data: Any, key: Sequence[str | int], N: float, a: float, fractions: ArrayLike,
                    cells: int | None = None, method: str = "ml", source: str = "the data") -> RUMap:
    """R-U map of subsampling: the parameter is the released sample fraction f' <= f.

    Parameters
    ----------
    data, key, N, a, cells, method, source
        As in :func:`identity_risk_from_data`.
    fractions : array_like, shape (m,)
        Sample fractions f' = n' / N to release, each in (0, f].

    Returns
    -------
    RUMap
        ``parameter="f"``; risk ``1 - (1 - f_a f_u)^(f' N)`` with f_u estimated
        from the whole file; utility the precision of an estimated mean
        relative to the whole file, ``(n' / n) (1 - f) / (1 - f')`` (simple
        random sampling with the finite population correction).

    References
    ----------
    Mokken et al. (1992), Section 2.2 (subsampling as disclosure control).
    """
    base = identity_risk_from_data(data, key, N, a, cells=cells, method=method, source=source)
    values = fractions
    if np.any(values > base.f * (1 + 1e-12)):
        raise InputError(f"every sample fraction must be at most the file's f = n / N = {base.f:.6g}, "
                         f"got {values.max():.6g}")
    p = base.a / base.N * base.f_u
    risk = np.array([_risk_eq5(p, v * base.N) for v in values])
    if base.f < 1:
        utility = values / base.f * (1 - base.f) / (1 - values)
    else:  # a census: its mean is exact, any subsample loses all of that precision
        utility = np.where(values >= 1.0, 1.0, 0.0)
    return RUMap(parameter="f", values=values, risk=risk, utility=utility, risk_label=RISK_LABEL,
                 utility_label="U = precision of a mean relative to the whole file", method="subsampling",
                 knowledge=f"a = {base.a:g} acquaintances", target=" x ".join(base.key), efficiency=utility,
                 config={"N": base.N, "n": base.n, "a": base.a, "key": list(base.key), "f_u": base.f_u,
                         "beta": base.beta, "cells": base.cells, "method": method})


def _band(values: np.ndarray, width: float) -> np.ndarray:
    return np.floor(values / width) * width


@validate_params({"widths": Grid("band_width"), "N": "N", "a": Grid("a"), "method": StrOptions(BETA_ESTIMATORS)},
                 example=lambda: {"data": _example_data(), "key": ["age", "sex"], "variable": "age", "widths": [1.0, 5.0],
                                  "N": 1000.0, "a": 10.0})
def recoding_map(data: Any, key: Sequence[str | int], variable: str, widths: ArrayLike, N: float,
                 a: float | ArrayLike, method: str = "ml", source: str = "the data") -> RUMap:
    """R-U map of global recoding: the parameter is the band width of a numeric key variable.

    Parameters
    ----------
    data, key, N, method, source
        As in :func:`identity_risk_from_data`; ``variable`` must be one of ``key``.
    variable : str
        A numeric key variable (e.g. age) recoded into bands ``floor(x / w) w``.
    widths : array_like, shape (m,)
        Band widths w > 0 (e.g. 1, 5, 10, 20 years).
    a : float or array_like, shape (m,)
        Acquaintances; one value per width allows wider circles of
        acquaintances for coarser keys (Mokken et al., Section 5).

    Returns
    -------
    RUMap
        ``parameter="width"``; risk from the Poisson-gamma estimate on the
        recoded key; utility the share of the variable's variance kept by the
        bands, ``1 - SSE / SST`` (SSE the within-band sum of squares): what the
        user loses in the precision of that variable. ``config`` holds the
        sample uniques, cells and f_u of every level.

    References
    ----------
    Mokken et al. (1992), Sections 2.2 and 5 (coarsening a key).
    """
    import pandas as pd

    from rumap.risk.paired import as_frame, select_columns

    frame = as_frame(data, source)
    names = select_columns(frame, key, source, what="key")
    if variable not in names:
        raise InputError(f"variable {variable!r} is not one of the key variables ({', '.join(names)})")
    if not pd.api.types.is_numeric_dtype(frame[variable]):
        raise InputError(f"{source}: column {variable!r} is not numeric, so it cannot be recoded into bands")
    w = widths
    acquaintances = np.broadcast_to(a, w.shape) if a.size in (1, w.size) else None
    if acquaintances is None:
        raise InputError(f"a must be one number or one per width ({w.size}), got {a.size}")
    x = frame[variable].to_numpy(dtype=float)
    sst = float(np.sum((x - x.mean()) ** 2))
    risks, utilities, uniques, cell_counts, fus = [], [], [], [], []
    for width, a_level in zip(w, acquaintances, strict=True):  # one fit per recoding level
        recoded = frame.assign(**{variable: _band(x, width)})
        result = identity_risk_from_data(recoded, names, N, float(a_level), method=method, source=source)
        bands = pd.Series(x).groupby(recoded[variable].to_numpy())
        sse = float(bands.transform(lambda s: (s - s.mean()) ** 2).sum())
        risks.append(result.risk)
        utilities.append(1.0 - sse / sst if sst > 0 else 1.0)
        uniques.append(result.sample_uniques)
        cell_counts.append(result.cells)
        fus.append(result.f_u)
    return RUMap(parameter="width", values=w, risk=risks, utility=utilities, risk_label=RISK_LABEL,
                 utility_label=f"U = share of the variance of {variable} kept", method="global recoding",
                 knowledge="acquaintances", target=" x ".join(names), efficiency=utilities,
                 config={"N": float(N), "a": acquaintances.tolist(), "key": names, "variable": variable,
                         "sample_uniques": uniques, "cells": cell_counts, "f_u": fus, "method": method})


@validate_params({"widths": Grid("band_width"), "N": "N", "acquaintances": Grid("a"),
                  "method": StrOptions(BETA_ESTIMATORS), "approximate": Boolean()},
                 example=lambda: {"data": _example_data(), "key": ["age", "sex"], "variable": "age", "widths": [10.0, 1.0],
                                  "N": 1000.0, "acquaintances": [10.0, 10.0]})
def recoding_total_risk(data: Any, key: Sequence[str | int], variable: str, widths: ArrayLike, N: float,
                        acquaintances: ArrayLike, method: str = "ml", approximate: bool = False,
                        source: str = "the data") -> float:
    """Total risk over nested keys made by recoding one key variable at several levels of detail.

    Parameters
    ----------
    data, key, variable, N, method, source
        As in :func:`recoding_map`.
    widths : array_like, shape (m,)
        Band widths of the levels; the widest band is the coarsest key K_1.
    acquaintances : array_like, shape (m,)
        Acquaintances at each level, in the order of ``widths`` (the investigator
        knows the coarse key of more people than the fine one).
    approximate : bool
        Eq 27 instead of Eq 26.

    Returns
    -------
    float
        ``TR`` (Eq 26) with ``f_ai = a_i / N`` and ``f_ui`` the Poisson-gamma
        estimate for level i.

    Notes
    -----
    Assumption (24) needs f_u non-decreasing from the coarsest key to the finest.
    Estimates may violate it locally; each level's f_u is then raised to the
    largest f_u of the coarser levels (the paper's "in a global sense").

    References
    ----------
    Mokken et al. (1992), Section 5.1, Equations 24, 26 and 27 (and Section 5.3).
    """
    w, a = widths, acquaintances
    if a.size != w.size:
        raise InputError(f"give one number of acquaintances per width: {w.size} widths, {a.size} values of a")
    order = np.argsort(-w, kind="stable")  # coarsest (widest) first
    from rumap.risk.paired import as_frame, select_columns

    frame = as_frame(data, source)
    names = select_columns(frame, key, source, what="key")
    if variable not in names:
        raise InputError(f"variable {variable!r} is not one of the key variables ({', '.join(names)})")
    x = frame[variable].to_numpy(dtype=float)
    f_u = []
    for width in w[order]:  # one fit per level
        recoded = frame.assign(**{variable: _band(x, width)})
        f_u.append(identity_risk_from_data(recoded, names, N, 0.0, method=method, source=source).f_u)
    f_u_monotone = np.maximum.accumulate(np.asarray(f_u))
    return nested_keys_total_risk(frame.shape[0], a[order] / N, f_u_monotone, approximate)
