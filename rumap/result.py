"""The result type of an R-U map, shared by the engine, plots, tables, exports and the CLI."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rumap._validation import assumes_valid
from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RUMap", "json_safe"]


def _frozen_array(values: Any) -> np.ndarray:
    arr = np.array(values, dtype=float, copy=True).reshape(-1)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class RUMap:
    """One R-U curve: risk and utility as a masking parameter varies.

    Parameters
    ----------
    parameter : str
        Name of the masking parameter, e.g. ``"lambda2"`` or ``"k"``.
    values : array_like, shape (m,)
        The parameter values.
    risk, utility : array_like, shape (m,)
        Disclosure risk R and data utility U at each value.
    risk_se, utility_se : array_like, shape (m,), optional
        Monte-Carlo standard errors (``None`` for analytic maps).
    risk_label, utility_label : str
        What R and U measure, for axis titles and tables.
    method : str
        How the map was obtained (``"analytic"``, ``"noise"``,
        ``"microaggregation"``, ...).
    knowledge : str
        The snooper's knowledge state (``"record"``, ``"index"``, ...).
    target : str
        The snooper's target, where the state has one (``"max"``, ``"p99"``).
    efficiency : array_like, shape (m,), optional
        U divided by the utility of the unmasked data.
    config : mapping
        The inputs that produced the map, so that it can be re-run.
    """

    parameter: str
    values: np.ndarray
    risk: np.ndarray
    utility: np.ndarray
    risk_se: np.ndarray | None = None
    utility_se: np.ndarray | None = None
    risk_label: str = "R = 1 / snooper's MSE"
    utility_label: str = "U = 1 / MSE of the mean"
    method: str = "analytic"
    knowledge: str = ""
    target: str = ""
    efficiency: np.ndarray | None = None
    config: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("values", "risk", "utility", "risk_se", "utility_se", "efficiency"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _frozen_array(value))
        m = self.values.shape[0]
        for name in ("risk", "utility", "risk_se", "utility_se", "efficiency"):
            value = getattr(self, name)
            if value is not None and value.shape[0] != m:
                raise ValueError(f"{name} has {value.shape[0]} entries but values has {m}")
        object.__setattr__(self, "config", dict(self.config))

    @property
    def label(self) -> str:
        """A short name for legends: method, knowledge state and target."""
        parts = [p for p in (self.method if self.method != "analytic" else "", self.knowledge, self.target) if p]
        return " / ".join(parts) if parts else self.method

    def to_frame(self) -> pd.DataFrame:
        """The curve as a table, one row per parameter value."""
        import pandas as pd

        frame = pd.DataFrame({self.parameter: self.values, "risk": self.risk, "utility": self.utility})
        if self.risk_se is not None:
            frame["risk_se"] = self.risk_se
        if self.utility_se is not None:
            frame["utility_se"] = self.utility_se
        if self.efficiency is not None:
            frame["efficiency"] = self.efficiency
        frame.insert(0, "target", self.target)
        frame.insert(0, "knowledge", self.knowledge)
        frame.insert(0, "method", self.method)
        return frame

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (non-finite numbers become ``None``)."""
        out: dict[str, Any] = {
            "method": self.method,
            "knowledge": self.knowledge,
            "target": self.target,
            "parameter": self.parameter,
            "values": self.values.tolist(),
            "risk": self.risk.tolist(),
            "utility": self.utility.tolist(),
            "risk_se": None if self.risk_se is None else self.risk_se.tolist(),
            "utility_se": None if self.utility_se is None else self.utility_se.tolist(),
            "efficiency": None if self.efficiency is None else self.efficiency.tolist(),
            "risk_label": self.risk_label,
            "utility_label": self.utility_label,
            "config": dict(self.config),
        }
        return json_safe(out)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RUMap:
        """Rebuild a map from :meth:`to_dict` output (``None`` in R becomes inf)."""

        def arr(key: str, fill: float = math.inf) -> np.ndarray | None:
            value = data.get(key)
            if value is None:
                return None
            return np.array([fill if v is None else v for v in value], dtype=float)

        if not isinstance(data, Mapping):
            raise InputError(f"a map must be a JSON object, got {type(data).__name__}")
        try:
            return cls(
                parameter=data["parameter"],
                values=arr("values", math.nan),
                risk=arr("risk"),
                utility=arr("utility"),
                risk_se=arr("risk_se", math.nan),
                utility_se=arr("utility_se", math.nan),
                risk_label=data.get("risk_label", "R"),
                utility_label=data.get("utility_label", "U"),
                method=data.get("method", ""),
                knowledge=data.get("knowledge", ""),
                target=data.get("target", ""),
                efficiency=arr("efficiency", math.nan),
                config=data.get("config", {}),
            )
        except KeyError as exc:
            raise InputError(f"a map needs the field {exc}") from None
        except (TypeError, ValueError) as exc:
            raise InputError(f"a map has an invalid field: {exc}") from None


@assumes_valid
def json_safe(obj: Any) -> Any:
    """Convert numpy types to Python ones and non-finite floats to ``None``.

    Parameters
    ----------
    obj : object
        Mappings, sequences, arrays and numbers, nested.

    Returns
    -------
    object
        The same structure with Python types only.
    """
    if isinstance(obj, Mapping):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj
