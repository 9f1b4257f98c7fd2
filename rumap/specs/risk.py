"""The specification of record linkage and interval disclosure between an original file and its masked version.

:class:`MaskedRiskSpec` names both files (or the example: a file and its copy
with relative additive noise, :func:`example_masked`), the intruder's keys and
linkage method, and the variables and intervals of interval disclosure. A page
runs it on the files' tables; :mod:`rumap.present.reproduce` writes it as Python
and as ``python -m rumap risk linkage`` / ``risk interval`` commands.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from rumap._validation import SEED, Table, validate_params

if TYPE_CHECKING:
    import pandas as pd

    from rumap.risk.interval import IntervalResult
    from rumap.risk.linkage import LinkageResult

__all__ = ["MaskedRiskSpec", "example_masked", "EXAMPLE_NOISE_SEED"]

#: The seed of the example's noise.
EXAMPLE_NOISE_SEED = 0


def _example() -> dict[str, Any]:
    import pandas as pd

    return {"original": pd.DataFrame({"x": [1.0, 2.0, 3.0], "k": list("aba")}), "noise": 0.5, "seed": 1}


@validate_params({"original": Table(min_rows=2), "noise": "lambda2", "seed": SEED}, example=_example)
def example_masked(original: pd.DataFrame, noise: float, seed: int = EXAMPLE_NOISE_SEED) -> pd.DataFrame:
    """A copy of ``original`` with relative additive noise on its numeric columns.

    Parameters
    ----------
    original : DataFrame
    noise : float
        The noise's variance as a share of each numeric variable's variance.
    seed : int

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "k": list("abab")})
    >>> masked = example_masked(frame, 0.5)
    >>> masked["k"].tolist(), bool((masked["x"] != frame["x"]).all())
    (['a', 'b', 'a', 'b'], True)
    """
    from rumap.io.data import numeric_column_names
    from rumap.masking.noise import NoiseSpec, add_noise

    numeric = numeric_column_names(original)
    masked = original.copy()
    masked[numeric] = add_noise(original[numeric].to_numpy(dtype=float), noise, NoiseSpec(relative=True), seed=seed)
    return masked


@dataclass(frozen=True)
class MaskedRiskSpec:
    """Record linkage and interval disclosure of a masked file against its original.

    Parameters
    ----------
    original, masked : str
        The files (row i of the masked file is the masked record i).
    keys : tuple of str
        The intruder's key variables (none: no linkage).
    method : str
        A key of :data:`rumap.risk.linkage.LINKAGE_METHODS`.
    aggregation : str
        The distance method's aggregation (:data:`rumap.risk.linkage.AGGREGATIONS`).
    tolerance : float
        The probabilistic method's agreement tolerance.
    columns : tuple of str
        The numeric variables of interval disclosure (none: no interval disclosure).
    interval_method : str
        A key of :data:`rumap.risk.interval.INTERVAL_METHODS`.
    p : float
        The intervals' width in percent.
    noise : float, optional
        The example: the masked file is :func:`example_masked` of the original at this noise, written to ``masked``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [4.0, 1.0, 3.0, 2.0]})
    >>> spec = MaskedRiskSpec("o.csv", "m.csv", keys=("x", "y"), columns=("x",), noise=0.0)
    >>> linked, intervals = spec.run(frame)
    >>> linked.linked_correctly, intervals.risk
    (1.0, 1.0)
    """

    original: str
    masked: str
    keys: tuple[str, ...] = ()
    method: str = "distance"
    aggregation: str = "sum_of_squares"
    tolerance: float = 0.1
    columns: tuple[str, ...] = ()
    interval_method: str = "rank"
    p: float = 1.0
    noise: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", tuple(self.keys))
        object.__setattr__(self, "columns", tuple(self.columns))

    def masked_frame(self, original: pd.DataFrame, masked: pd.DataFrame | None = None) -> pd.DataFrame:
        """The masked table: ``masked``, or the example's noisy copy of ``original``."""
        if self.noise is not None:
            return example_masked(original, self.noise)
        if masked is None:
            from rumap.errors import InputError

            raise InputError(f"the table of {self.masked} is needed")
        return masked

    def linkage(self, original: pd.DataFrame, masked: pd.DataFrame) -> LinkageResult | None:
        """The linkage of the masked records to the originals (None without keys)."""
        from rumap.risk.linkage import distance_linkage, probabilistic_linkage

        keys = list(self.keys)
        if not keys:
            return None
        if self.method == "distance":
            return distance_linkage(original[keys], masked[keys], keys, aggregation=self.aggregation)
        return probabilistic_linkage(original[keys], masked[keys], keys, tolerance=self.tolerance)

    def intervals(self, original: pd.DataFrame, masked: pd.DataFrame) -> IntervalResult | None:
        """The share of original values inside their interval (None without columns)."""
        from rumap.risk.interval import interval_disclosure

        columns = list(self.columns)
        if not columns:
            return None
        return interval_disclosure(original[columns], masked[columns], self.p, self.interval_method, columns)

    def run(self, original: pd.DataFrame,
            masked: pd.DataFrame | None = None) -> tuple[LinkageResult | None, IntervalResult | None]:
        """The linkage and the interval disclosure of the masked table (:meth:`masked_frame`)."""
        masked = self.masked_frame(original, masked)
        return self.linkage(original, masked), self.intervals(original, masked)

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return asdict(self)
