"""The worked examples of Duncan, Keller-McNulty & Stokes (2001), as specifications.

Figures 2-4 are analytic maps for n = 200, sigma^2 = 1 with a maximum
tolerable risk of 5; Figures 5-7 are empirical maps of truncated additive noise
(Eq 11) on the bundled Table-1 income data, lambda^2 from 0.05 to 1.0 times the
variance, with the risk threshold 4.0E-08 (an average error of $5K).

References
----------
Duncan, Keller-McNulty & Stokes (2001), Figures 2-7 and Section 4.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rumap._validation import StrOptions, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.io.data import BUNDLED_DATA, numeric_column, read_table
from rumap.maps.method_records import grid_values
from rumap.specs import Analysis, AnalyticSpec, DataSource, EmpiricalSpec

if TYPE_CHECKING:
    from rumap.release.report import ReleaseReport

__all__ = ["Example", "EXAMPLES", "VIEWS", "INCOME_DATA", "income_source", "example_specs", "small_analysis",
           "small_release_report"]

#: Name of the bundled income data set (Table 1) and its column.
INCOME_DATA = next(iter(BUNDLED_DATA))
INCOME_COLUMN = "income"

#: The paper's risk threshold for the income data: 1 / 5000^2.
INCOME_MAX_RISK = 4.0e-8


#: The views an example opens, each drawn like the paper's figure: its key and what it shows.
VIEWS: dict[str, str] = {
    "analytic": "the Analytic page with the example's knowledge states, each curve and its optimum",
    "each-curve": "Compare with every curve of the example's maps drawn on its own (not their worst case), "
                  "the risk threshold and where each curve reaches it",
}


@dataclass(frozen=True)
class Example:
    """A worked example: a title, what it shows, and how to build its specifications.

    Attributes
    ----------
    title : str
    figures : str
        The paper's figures it reproduces.
    description : str
        What it shows.
    build : callable
        Returns the named specifications.
    needs_engine : bool
        Whether it runs the simulation engine (it takes longer).
    view : str
        The view it opens, a key of :data:`VIEWS`.
    """

    title: str
    figures: str
    description: str
    build: Callable[[], list[tuple[str, AnalyticSpec | EmpiricalSpec]]]
    needs_engine: bool = False
    view: str = "analytic"

    def __post_init__(self) -> None:
        if self.view not in VIEWS:
            raise InputError(f"unknown view {self.view!r}; choose from {', '.join(VIEWS)}")


@assumes_valid
def income_source() -> tuple[DataSource, np.ndarray]:
    """The bundled income data as a data source and its values, shape (177,)."""
    path = BUNDLED_DATA[INCOME_DATA]
    values = numeric_column(read_table(path), INCOME_COLUMN, source=str(path))
    return DataSource.of("bundled", INCOME_DATA, [INCOME_COLUMN], values), values


def _analytic(name: str, states: tuple[str, ...]) -> list:
    return [(name, AnalyticSpec(n=200, sigma2=1.0, p=0.99, states=states, lambda2_start=0.0, lambda2_stop=3.0,
                         lambda2_num=301, max_risk=5.0, log_y=True))]


@assumes_valid
def small_analysis() -> Analysis:
    """Figure 2's setting on a grid of five noise variances: a small analysis to try a function on.

    The analytic map of n = 200, sigma^2 = 1 for the record and population
    states, lambda^2 in 0, 0.75, ..., 3 and a maximum tolerable risk of 5; it
    runs in milliseconds, so that the Examples of the functions that draw,
    describe or report an analysis have one to hand.

    Returns
    -------
    Analysis
        Two maps (record, population) with their optima under R_max = 5.

    Examples
    --------
    >>> from rumap.present.examples import small_analysis
    >>> analysis = small_analysis()
    >>> [m.knowledge for m in analysis.maps]
    ['record', 'population']
    >>> analysis.maps[0].values.tolist()
    [0.0, 0.75, 1.5, 2.25, 3.0]
    """
    return AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), lambda2_num=5, max_risk=5.0).run()



@assumes_valid
def small_release_report() -> ReleaseReport:
    """The report of a one-step release, four values microaggregated in pairs: a small report to try a function on.

    Returns
    -------
    ReleaseReport
        Two predicted releases per step (it runs in a fraction of a second).

    Examples
    --------
    >>> [step.step.method for step in small_release_report().steps]
    ['microaggregation']
    """
    import pandas as pd

    from rumap.release.apply import apply_plan
    from rumap.release.plan import ReleasePlan, Step
    from rumap.release.report import release_report

    original = pd.DataFrame({"a": [1.0, 2.0, 4.0, 8.0]})
    released = apply_plan(original, ReleasePlan((Step("microaggregation", {"k": 2}, columns=("a",)),)))
    return release_report(original, released, replicates=2)

def _income_noise(targets: list[str], knowledge: list[str], unequal: bool = False) -> dict:
    """The simulation configuration of the paper's Section 4: Eq 11, truncated at 0, lambda^2 as a fraction of S^2."""
    options: dict = {"relative": True, "truncate_below": 0.0}
    if unequal:
        options.update({"unequal_above": 35000.0, "unequal_factor": 2.0})
    return {
        "method": "noise",
        "values": grid_values(0.05, 1.0, 20).tolist(),
        "method_options": options,
        "targets": targets,
        "knowledge": knowledge,
        "utility": "mean",
        "replicates": 200,
        "seed": 2001,
    }


