"""The Release page predicts a step applied from a map with that map's replicates: its mean is the map's own."""

from __future__ import annotations

import pandas as pd

from dashboard.release_maps import map_replicates
from rumap.present.examples import income_source
from rumap.release.apply import apply_plan
from rumap.release.from_map import step_from_spec, with_origin, with_precision
from rumap.release.plan import ReleasePlan, Step
from rumap.release.report import predict_step
from rumap.specs import EmpiricalSpec


def test_a_step_from_a_map_is_predicted_with_the_maps_replicates_and_gives_its_mean():
    source, x = income_source()
    spec = EmpiricalSpec(simulation={"method": "noise", "values": [0.1, 0.2, 0.5], "targets": ["p99", "max"],
                                     "knowledge": ["position", "index"], "replicates": 30, "seed": 5,
                                     "method_options": {"relative": True, "truncate_below": 0.0}}, data=source)
    analysis = spec.run(x)
    step = step_from_spec(spec, 0.2)
    assert map_replicates([step], [analysis], source.name) == 30
    applied = with_origin(with_precision([step], 0), {"choice": "recommended", "map": "m"})  # as Apply stamps it
    assert map_replicates(applied, [analysis], source.name) == 30
    before = pd.DataFrame({"income": x})
    checks, _ = predict_step(step, before, apply_plan(before, ReleasePlan((step,))).data, replicates=30)
    shown = analysis.maps[[(m.target, m.knowledge) for m in analysis.maps].index(("max", "index"))].risk[1]
    assert next(c.mean for c in checks if c.measure == "snooper max/index") == shown  # the map's own mean
    other = Step("noise", {**step.parameters}, columns=step.columns, seed=6)  # not made from this map
    assert map_replicates([step, other], [analysis], source.name) is None
    assert map_replicates([step], [analysis], "another file") is None
