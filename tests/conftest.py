"""Shared test fixtures: paths to the project's and the shared reference data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the project's root (the CASC reference files)."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"reference data not found at {SHARED_DATA}: ../shared must be beside the project")
    return SHARED_DATA


# Property tests draw their examples from a fixed seed, so every run (and CI) checks the same cases;
# `HYPOTHESIS_PROFILE=explore pytest` draws fresh ones.
settings.register_profile("default", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
