"""The work budget refuses oversized runs before any work, naming the limit; the CLI can raise it."""

from __future__ import annotations

import argparse
import time

import numpy as np
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.budget import DEFAULT_BUDGET, WorkBudget
from rumap.cli.flags import budget_from_args
from rumap.errors import InputError
from rumap.maps.simulation import SimulationConfig, simulate
from rumap.masking.microaggregation import microaggregate
from rumap.present.report import config_json, load_config
from rumap.risk.linkage import distance_linkage, probabilistic_linkage
from rumap.specs import AnalyticSpec

X = np.random.default_rng(3).normal(50.0, 10.0, size=(400, 2))


def test_the_checks_name_the_limit_and_the_flag():
    with pytest.raises(InputError, match=r"over the work limit of 2e\+09: ask for less \(--work-limit raises"):
        DEFAULT_BUDGET.check_work(3e9, "3 x 1e9")
    with pytest.raises(InputError, match="the lambda2 grid has 10002 values, over the limit of 10001"):
        DEFAULT_BUDGET.check_grid(10_002, "lambda2")
    with pytest.raises(InputError, match="over the limit of 5e\\+07"):
        DEFAULT_BUDGET.check_cells(6e7, "many")
    DEFAULT_BUDGET.check_work(2e9, "exactly the limit")


def test_raising_scales_every_limit_and_a_bad_limit_is_refused():
    raised = DEFAULT_BUDGET.raised(2e10)
    assert (raised.work, raised.grid, raised.cells) == (2e10, 100_010, 5e8)
    assert DEFAULT_BUDGET.raised(10.0).grid == DEFAULT_BUDGET.grid  # lowering the work limit keeps the others
    for bad in (0.0, -1.0, float("nan"), float("inf"), 1e19):
        with pytest.raises(InputError, match="work_limit must be"):
            DEFAULT_BUDGET.raised(bad)
    with pytest.raises(InputError, match="^--work-limit must be"):
        budget_from_args(argparse.Namespace(work_limit=-5.0))


def test_a_simulation_over_budget_is_refused_before_any_work():
    config = SimulationConfig(values=(0.1, 0.5, 1.0), targets=("max",), knowledge=("index",), replicates=10_000_000)
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"400 records x 2 variables x 10000000 replicates x 3 values"):
        simulate(X, config)
    assert time.perf_counter() - start < 1.0
    many_values = SimulationConfig(values=tuple(np.linspace(0.01, 1, 20_000)), targets=("max",),
                                   knowledge=("index",), replicates=2)
    with pytest.raises(InputError, match="grid has 20000 values"):
        simulate(X, many_values)
    wide = SimulationConfig(values=tuple(np.linspace(0.01, 1, 1000)), targets=("max", "min", "p90"),
                            knowledge=("index", "position"), replicates=20_000)
    with pytest.raises(InputError, match="the results would hold"):
        simulate(X[:, :1], wide, budget=WorkBudget(work=1e18))


def test_microaggregation_inside_a_simulation_counts_its_cost():
    config = SimulationConfig(method="microaggregation", values=(2, 3), targets=("max",), knowledge=("index",),
                              method_options={"algorithm": "mdav"})
    with pytest.raises(InputError, match="microaggregation of each k"):
        simulate(X, config, budget=WorkBudget(work=1e5))
    assert len(simulate(X, config).maps) == 1


def test_analytic_grids_and_loaded_configurations_are_bounded():
    spec = AnalyticSpec(n=200, sigma2=1.0, states=("record",), lambda2_num=1_000_000)
    with pytest.raises(InputError, match="lambda2 grid has 1000000 values"):
        spec.run()
    (name, loaded), = load_config(config_json([AnalyticSpec(n=200, sigma2=1.0, states=("record",),
                                                            lambda2_num=11).run()]).replace('"num": 11', '"num": 500000'))
    with pytest.raises(InputError, match="lambda2 grid has 500000 values"):
        loaded.run()


def test_microaggregation_and_linkage_check_their_cost():
    with pytest.raises(InputError, match="mdav of 400 records x 2 variables, k = 3"):
        microaggregate(X, 3, "mdav", budget=WorkBudget(work=1e4))
    assert microaggregate(X, 3, "individual", budget=WorkBudget(work=1e4)).k == 3  # n p log n is within
    masked = X + 0.1
    with pytest.raises(InputError, match="brute-force search of 400 x 400 records on 2 keys"):
        distance_linkage(X, masked, engine="brute", budget=WorkBudget(work=1e4))
    assert distance_linkage(X, masked, budget=WorkBudget(work=1e4)).n == 400  # the KD-tree is not quadratic
    with pytest.raises(InputError, match=r"pairs x \(2 keys \+ their assignment\)"):
        probabilistic_linkage(X, masked, block_size=400, budget=WorkBudget(work=1e4))


def test_the_command_line_refuses_and_can_raise_the_limit():
    proc = run_cli("simulate", "--data", "data/income.csv", "--column", "income", "--lambda2-frac",
                   "0:1:5", "--target", "max", "--replicates", "10000000")
    assert_bad_input(proc, "over the work limit of 2e+09", "--work-limit")
    grid = ["analytic", "--n", "200", "--sigma2", "1", "--lambda2", "0:1:20000", "--state", "record", "--json"]
    assert_bad_input(run_cli(*grid), "lambda2 grid has 20000 values")
    _proc, out = run_cli(*grid, "--work-limit", "1e10", check_json=True)
    assert len(out["curves"][0]["lambda2"]) == 20000
    assert_bad_input(run_cli(*grid, "--work-limit", "-3"), "--work-limit must be")
