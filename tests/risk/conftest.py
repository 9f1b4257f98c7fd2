"""Fixtures of the record-linkage tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    """800 records of 4 standard normal variables."""
    return np.random.default_rng(0).normal(size=(800, 4))


@pytest.fixture(scope="session")
def noisy() -> Callable[..., np.ndarray]:
    """``noisy(x, scale, seed=1)``: ``x`` plus normal noise of standard deviation ``scale``."""
    def add(x: np.ndarray, scale: float, seed: int = 1) -> np.ndarray:
        return x + np.random.default_rng(seed).normal(scale=scale, size=x.shape)
    return add
