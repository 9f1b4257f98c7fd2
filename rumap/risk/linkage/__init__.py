"""Record linkage as a disclosure risk measure: distance-based and probabilistic.

An intruder holds the original values of some *key variables* for the
respondents and tries to link each masked record to its original. The share of
masked records linked to their own original is the disclosure risk. Row ``i``
of the masked file is the masked version of row ``i`` of the original.

References
----------
.. [1] J. Domingo-Ferrer, V. Torra (2004), "Disclosure risk assessment in
   statistical data protection", J. Comput. Appl. Math. 164-165, 285-293,
   Sections 2.1-2.2 and Definition 1.
.. [2] M. A. Jaro (1989), "Advances in record-linkage methodology as applied to
   matching the 1985 Census of Tampa, Florida", JASA 84, 414-420.
.. [3] I. P. Fellegi, A. B. Sunter (1969), "A theory for record linkage", JASA 64, 1183-1210.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rumap._validation import DataMatrix, StrOptions, validate_params
from rumap.risk.linkage.distance import (
    AGGREGATIONS,
    KINDS,
    STANDARDIZATIONS,
    LinkageResult,
    distance_linkage,
    variable_distance,
)
from rumap.risk.linkage.probabilistic import FellegiSunterFit, fellegi_sunter_em, probabilistic_linkage

__all__ = [
    "KINDS",
    "AGGREGATIONS",
    "STANDARDIZATIONS",
    "LINKAGE_METHODS",
    "LinkageResult",
    "distance_linkage",
    "probabilistic_linkage",
    "record_linkage",
    "FellegiSunterFit",
    "fellegi_sunter_em",
    "variable_distance",
    "linkage_risk_distance",
    "linkage_risk_distance_shared_ties",
    "linkage_risk_probabilistic",
]


#: The constraints of the dataset-level measures: every column of both files, the same rows.
_DATASET_MEASURE = {"original": DataMatrix(min_rows=2, ndim=(2,)), "masked": DataMatrix(min_rows=2, ndim=(2,),
                                                                                       masked_of="original")}


def _dataset_example() -> dict[str, Any]:
    x = np.array([[1.0, 10.0], [2.0, 30.0], [3.0, 20.0], [4.0, 50.0]])
    return {"original": x, "masked": x + 0.1}


#: Record-linkage methods by name.
LINKAGE_METHODS: dict[str, Callable[..., LinkageResult]] = {
    "distance": distance_linkage,
    "probabilistic": probabilistic_linkage,
}


@validate_params({"method": StrOptions(LINKAGE_METHODS)},
                 example=lambda: {"original": [[1.0, 2.0], [3.0, 5.0], [4.0, 1.0]],
                                  "masked": [[1.1, 2.0], [3.0, 5.2], [4.1, 1.0]]})
def record_linkage(original: Any, masked: Any, keys: Sequence[str | int] | None = None,
                   method: str = "distance", **options: Any) -> LinkageResult:
    """Record linkage by ``method`` (``"distance"`` or ``"probabilistic"``); see those functions.

    Parameters
    ----------
    original, masked : DataFrame or array_like
        Row i of ``masked`` is the masked version of row i of ``original``.
    keys : sequence of str or int, optional
        The intruder's key variables (default: every column).
    method : {"distance", "probabilistic"}
        A key of :data:`LINKAGE_METHODS`.
    **options
        Passed to the method's function.

    Returns
    -------
    LinkageResult

    Examples
    --------
    >>> import numpy as np
    >>> from rumap.risk.linkage import record_linkage
    >>> x = np.arange(20.0).reshape(10, 2)
    >>> record_linkage(x, x + 0.1).linked_correctly, record_linkage(x, x[::-1]).linked_correctly
    (1.0, 0.0)
    """
    return LINKAGE_METHODS[method](original, masked, keys, **options)


# ---------------------------------------------------------------------------
# dataset-level risk measures: f(original (n, p), masked (n, p)) -> float

@validate_params(_DATASET_MEASURE, example=_dataset_example)
def linkage_risk_distance(original: np.ndarray, masked: np.ndarray) -> float:
    """Share of masked records whose nearest original (all columns as keys) is their own.

    A dataset-level risk measure for empirical R-U maps; see :func:`distance_linkage`.

    Parameters
    ----------
    original, masked : ndarray, shape (n, p)
        Row i of ``masked`` is the masked version of row i of ``original``.

    Returns
    -------
    float
        A share in [0, 1].
    """
    return _distance_share(original, masked)


def _distance_share(original: np.ndarray, masked: np.ndarray) -> float:
    """:func:`linkage_risk_distance` of checked data (the engine's kernel, called for every replicate)."""
    return distance_linkage(original, masked).linked_correctly


@validate_params(_DATASET_MEASURE, example=_dataset_example)
def linkage_risk_distance_shared_ties(original: np.ndarray, masked: np.ndarray) -> float:
    """As :func:`linkage_risk_distance`, a tie among t originals counting 1 / t (``ties="share"``).

    For microaggregation with k = 2 every masked record is the midpoint of two
    originals: the default measure gives 0, this one the intruder's 1/2 chance.

    Parameters
    ----------
    original, masked : ndarray, shape (n, p)
        Row i of ``masked`` is the masked version of row i of ``original``.

    Returns
    -------
    float
        A share in [0, 1].
    """
    return _shared_ties_share(original, masked)


def _shared_ties_share(original: np.ndarray, masked: np.ndarray) -> float:
    """:func:`linkage_risk_distance_shared_ties` of checked data (the engine's kernel)."""
    return distance_linkage(original, masked, ties="share").linked_correctly


@validate_params(_DATASET_MEASURE, example=_dataset_example)
def linkage_risk_probabilistic(original: np.ndarray, masked: np.ndarray) -> float:
    """Share of masked records paired with their own original by Fellegi-Sunter linkage.

    A dataset-level risk measure for empirical R-U maps; see :func:`probabilistic_linkage`.

    Parameters
    ----------
    original, masked : ndarray, shape (n, p)
        Row i of ``masked`` is the masked version of row i of ``original``.

    Returns
    -------
    float
        A share in [0, 1].
    """
    return _probabilistic_share(original, masked)


def _probabilistic_share(original: np.ndarray, masked: np.ndarray) -> float:
    """:func:`linkage_risk_probabilistic` of checked data (the engine's kernel)."""
    return probabilistic_linkage(original, masked).linked_correctly