def _empirical(configs: list[tuple[str, dict]]) -> list:
    source, _values = income_source()
    return [(name, EmpiricalSpec(simulation=config, data=source, max_risk=INCOME_MAX_RISK, log_y=True))
            for name, config in configs]


#: The examples by key, in the order of the paper.
EXAMPLES: dict[str, Example] = {
    "figure-2": Example(
        "Record vs population knowledge", "Figure 2",
        "Analytic map, n = 200, σ² = 1: a snooper who can link the target's record (Eq 4) against one who "
        "knows only that the target is from the population (Eq 2). With a maximum tolerable risk of 5 the "
        "agency needs λ² = 0.2 against the first and no noise against the second.",
        lambda: _analytic("Figure 2: record vs population", ("record", "population"))),
    "figure-3": Example(
        "Adding the 99th percentile", "Figure 3",
        "Figure 2 plus a snooper who knows the target is the 99th percentile (Eq 8): the curves cross, so the "
        "most dangerous snooper depends on how much noise is added.",
        lambda: _analytic("Figure 3: adding the 99th percentile", ("record", "population", "percentile"))),
    "figure-4": Example(
        "Adding the maximum", "Figure 4",
        "Figure 3 plus a snooper who knows the target is the sample maximum (Eq 10).",
        lambda: _analytic("Figure 4: adding the maximum", ("record", "population", "percentile", "maximum"))),
    "figure-5": Example(
        "Income data: maximum and minimum", "Figure 5",
        "Empirical map of truncated noise on the Table-1 income data (n = 177, 200 replicates): a snooper who "
        "knows the target is the largest or the smallest income. Risk threshold 4.0E-08 (an average error of $5K).",
        lambda: _empirical([("Figure 5: income maximum and minimum", _income_noise(["max", "min"], ["position"]))]), needs_engine=True, view="each-curve"),
    "figure-6": Example(
        "Income data: percentile vs index knowledge", "Figure 6",
        "The 99th-percentile income: a snooper who knows its position (percentile knowledge) against one who "
        "can link its masked record (index knowledge).",
        lambda: _empirical([("Figure 6: 99th percentile, position vs index", _income_noise(["p99"], ["position", "index"]))]), needs_engine=True, view="each-curve"),
    "figure-7": Example(
        "Equal vs unequal variance masking", "Figure 7",
        "The 99th percentile under equal-variance noise and under noise whose variance is doubled for incomes "
        "above $35K.",
        lambda: _empirical([("Figure 7: equal variance", _income_noise(["p99"], ["position"])),
                            ("Figure 7: unequal variance", _income_noise(["p99"], ["position"], unequal=True))]), needs_engine=True, view="each-curve"),
}


@validate_params({"key": StrOptions(EXAMPLES)}, example=lambda: {"key": "figure-2"})
def example_specs(key: str) -> list[tuple[str, AnalyticSpec | EmpiricalSpec]]:
    """The named specifications of one example: a list of (name, AnalyticSpec or EmpiricalSpec).

    Parameters
    ----------
    key : str
        A key of :data:`EXAMPLES`.

    Returns
    -------
    list of (str, AnalyticSpec or EmpiricalSpec)
    """
    if key not in EXAMPLES:
        raise InputError(f"unknown example {key!r}; choose from {', '.join(EXAMPLES)}")
    return EXAMPLES[key].build()
