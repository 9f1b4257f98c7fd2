"""A small census-like file, as Parquet and as CSV, shared by the out-of-core engine's tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def census_like(n: int, seed: int) -> pd.DataFrame:
    """Skewed keys of mixed types with missing values (None, NaN; "NA", which pandas reads as missing from a CSV file), and weights."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 12, n).astype(float)
    age[rng.random(n) < 0.08] = np.nan
    region = rng.choice(["north", "south", "east", "west", None, "NA"], n, p=[0.5, 0.3, 0.1, 0.05, 0.03, 0.02])
    sex = rng.choice(["f", "m"], n)
    status = rng.choice([1, 2, 3], n, p=[0.7, 0.2, 0.1]).astype(object)
    status[rng.random(n) < 0.05] = None
    return pd.DataFrame({"age": age, "region": region, "sex": sex, "status": status,
                         "w": np.round(rng.uniform(1, 30, n), 2), "hh": np.sort(rng.integers(0, n // 2, n)),
                         "income": rng.choice(["low", "mid", "high", None], n, p=[0.4, 0.4, 0.15, 0.05])})


@pytest.fixture(scope="module", params=["parquet", "csv"])
def files(request, tmp_path_factory):
    """A small census-like file written as Parquet or CSV, and the frame pandas reads back from it."""
    frame = census_like(3000, 7)
    path = tmp_path_factory.mktemp("scale") / f"persons.{request.param}"
    if request.param == "parquet":
        frame.astype({"status": "Int64"}).to_parquet(path)
        return path, pd.read_parquet(path)
    frame.to_csv(path, index=False)
    return path, pd.read_csv(path)
