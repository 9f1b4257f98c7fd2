"""``python -m rumap --help`` lists the commands without importing them (rumap/cli/__init__.py)."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

from cli_helpers import ROOT

from rumap.cli import SUBCOMMANDS, SUMMARIES, build_parser

HEAVY = ("pandas", "scipy", "numba", "plotly")


def test_help_imports_neither_pandas_nor_scipy():
    # in a fresh interpreter, as ``python -m rumap --help`` starts
    code = ("import sys\nfrom rumap.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
            f"print('\\x1e' + __import__('json').dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    help_text, loaded = proc.stdout.split("\x1e")
    assert json.loads(loaded) == []
    for name in SUBCOMMANDS:
        assert name in help_text


def test_the_list_of_commands_is_the_one_every_parser_makes():
    assert build_parser().format_help() == build_parser(every=True).format_help()


def test_every_subcommand_has_its_modules_help_line():
    assert set(SUMMARIES) == set(SUBCOMMANDS)
    for name, module in SUBCOMMANDS.items():
        assert SUMMARIES[name] == importlib.import_module(module).HELP, name


def _heavy_modules_after(argv: list[str]) -> list[str]:
    """The heavy modules a fresh interpreter holds after ``main(argv)`` ran (``--help`` exits 0)."""
    code = ("import sys\nfrom rumap.cli import main\n"
            f"try:\n    code = main({argv!r})\nexcept SystemExit as exc:\n    code = exc.code\n"
            "assert code == 0, code\n"
            f"print('\\x1e' + __import__('json').dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.split("\x1e")[-1])


def test_risk_help_imports_no_heavy_module():
    # the parser of ``risk`` is built from names alone; each measure's module is imported when it runs
    for argv in (["risk", "--help"], ["risk", "identity", "--help"], ["risk", "linkage", "--help"],
                 ["risk", "suda", "--help"]):
        assert _heavy_modules_after(argv) == [], argv


def test_table_help_imports_no_heavy_module():
    for argv in (["table", "--help"], ["table", "suppress", "--help"], ["table", "granularity", "--help"],
                 ["table", "dp", "--help"]):
        assert _heavy_modules_after(argv) == [], argv


def test_the_table_parsers_names_are_the_registries():
    from rumap.cli.flags import RULE_NAMES
    from rumap.cli.table_dp import MECHANISM_NAMES
    from rumap.cli.table_protection import COST_NAMES
    from rumap.privacy.accounting import MECHANISMS
    from rumap.tables.rules import RULES
    from rumap.tables.secondary import COSTS

    assert RULE_NAMES == tuple(RULES)
    assert COST_NAMES == tuple(COSTS)
    assert MECHANISM_NAMES == tuple(MECHANISMS)
    from rumap.cli.simulate_dp import DP_TABLE_UTILITY_NAMES
    from rumap.maps.dp_tables import DP_TABLE_UTILITIES

    assert DP_TABLE_UTILITY_NAMES == tuple(DP_TABLE_UTILITIES)


def test_identity_risk_from_figures_imports_no_heavy_module():
    # a light command: the figures form needs neither the data readers (pandas) nor the Poisson-gamma fit (scipy)
    assert _heavy_modules_after(["risk", "identity", "--f", "0.1", "--a", "100", "--fu", "0.01", "--N", "1000",
                                 "--max-risk", "0.5", "--json"]) == []


def test_the_risk_parsers_names_are_the_registries():
    from rumap.cli import risk
    from rumap.risk.interval import DEFAULT_P, INTERVAL_METHODS
    from rumap.risk.linkage import AGGREGATIONS, LINKAGE_METHODS
    from rumap.risk.poisson_gamma import BETA_ESTIMATORS
    from rumap.risk.suda import DEFAULT_DIS_FRACTION, DEFAULT_MAX_SIZE

    assert risk.LINKAGE_METHOD_NAMES == tuple(LINKAGE_METHODS)
    assert risk.AGGREGATION_NAMES == tuple(AGGREGATIONS)
    assert risk.INTERVAL_METHOD_NAMES == tuple(INTERVAL_METHODS)
    assert risk.INTERVAL_DEFAULT_P == DEFAULT_P
    assert risk.BETA_ESTIMATOR_NAMES == tuple(BETA_ESTIMATORS)
    assert risk.SUDA_DEFAULT_DIS_FRACTION == DEFAULT_DIS_FRACTION
    assert risk.SUDA_DEFAULT_MAX_SIZE == DEFAULT_MAX_SIZE


def test_microaggregate_help_imports_no_heavy_module():
    assert _heavy_modules_after(["microaggregate", "--help"]) == []


def test_the_microaggregate_parsers_names_are_the_registries():
    from rumap.cli import microaggregate
    from rumap.cli.flags import WRITER_SUFFIXES
    from rumap.io.data import WRITERS
    from rumap.masking.microaggregation import ALGORITHMS, CRITERIA

    assert microaggregate.ALGORITHM_NAMES == tuple(ALGORITHMS)
    assert microaggregate.CRITERION_NAMES == tuple(CRITERIA)
    assert WRITER_SUFFIXES == tuple(WRITERS)


def test_query_help_imports_no_heavy_module():
    # the query parsers read no registry: every module is imported when a command runs
    for argv in (["query", "--help"], ["query", "answer", "--help"], ["query", "audit", "--help"]):
        assert _heavy_modules_after(argv) == [], argv


def test_protect_help_imports_no_heavy_module():
    for argv in (["protect", "--help"], ["protect", "recode", "--help"], ["protect", "pram", "--help"]):
        assert _heavy_modules_after(argv) == [], argv


def test_analytic_help_imports_no_heavy_module():
    assert _heavy_modules_after(["analytic", "--help"]) == []


def test_the_analytic_parsers_names_are_the_registries():
    from rumap.cli import analytic
    from rumap.maps.analytic import STATES
    from rumap.maps.families import FAMILIES

    assert analytic.STATE_NAMES == tuple(STATES)
    assert analytic.FAMILY_NAMES == tuple(FAMILIES)


def test_simulate_and_release_help_import_no_heavy_module():
    for argv in (["simulate", "--help"], ["release", "--help"]):
        assert _heavy_modules_after(argv) == [], argv


def test_the_simulate_parsers_names_are_the_registries():
    from rumap.cli import simulate
    from rumap.maps.attacks import KNOWLEDGE
    from rumap.maps.categorical_measures import CATEGORICAL_RISKS, CATEGORICAL_UTILITIES
    from rumap.maps.recommend import DECISIONS
    from rumap.risk.measures import DATASET_RISK_MEASURES

    assert simulate.KNOWLEDGE_NAMES == tuple(KNOWLEDGE)
    assert simulate.DATASET_RISK_NAMES == tuple(DATASET_RISK_MEASURES)
    assert simulate.CATEGORICAL_UTILITY_NAMES == tuple(CATEGORICAL_UTILITIES)
    assert simulate.CATEGORICAL_RISK_NAMES == tuple(CATEGORICAL_RISKS)
    assert simulate.DECISION_NAMES == tuple(DECISIONS)


def test_the_release_parsers_names_are_the_registries():
    from rumap.cli import release
    from rumap.cli.flags import TARGET_FORMS
    from rumap.maps import attacks
    from rumap.release.apply import STEP_METHODS

    assert release.STEP_METHOD_NAMES == tuple(m for m, record in STEP_METHODS.items() if record.stage == "microdata")
    parser_flags = {flag for action in release.add_parser(argparse.ArgumentParser().add_subparsers())._actions
                    for flag in action.option_strings}
    assert {flag.flag for record in STEP_METHODS.values() for flag in (*record.flags, *record.text_flags)} <= parser_flags
    assert TARGET_FORMS == attacks.TARGET_FORMS


def test_release_default_replicates_agree_with_the_spec():
    from rumap.cli.release import DEFAULT_REPLICATES
    from rumap.release.spec import DEFAULT_REPLICATES as SPEC_DEFAULT

    assert DEFAULT_REPLICATES == SPEC_DEFAULT


def test_the_synthesize_parsers_read_the_generators_records():
    from rumap.cli import simulate, synthesize
    from rumap.cli.simulate import SYNTHETIC_RISK_NAMES, SYNTHETIC_UTILITY_NAMES
    from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES
    from rumap.synthesis import GENERATORS

    def actions(module):
        parser = module.add_parser(argparse.ArgumentParser().add_subparsers())
        return {flag: action for action in parser._actions for flag in action.option_strings}

    made, drawn = actions(synthesize), actions(simulate)
    assert tuple(made["--method"].choices) == tuple(GENERATORS)
    mapped = [name for name, record in GENERATORS.items() if not record.no_map]
    assert tuple(synthesize.mapped_generators()) == tuple(mapped) and set(mapped) <= set(drawn["--method"].choices)
    for record in GENERATORS.values():
        assert made[f"--{record.parameter}"].type is (int if record.integer else float), record.parameter
    assert (SYNTHETIC_RISK_NAMES, SYNTHETIC_UTILITY_NAMES) == (tuple(SYNTHETIC_RISKS), tuple(SYNTHETIC_UTILITIES))
