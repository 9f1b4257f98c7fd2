"""What the analytic formulas need to know about the data (Duncan, Keller-McNulty & Stokes 2001, Eq 1-10).

:class:`AnalyticInputs` declares and checks the scalar inputs once;
:class:`AnalyticSetting` adds the data column the sample and extreme states use,
and :class:`rumap.specs.AnalyticSpec` the grid and the states of a map.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np
from numpy.typing import ArrayLike

from rumap._validation import StrOptions, assumes_valid, check_scalar
from rumap.errors import InputError
from rumap.maps.families import FAMILIES

__all__ = ["AnalyticInputs", "AnalyticSetting", "sample_variance"]


@dataclass(frozen=True)
class AnalyticInputs:
    """What the analytic formulas need to know about the data, each with its check.

    The fields are shared by :class:`AnalyticSetting` (which adds the data
    column) and :class:`rumap.specs.AnalyticSpec` (which adds the grid, the
    states and how to draw them), so that each is declared and checked once.

    Parameters
    ----------
    n : int
        Number of records, >= 1.
    sigma2 : float
        Variance of the data, > 0.
    mu : float, default 0
        Mean of the data.
    tau : float, optional
        The specific target for ``mean-target`` (Eq 1).
    p : float, default 0.99
        The percentile for ``percentile`` (Eq 5/8), ``0 < p < 1``.
    family : str, default "normal"
        Distribution family for ``percentile``, a key of :data:`FAMILIES`.
    shape : float, optional
        Its shape parameter.
    """

    n: int
    sigma2: float
    mu: float = 0.0
    tau: float | None = None
    p: float = 0.99
    family: str = "normal"
    shape: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_scalar("n", self.n))
        object.__setattr__(self, "sigma2", check_scalar("sigma2", self.sigma2))
        object.__setattr__(self, "mu", check_scalar("mu", self.mu))
        if self.tau is not None:
            object.__setattr__(self, "tau", check_scalar("tau", self.tau))
        object.__setattr__(self, "p", check_scalar("p", self.p))
        StrOptions(FAMILIES).check("family", self.family)

    def inputs(self) -> dict:
        """The fields of :class:`AnalyticInputs` as a dict, in their order."""
        return {f.name: getattr(self, f.name) for f in fields(AnalyticInputs)}


@dataclass(frozen=True)
class AnalyticSetting(AnalyticInputs):
    """What the analytic formulas need to know about the data: :class:`AnalyticInputs` and the data column.

    Parameters
    ----------
    n, sigma2, mu, tau, p, family, shape
        As in :class:`AnalyticInputs`.
    data : ndarray, optional
        The data column; needed by ``sample`` (Eq 3), and supplies the observed
        extremes for ``maximum`` and ``minimum`` (Eq 9).
    """

    data: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.data is not None:
            data = _data_column(self.data)
            data.setflags(write=False)
            object.__setattr__(self, "data", data)

    @classmethod
    def from_data(cls, x: ArrayLike, **overrides) -> AnalyticSetting:
        """A setting whose n, sigma2 (ddof = 1) and mu come from a data column.

        Keyword arguments override any of them (``None`` values are ignored).
        """
        data = _data_column(x)
        values = {"n": data.size, "sigma2": sample_variance(data), "mu": float(np.mean(data))}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(data=data, **values)

    def with_(self, **changes) -> AnalyticSetting:
        """A copy with some fields changed."""
        return replace(self, **changes)

    def config(self) -> dict:
        """The scalar inputs, for recording with a result."""
        out = self.inputs()
        if self.data is not None:
            out["data_min"] = float(self.data.min())
            out["data_max"] = float(self.data.max())
        return out


@assumes_valid
def sample_variance(x: np.ndarray) -> float:
    """The data's variance sigma^2 as the setting takes it from a column: the sample variance S^2 (ddof = 1).

    Every place that reads sigma^2 from data calls it: :meth:`AnalyticSetting.from_data`, the sample
    state's risk (Eq 3), a specification's ``from_data`` and the dashboard's analytic inputs.

    Parameters
    ----------
    x : ndarray, shape (n,)
        A finite data column of at least 2 values.

    Returns
    -------
    float
        ``sum (x_i - mean)^2 / (n - 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> sample_variance(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    2.5
    """
    return float(np.var(x, ddof=1))


def _data_column(x: ArrayLike) -> np.ndarray:
    try:
        data = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError("the data column must be numeric") from None
    if data.size < 2:
        raise InputError(f"the data column needs at least 2 values, got {data.size}")
    if not np.all(np.isfinite(data)):
        raise InputError("the data column has missing or infinite values")
    if np.var(data) == 0:
        raise InputError("the data column is constant (variance 0)")
    return data
