"""A release to run: the plan, the data file it protects, the protected file's name and the report's.

:class:`ReleaseSpec` is what ``python -m rumap release`` is given: the data
file (``--data``), the plan (``--plan``, written to ``plan_file``), the
protected file (``--out``, whose extension is its format), the report
(``--report``) and the replicates behind each step's map prediction. Its
:meth:`~ReleaseSpec.run` applies the plan as the command does (between two
steps the data pass through the format of ``out``), so the Release page, the
command and the Python call of :mod:`rumap.present.reproduce` give the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from rumap._validation import PARAMETERS, check_scalar
from rumap.errors import InputError
from rumap.release.plan import ReleasePlan

if TYPE_CHECKING:
    import pandas as pd

    from rumap.release.apply import ReleaseResult
    from rumap.release.report import ReleaseReport

__all__ = ["ReleaseSpec"]


#: Simulated releases behind each step's map prediction, unless the spec says otherwise.
DEFAULT_REPLICATES = 50

@dataclass(frozen=True)
class ReleaseSpec:
    """A release plan applied to a data file.

    Parameters
    ----------
    plan : ReleasePlan
        The steps.
    data : str
        The data file, as the command names it.
    out : str
        The protected file; its extension is the format.
    plan_file : str, default "release_plan.json"
        Where the plan is saved for the command (the Release page's download).
    report : str, optional
        The report file (``.html`` or ``.json``; None: none).
    replicates : int, optional
        Simulated releases behind each step's map prediction (None: no prediction).
    chunk_size : int, optional
        Apply the plan this many records at a time, from a Parquet file to a Parquet file
        (:func:`rumap.release.stream.release_in_chunks`, ``release --chunk-size``): no report
        and no prediction then (None: the whole file in memory).

    Examples
    --------
    >>> import pandas as pd
    >>> from rumap.release.plan import Step
    >>> spec = ReleaseSpec(ReleasePlan((Step("microaggregation", {"k": 2}, columns=("a",)),)), "a.csv", "b.csv")
    >>> spec.run(pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]})).data["a"].tolist()
    [1.5, 1.5, 6.0, 6.0]
    """

    plan: ReleasePlan
    data: str
    out: str
    plan_file: str = "release_plan.json"
    report: str | None = "release_report.html"
    replicates: int | None = DEFAULT_REPLICATES
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        from rumap.io.data import WRITERS

        if not isinstance(self.plan, ReleasePlan):
            raise InputError(f"plan must be a ReleasePlan, got {type(self.plan).__name__}")
        suffix = PurePath(self.out).suffix.lower()
        if suffix not in WRITERS:
            raise InputError(f"out {self.out}: unknown format {suffix or '(no extension)'!r}; "
                             f"use one of {', '.join(WRITERS)}")
        if self.replicates is not None:
            object.__setattr__(self, "replicates",
                               check_scalar("replicates", self.replicates, PARAMETERS["prediction_replicates"]))
        if self.chunk_size is not None:
            object.__setattr__(self, "chunk_size", check_scalar("chunk_size", self.chunk_size,
                                                                PARAMETERS["record_chunk"]))
            if self.report is not None or self.replicates is not None:
                raise InputError("a release chunk by chunk makes no report and no prediction (they need the whole "
                                 "file in memory): give report=None and replicates=None")
            if suffix != ".parquet" or PurePath(self.data).suffix.lower() != ".parquet":
                raise InputError("a release chunk by chunk reads a .parquet data file and writes a .parquet file")

    def run(self, frame: pd.DataFrame) -> ReleaseResult:
        """Apply the plan to ``frame`` (the data file's table), as ``python -m rumap release`` does."""
        from rumap.release.apply import apply_plan

        return apply_plan(frame, self.plan, source=self.data, between=PurePath(self.out).name)

    def released_report(self, frame: pd.DataFrame, result: ReleaseResult) -> ReleaseReport:
        """The report of ``result`` (from :meth:`run` on ``frame``), with the maps' predictions unless none."""
        from rumap.release.report import release_report

        return release_report(frame, result, replicates=self.replicates)

    def content(self, result: ReleaseResult) -> bytes:
        """The protected file's bytes."""
        from rumap.io.data import table_bytes

        return table_bytes(result.data, self.out)

    def to_dict(self) -> dict[str, Any]:
        """The specification as plain data."""
        return {"plan": self.plan.to_dict(), "data": self.data, "out": self.out, "plan_file": self.plan_file,
                "report": self.report, "replicates": self.replicates,
                **({"chunk_size": self.chunk_size} if self.chunk_size is not None else {})}
