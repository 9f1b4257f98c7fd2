"""The dataset-level disclosure risk measures an empirical R-U map can use as its R.

Each is a record: the measure ``f(original (n, p), masked (n, p)) -> float``, its
kernel (the same of data checked once, which the engine calls for every
replicate) and what it measures, in words. A map made with a measure has ``knowledge`` equal to
the measure's name and R equal to the measure's mean over the replicates.
Adding a measure is one entry in :data:`DATASET_RISK_MEASURES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from rumap.risk.interval import DEFAULT_P, _risk, interval_risk, sdid_risk
from rumap.risk.linkage import (
    _distance_share,
    _probabilistic_share,
    _shared_ties_share,
    linkage_risk_distance,
    linkage_risk_distance_shared_ties,
    linkage_risk_probabilistic,
)

__all__ = ["DatasetRiskMeasure", "DATASET_RISK_MEASURES"]


@dataclass(frozen=True)
class DatasetRiskMeasure:
    """A disclosure risk measure of a whole masked file.

    Parameters
    ----------
    measure : callable
        ``measure(original, masked) -> float``, both of shape (n, p), row ``i``
        of ``masked`` the masked version of row ``i`` of ``original``.
    description : str
        What the number is, for help texts.
    kernel : callable, optional
        ``measure`` of data already checked: ``original`` a finite float array
        (n, p) and ``masked`` of its shape. The simulation engine calls it for
        every replicate, having checked the data once. Default: ``measure``.
    """

    measure: Callable[[np.ndarray, np.ndarray], float]
    description: str
    kernel: Callable[[np.ndarray, np.ndarray], float] | None = None

    def __post_init__(self) -> None:
        if self.kernel is None:
            object.__setattr__(self, "kernel", self.measure)


#: Dataset-level risk measures by name.
DATASET_RISK_MEASURES: dict[str, DatasetRiskMeasure] = {
    "record-linkage": DatasetRiskMeasure(
        linkage_risk_distance, "share of records whose nearest original is their own (distance linkage)",
        _distance_share),
    "record-linkage-shared-ties": DatasetRiskMeasure(
        linkage_risk_distance_shared_ties, "as record-linkage, a tie among t originals counting 1/t",
        _shared_ties_share),
    "probabilistic-linkage": DatasetRiskMeasure(
        linkage_risk_probabilistic, "share of records paired with their own original (Fellegi-Sunter)",
        _probabilistic_share),
    "interval-disclosure": DatasetRiskMeasure(
        interval_risk, "share of original values in a rank interval of 10% of the records around the masked one",
        partial(_risk, p=DEFAULT_P["rank"], method="rank")),
    "sdid": DatasetRiskMeasure(
        sdid_risk, "share of original values within 5% of a standard deviation of the masked value",
        partial(_risk, p=DEFAULT_P["sd"], method="sd")),
}
