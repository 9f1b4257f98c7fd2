"""R-U maps of MST's synthetic records over the privacy loss epsilon.

For each epsilon, :func:`rumap.privacy.mst.mst_synthesize` draws ``replicates``
synthetic files from seeds drawn from ``seed``; R and U are their means, with
standard errors:

- R: the share of the original's unique combinations of the columns (sample
  uniques, the records most at risk) that some synthetic record reproduces;
- U: one minus the mean total variation distance between the original's and
  the synthetic file's 2-way tables over every pair of columns (what MST
  sets out to keep).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from rumap._validation import SEED, Grid, Labels, Table, assumes_valid, validate_params
from rumap.result import RUMap

__all__ = ["mst_map", "synthetic_measures"]

RISK_LABEL = "R = share of the original's unique combinations a synthetic record reproduces"
UTILITY_LABEL = "U = 1 - mean total variation distance of the 2-way tables"


@assumes_valid
def synthetic_measures(original: pd.DataFrame, synthetic: pd.DataFrame, columns: Sequence[str]) -> dict[str, float]:
    """R and U of one synthetic file (module notes), and the number of the original's unique combinations.

    Parameters
    ----------
    original, synthetic : pandas.DataFrame
    columns : sequence of str

    Returns
    -------
    dict
        ``uniques_reproduced``, ``mean_tvd``, ``uniques``.
    """
    names = list(columns)
    original = original[names].astype("string").fillna("<missing>")
    synthetic = synthetic[names].astype("string").fillna("<missing>")
    keys = original.value_counts()
    uniques = keys[keys == 1].index
    present = set(synthetic.itertuples(index=False, name=None))
    reproduced = float(np.mean([tuple(u) in present for u in uniques])) if len(uniques) else 0.0
    distances = []
    for a, b in combinations(names, 2):
        p = original.value_counts([a, b], normalize=True)
        q = synthetic.value_counts([a, b], normalize=True)
        distances.append(0.5 * float(p.sub(q, fill_value=0.0).abs().sum()))
    return {"uniques_reproduced": reproduced, "mean_tvd": float(np.mean(distances)), "uniques": float(len(uniques))}


def _example() -> dict[str, Any]:
    frame = pd.DataFrame({"a": list("xxyyxy") * 5, "b": list("ppqqpq") * 5, "c": list("uvuvuz") * 5})
    return {"frame": frame, "columns": ["a", "b", "c"], "epsilons": [0.5, 5.0], "replicates": 2}


@validate_params({"frame": Table(), "columns": Labels("a list of column names"), "epsilons": Grid("privacy_loss"),
                  "delta": [None, "risk_bound"], "replicates": "replicates", "seed": SEED},
                 example=_example)
def mst_map(frame: pd.DataFrame, columns: Sequence[str], epsilons: Sequence[float] | np.ndarray,
            delta: float | None = None, replicates: int = 5, seed: int | None = 0) -> RUMap:
    """The R-U map of MST's synthetic records over epsilon (module notes).

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of str
        Two or more categorical columns.
    epsilons : sequence of float
    delta : float, optional
        Default :data:`rumap.privacy.accounting.DEFAULT_DELTA`.
    replicates : int, default 5
        Synthetic files per epsilon.
    seed : int, optional
        Default 0.

    Returns
    -------
    RUMap
        ``parameter`` ``"epsilon"``, method ``"mst"``; ``config`` with the mean TVD and the uniques per epsilon.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": list("xxyyxy") * 20, "b": list("ppqqpq") * 20, "c": list("uvuvuz") * 20})
    >>> m = mst_map(frame, ["a", "b", "c"], [0.05, 20.0], replicates=3)
    >>> bool(m.utility[0] < m.utility[1])
    True
    """
    from rumap.privacy.mst import mst_synthesize

    seeds = np.random.SeedSequence(0 if seed is None else int(seed)).spawn(len(epsilons))
    risks, utilities, risk_se, utility_se, tvd = [], [], [], [], []
    uniques = 0.0
    for epsilon, sequence in zip(np.asarray(epsilons, dtype=float), seeds, strict=True):
        rng = np.random.default_rng(sequence)
        rows = [synthetic_measures(frame, mst_synthesize(frame, columns, float(epsilon), delta, rng).synthetic,
                                   columns) for _ in range(replicates)]  # as many records as MST's noisy count
        r = np.array([row["uniques_reproduced"] for row in rows])
        u = 1.0 - np.array([row["mean_tvd"] for row in rows])
        uniques = rows[0]["uniques"]
        risks.append(float(r.mean()))
        utilities.append(float(u.mean()))
        tvd.append(float(1.0 - u.mean()))
        risk_se.append(float(r.std(ddof=1) / np.sqrt(replicates)) if replicates > 1 else float("nan"))
        utility_se.append(float(u.std(ddof=1) / np.sqrt(replicates)) if replicates > 1 else float("nan"))
    config = {"columns": [str(c) for c in columns], "delta": delta, "replicates": replicates, "seed": seed,
              "mean_tvd": tvd, "uniques": uniques}
    return RUMap(parameter="epsilon", values=np.asarray(epsilons, dtype=float), risk=risks, utility=utilities,
                 risk_se=risk_se, utility_se=utility_se, risk_label=RISK_LABEL, utility_label=UTILITY_LABEL,
                 method="mst", knowledge="outsider", target="synthetic records", config=config)
