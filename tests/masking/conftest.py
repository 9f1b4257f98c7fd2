"""Fixtures of the masking tests."""

from __future__ import annotations

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def census(shared_data) -> pd.DataFrame:
    """The CASC census file (../shared/data/census.csv)."""
    return pd.read_csv(shared_data / "census.csv")
