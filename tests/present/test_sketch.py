"""The still SVG picture of a map: its curves in the palette's colours, the bound and the optima where they are."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.present.plotting import PALETTE
from rumap.present.sketch import map_svg
from rumap.specs import AnalyticSpec

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str):
    return ET.fromstring(svg)


def test_curves_take_the_palette_in_order_and_infinite_risk_is_left_out():
    analysis = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population", "maximum"), max_risk=5.0,
                            lambda2_stop=3.0, log_y=True).run()
    root = _parse(map_svg(analysis))
    lines = root.findall(f"{SVG}polyline")
    assert [p.get("data-name") for p in lines] == ["record", "population", "maximum"]
    assert [p.get("stroke") for p in lines] == [hex_ for _, hex_ in PALETTE[:3]]
    record = lines[0].get("points").split()
    assert len(record) == analysis.maps[0].values.size - 1  # lambda^2 = 0: infinite risk, not drawn
    for point in record:
        assert all(np.isfinite(float(v)) for v in point.split(","))


def test_the_bound_and_the_optimum_sit_at_the_same_height():
    analysis = AnalyticSpec(n=200, sigma2=1.0, states=("record",), max_risk=5.0, lambda2_stop=3.0, log_y=True).run()
    root = _parse(map_svg(analysis))
    bound = [el for el in root.iter(f"{SVG}line") if el.get("data-name") == "maximum tolerable risk"]
    (star,) = [el for el in root.iter(f"{SVG}polygon") if el.get("data-name") == "optimum (record)"]
    ys = [float(p.split(",")[1]) for p in star.get("points").split()]
    centre = (max(ys) + min(ys)) / 2
    assert len(bound) == 1 and float(bound[0].get("y1")) == pytest.approx(centre, abs=3)


def test_labels_are_escaped_and_sizes_checked():
    analysis = AnalyticSpec(n=50, sigma2=2.0, states=("population",), max_risk=None).run()
    svg = map_svg(analysis, width=300, height=200)
    _parse(svg)  # well-formed XML
    assert not re.search(r"<(script|a)\b", svg)
    with pytest.raises(InputError, match="width"):
        map_svg(analysis, width=10)
