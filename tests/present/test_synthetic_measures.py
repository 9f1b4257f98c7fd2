"""Every measure of a release against its original has its words (rumap.present.synthetic_measures)."""

from __future__ import annotations

import dataclasses

from rumap.present.synthetic_measures import MEASURE_WORDS, measures_markdown
from rumap.risk.synthetic import SyntheticMeasures


def test_every_measure_is_explained():
    assert list(MEASURE_WORDS) == [f.name for f in dataclasses.fields(SyntheticMeasures)]
    text = measures_markdown()
    assert all(f"`{name}`" in text for name in MEASURE_WORDS)
