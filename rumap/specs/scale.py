"""The specification of the out-of-core risk measures of a file's categorical keys.

:class:`ScaleRiskSpec` names a CSV or Parquet file of any size, its key
variables, and the optional weight, household, sensitive variable and k of
:func:`rumap.scale.individual_risk`. A page runs it (:meth:`ScaleRiskSpec.run`);
:mod:`rumap.present.reproduce` writes it as Python and as a
``python -m rumap risk individual --engine scale`` command.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from rumap.errors import InputError

if TYPE_CHECKING:
    from rumap.scale.risk import ScaleRisk

__all__ = ["ScaleRiskSpec"]

#: The optional arguments of the specification, in the order the code writes them.
OPTIONS = ("weight", "household", "k", "sensitive")


@dataclass(frozen=True)
class ScaleRiskSpec:
    """Individual, household and global risk, k-anonymity and l-diversity of a file, out of core.

    Parameters
    ----------
    data : str
        The CSV or Parquet file.
    keys : tuple of str
        The key variables (at least one).
    weight, household, sensitive : str, optional
        The sampling weight, the household identifier and the variable whose
        distinct l-diversity is counted.
    k : int, optional
        The threshold of k-anonymity.

    Examples
    --------
    >>> spec = ScaleRiskSpec("census.parquet", ("sex", "age"), k=3)
    >>> spec.arguments()
    {'k': 3}
    """

    data: str
    keys: tuple[str, ...]
    weight: str | None = None
    household: str | None = None
    k: int | None = None
    sensitive: str | None = None

    def __post_init__(self) -> None:
        keys = (self.keys,) if isinstance(self.keys, str) else tuple(self.keys)
        if not keys or not all(isinstance(key, str) and key for key in keys):
            raise InputError(f"keys must name at least one key variable, got {self.keys!r}")
        object.__setattr__(self, "keys", keys)
        if not isinstance(self.data, str) or not self.data:
            raise InputError(f"data must name a file, got {self.data!r}")
        if self.k is not None and (isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1):
            raise InputError(f"k must be an integer >= 1, got {self.k!r}")

    def arguments(self) -> dict[str, Any]:
        """The optional arguments given, by name, in the order of :data:`OPTIONS`."""
        return {name: getattr(self, name) for name in OPTIONS if getattr(self, name) is not None}

    def run(self, progress: bool = False) -> ScaleRisk:
        """The figures of :func:`rumap.scale.individual_risk` on the file.

        Parameters
        ----------
        progress : bool
            Print each pass's progress on stderr.
        """
        from rumap.scale import individual_risk, scan

        return individual_risk(scan(self.data), list(self.keys), progress=progress, **self.arguments())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the specification."""
        out = asdict(self)
        out["keys"] = list(self.keys)
        return out
