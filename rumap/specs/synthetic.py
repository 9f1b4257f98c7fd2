"""The R-U map of a synthetic-data generator over its parameter, as a specification (:mod:`rumap.maps.synthetic`).

:class:`SyntheticSpec` holds a generator of :data:`rumap.synthesis.GENERATORS`,
its parameter's values, the risk and utility of its map, the replicates, the
holdout share, the copies and the seed, with the data it synthesises (a
:class:`rumap.specs.DataSource` of numeric columns, as an empirical map's). Its
:meth:`SyntheticSpec.run` gives an :class:`rumap.specs.Analysis` whose map is
on the chosen measures and whose ``common`` map is on the measures every
masking map shares, from the same synthetic copies, so that a kept synthetic
map overlays the masking maps on Compare and Pareto.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rumap._validation import check_scalar
from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.errors import InputError
from rumap.result import json_safe
from rumap.specs import Analysis, DataSource

__all__ = ["SyntheticSpec"]


@dataclass(frozen=True)
class SyntheticSpec:
    """A generator's R-U map on the numeric columns of a data source.

    Parameters
    ----------
    method : str
        A key of :data:`rumap.synthesis.GENERATORS`.
    values : sequence of float
        The generator's parameter's values.
    data : DataSource
        The data synthesised (its columns, in the order of synthesis).
    risk, utility : str
        Keys of :data:`rumap.maps.synthetic.SYNTHETIC_RISKS` and ``SYNTHETIC_UTILITIES``.
    replicates : int
    holdout_share : float
    copies : int
    keys : sequence of str, optional
        The key columns of ``repu`` and ``disco``.
    target : str, optional
        The target column of ``disco``.
    seed : int
    max_risk : float, optional
    log_x, log_y : bool

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(30, 2))
    >>> spec = SyntheticSpec("copula", (0.0, 1.0), DataSource.of("inline", "example", ["a", "b"], x),
    ...                      replicates=2)
    >>> analysis = spec.run(x)
    >>> analysis.maps[0].knowledge, analysis.common.knowledge, analysis.n_records
    ('dcr_share', 'linkage', 30)
    """

    method: str
    values: tuple[float, ...]
    data: DataSource
    risk: str = "dcr_share"
    utility: str = "pmse"
    replicates: int = 20
    holdout_share: float = 0.5
    copies: int = 1
    keys: tuple[str, ...] | None = None
    target: str | None = None
    seed: int = 0
    max_risk: float | None = None
    log_x: bool = False
    log_y: bool = False

    kind = "synthetic"

    def __post_init__(self) -> None:
        from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES
        from rumap.synthesis import GENERATORS

        if self.method not in GENERATORS:
            raise InputError(f"method must be one of {', '.join(GENERATORS)}, got {self.method!r}")
        record = GENERATORS[self.method]
        values = tuple(record.check(v) for v in self.values)
        if not values:
            raise InputError(f"values must hold at least one {record.parameter}")
        object.__setattr__(self, "values", values)
        if self.risk not in SYNTHETIC_RISKS:
            raise InputError(f"risk must be one of {', '.join(SYNTHETIC_RISKS)}, got {self.risk!r}")
        if self.utility not in SYNTHETIC_UTILITIES:
            raise InputError(f"utility must be one of {', '.join(SYNTHETIC_UTILITIES)}, got {self.utility!r}")
        for name in ("replicates", "holdout_share", "copies", "seed"):
            object.__setattr__(self, name, check_scalar(name, getattr(self, name)))
        given = {"keys": self.keys, "target": self.target, "holdout": True}
        for need in (*SYNTHETIC_RISKS[self.risk].needs, *SYNTHETIC_UTILITIES[self.utility].needs):
            if not given[need]:
                raise InputError(f"risk {self.risk} needs {need}")
        if self.keys is not None:
            object.__setattr__(self, "keys", tuple(self.keys))
        for name in [*(self.keys or ()), *([self.target] if self.target else [])]:
            if name not in self.data.columns:
                raise InputError(f"{name!r} is not a column of the data: {', '.join(self.data.columns)}")
        if self.max_risk is not None:
            check_scalar("max_risk", self.max_risk)

    @property
    def parameter(self) -> str:
        """The generator's parameter (the map's axis)."""
        from rumap.synthesis import GENERATORS

        return GENERATORS[self.method].parameter

    def run(self, data: np.ndarray | None = None, progress: Callable[[float], None] | None = None) -> Analysis:
        """The map on ``data`` (checked against :attr:`data`) or on the stored values.

        Parameters
        ----------
        data : ndarray, optional
            The numeric columns of :attr:`data`, shape (n, p).
        progress : callable, optional
            Told the share of (replicate, value) pairs done.

        Returns
        -------
        Analysis
            Its one map on :attr:`risk` and :attr:`utility`, ``common`` on the common measures.
        """
        import pandas as pd

        from rumap.maps.synthetic import synthetic_maps

        values = self.data.resolve(data)
        self.check_budget(values)
        frame = pd.DataFrame(values, columns=list(self.data.columns))
        own, common = synthetic_maps(frame, self.method, list(self.values), self.risk, self.utility,
                                     self.replicates, self.holdout_share, self.copies,
                                     list(self.keys) if self.keys else None, self.target, None, self.seed,
                                     self.data.name, progress=progress)
        return Analysis(spec=self, maps=(own,), n_records=int(values.shape[0]), common=common)

    def check_budget(self, data: np.ndarray | None = None, budget: WorkBudget = DEFAULT_BUDGET) -> None:
        """Refuse, before any work, a map over ``budget``: records x columns x replicates x values x copies drawn.

        Examples
        --------
        >>> x = np.zeros((1_000_000, 10))
        >>> SyntheticSpec("copula", (0.0, 0.5), DataSource.of("inline", "big", list("abcdefghij"), x),
        ...               replicates=200).check_budget(x)
        Traceback (most recent call last):
        ...
        rumap.errors.InputError: the run needs 4e+09 steps (1000000 records x 10 columns x 200 replicates x 2 values x 1 copies synthesised and measured), over the work limit of 2e+09: ask for less (--work-limit raises the limit on the command line)
        """
        shape = np.shape(self.data.resolve(data))
        n, p = int(shape[0]), int(np.prod(shape[1:], dtype=np.int64))
        budget.check_grid(len(self.values), self.parameter)
        budget.check_work(float(n) * p * self.replicates * len(self.values) * self.copies,
                          f"{n} records x {p} columns x {self.replicates} replicates x {len(self.values)} values x "
                          f"{self.copies} copies synthesised and measured")

    def title(self) -> str:
        """The map's default name."""
        return f"{self.method} synthesis, {self.data.name} [{', '.join(self.data.columns)}]"

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data (:meth:`from_dict` reads it back)."""
        return json_safe({"kind": self.kind, "method": self.method, "values": list(self.values),
                          "data": self.data.to_dict(), "risk": self.risk, "utility": self.utility,
                          "replicates": self.replicates, "holdout_share": self.holdout_share,
                          "copies": self.copies, "keys": None if self.keys is None else list(self.keys),
                          "target": self.target, "seed": self.seed, "max_risk": self.max_risk,
                          "log_x": self.log_x, "log_y": self.log_y})

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str = "spec") -> SyntheticSpec:
        """Rebuild from :meth:`to_dict` (a bad field raises InputError naming ``path``)."""
        if not isinstance(d, Mapping) or not isinstance(d.get("data"), Mapping):
            raise InputError(f"{path} must be an object with its data")
        fields = {k: d[k] for k in ("risk", "utility", "replicates", "holdout_share", "copies", "target", "seed",
                                    "max_risk", "log_x", "log_y") if k in d}
        keys: Sequence[str] | None = d.get("keys")
        try:
            return cls(d["method"], tuple(d["values"]), DataSource.from_dict(d["data"], f"{path}.data"),
                       keys=None if keys is None else tuple(keys), **fields)
        except (KeyError, TypeError) as exc:
            raise InputError(f"{path}: missing or bad field {exc}") from None
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
