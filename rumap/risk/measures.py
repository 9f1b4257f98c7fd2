"""The dataset-level disclosure risk measures an empirical R-U map can use as its R.

Each is a record: the measure ``f(original (n, p), masked (n, p)) -> float`` and
what it measures, in words. A map made with a measure has ``knowledge`` equal to
the measure's name and R equal to the measure's mean over the replicates.
Adding a measure is one entry in :data:`DATASET_RISK_MEASURES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rumap.risk.interval import interval_risk, sdid_risk
from rumap.risk.linkage import linkage_risk_distance, linkage_risk_distance_shared_ties, linkage_risk_probabilistic

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
    """

    measure: Callable[[np.ndarray, np.ndarray], float]
    description: str


#: Dataset-level risk measures by name.
DATASET_RISK_MEASURES: dict[str, DatasetRiskMeasure] = {
    "record-linkage": DatasetRiskMeasure(
        linkage_risk_distance, "share of records whose nearest original is their own (distance linkage)"),
    "record-linkage-shared-ties": DatasetRiskMeasure(
        linkage_risk_distance_shared_ties, "as record-linkage, a tie among t originals counting 1/t"),
    "probabilistic-linkage": DatasetRiskMeasure(
        linkage_risk_probabilistic, "share of records paired with their own original (Fellegi-Sunter)"),
    "interval-disclosure": DatasetRiskMeasure(
        interval_risk, "share of original values in a rank interval of 10% of the records around the masked one"),
    "sdid": DatasetRiskMeasure(
        sdid_risk, "share of original values within 5% of a standard deviation of the masked value"),
}
