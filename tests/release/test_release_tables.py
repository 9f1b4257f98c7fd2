"""Tables as plan steps: built from microdata, primaries by a rule, then secondary suppression or controlled rounding."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.present.release_report import release_report_html, release_report_json
from rumap.release.apply import apply_plan
from rumap.release.plan import ReleasePlan, Step, read_plan
from rumap.release.report import release_report
from rumap.release.table_state import TableState
from rumap.tables.controlled_rounding import controlled_round
from rumap.tables.microdata import example_microdata, table_from_microdata
from rumap.tables.secondary import suppress_secondary

TABLE = Step("table", {"response": "turnover"}, keys=["region", "size"])
PRIMARY = Step("primary", {"rule": "p-percent", "p": 10})


def test_a_table_plan_round_trips_and_its_steps_have_no_names():
    plan = ReleasePlan((TABLE, PRIMARY, Step("secondary_suppression", {"protection": 15, "cost": "unity"})))
    assert read_plan(plan.to_json()).to_json() == plan.to_json()
    assert set(plan.steps[1].to_dict()) == {"method", "parameters", "seed"}
    with pytest.raises(InputError, match="no columns or keys"):
        Step("primary", {"rule": "threshold"}, keys=["a"])
    with pytest.raises(InputError, match="parameter p is not one of rule threshold's"):
        Step("primary", {"rule": "threshold", "p": 10})
    with pytest.raises(InputError, match="one or two variables"):
        Step("table", {}, keys=["a", "b", "c"])
    with pytest.raises(InputError, match="protection"):
        Step("secondary_suppression", {"protection": 120})


def test_secondary_suppression_releases_the_table_with_suppressed_cells_missing():
    data = example_microdata()
    plan = ReleasePlan((TABLE, PRIMARY, Step("secondary_suppression", {"protection": 10})))
    result = apply_plan(data, plan, between="x.csv")
    table = table_from_microdata(data, "region", "size", response="turnover")
    primary = table.primary("p-percent", p=10)
    expected = suppress_secondary(table.published(), primary, protection=10.0, frequencies=table.frequencies())
    released = result.data
    assert list(released.columns) == ["region", *table.published().column_labels, "Total"]
    assert released["region"].tolist() == [*table.published().row_labels, "Total"]
    values = released.drop(columns="region").to_numpy(dtype=float).reshape(-1)
    np.testing.assert_array_equal(np.isnan(values), np.array(expected.status) != "published")
    shown = np.array(expected.status) == "published"
    np.testing.assert_array_equal(values[shown], expected.values[shown])
    assert isinstance(result.table, TableState) and result.microdata is data
    report = release_report(data, result)
    assert report.table["suppressed"] == expected.suppressed_count and report.table["cost"] == expected.cost
    audit = expected.audit_frame()
    assert [(a["min"], a["max"]) for a in report.table["audit"]] == list(zip(audit["min"], audit["max"], strict=True))
    text = release_report_json(report) + release_report_html(report)
    assert "required_min" not in text and "Audit interval of each primary" in text
    assert report.numeric == {} and report.categorical == {} and set(report.risk()) == {"table"}


def test_controlled_rounding_releases_the_rounded_table():
    data = example_microdata()
    result = apply_plan(data, ReleasePlan((TABLE, Step("controlled_rounding", {"base": 7}))))
    expected = controlled_round(table_from_microdata(data, "region", "size", response="turnover").published(), 7.0)
    np.testing.assert_array_equal(result.data.drop(columns="region").to_numpy(dtype=float).reshape(-1),
                                  expected.rounded)
    assert release_report(data, result).table["total_absolute_deviation"] == expected.total_absolute_deviation


def test_microdata_steps_before_the_table_are_measured_on_the_microdata():
    data = example_microdata()
    plan = ReleasePlan((Step("pram", {"theta": 0.5}, keys=["sector"], seed=1),
                        Step("table", {}, keys=["region", "sector"]), Step("primary", {"rule": "threshold",
                                                                                       "threshold": 3})))
    result = apply_plan(data, plan)
    report = release_report(data, result, replicates=5)
    assert report.categorical["keys"] == ["sector"] and report.table["kind"] == "frequency"
    counts = pd.crosstab(result.microdata["region"], result.microdata["sector"])
    released = result.data.set_index("region")
    for row in counts.index:
        for column in counts.columns:
            value = released.loc[row, column]
            assert np.isnan(value) if counts.loc[row, column] < 3 else value == counts.loc[row, column]
    assert json.loads(release_report_json(report))["table"]["primary"]


@pytest.mark.parametrize(("steps", "fragment"), [
    ((PRIMARY,), "works on a table: a table step first"),
    ((TABLE, Step("pram", {"theta": 0.5}, keys=["sector"])), "works on microdata"),
    ((TABLE, TABLE), "works on microdata"),
    ((TABLE, Step("secondary_suppression", {})), "a primary step first"),
    ((TABLE, Step("controlled_rounding", {"base": 5}), Step("controlled_rounding", {"base": 5})),
     "protected already"),
    ((Step("table", {"response": "sector"}, keys=["region"]),), "sector"),
])
def test_steps_in_the_wrong_order_are_refused(steps, fragment):
    with pytest.raises(InputError, match=fragment):
        apply_plan(example_microdata(), ReleasePlan(steps))


def test_a_table_step_reads_the_bounds_of_protection_and_time_limit_from_their_entries():
    # P = 0 protects nothing, as suppress_secondary says; a solver gets at most a day
    with pytest.raises(InputError, match=r"^parameter protection must be a number in \(0, 100\], got 0.0$"):
        Step("secondary_suppression", {"protection": 0})
    assert Step("secondary_suppression", {"protection": 100, "time_limit": 86400}).parameters["time_limit"] == 86400
    for method, extra in (("secondary_suppression", {}), ("controlled_rounding", {"base": 5})):
        with pytest.raises(InputError, match=r"^parameter time_limit must be a number in \(0, 86400\], got 86401.0$"):
            Step(method, {**extra, "time_limit": 86401})


def test_the_primary_steps_rule_parameters_are_the_rules():
    from rumap.release.tables import RULE_PARAMETERS
    from rumap.tables.rules import RULES

    assert RULE_PARAMETERS == tuple(sorted({name for rule in RULES.values() for name in rule.parameters}))
