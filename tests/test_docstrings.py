"""Docstrings: every public function documents its parameters, and the Examples sections run.

The Examples sections are doctests: each one is run here, so an example that no
longer matches what the code returns fails this test.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import rumap

MODULES = sorted(m.name for m in pkgutil.walk_packages(rumap.__path__, "rumap.") if m.name != "rumap.__main__")

#: The main entry points: each shows its use in a doctested Examples section.
ENTRY_POINTS = (
    "rumap.maps.analytic.analytic_map",
    "rumap.maps.analytic.state_risk",
    "rumap.maps.optimum.max_tolerable_risk",
    "rumap.maps.simulation.simulate",
    "rumap.masking.noise.add_noise",
    "rumap.masking.microaggregation.microaggregate",
    "rumap.masking.swapping.rank_swap",
    "rumap.specs.AnalyticSpec",
    "rumap.specs.EmpiricalSpec",
    "rumap.risk.linkage.record_linkage",
    "rumap.risk.identity.identification_risk",
    "rumap.tables.bounds.suppression_bounds",
    "rumap.maps.analytic.check_state",
    "rumap.present.statements.describe_optimum",
    "rumap.present.numbers.format_number",
    "rumap.cli.json_output.curve_dict",
    "rumap.fingerprint.config_digest",
    "rumap.errors.optional_module",
    "rumap.cli.flags.parse_grid",
)


def _object(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _public_callables():
    """(dotted name, object) of each public function and class defined in a public rumap module."""
    seen = set()
    for module_name in MODULES:
        if any(part.startswith("_") for part in module_name.split(".")):
            continue
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name, None)
            target = inspect.unwrap(obj) if callable(obj) else obj
            if not (inspect.isfunction(target) or inspect.isclass(target)):
                continue
            if getattr(target, "__module__", None) != module_name or id(target) in seen:
                continue
            seen.add(id(target))
            yield f"{module_name}.{name}", obj


def _documented_parameters(obj) -> list[str]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(obj if not inspect.isclass(obj) else obj)
    except (TypeError, ValueError):
        signature = inspect.signature(target)
    return [p for p in signature.parameters if p not in ("self", "cls") and not p.startswith("_")]


@pytest.mark.parametrize("module_name", MODULES)
def test_examples_run(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, module_name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} failing example(s) in {module_name}"


@pytest.mark.parametrize("dotted", ENTRY_POINTS)
def test_entry_points_have_examples(dotted):
    doc = inspect.getdoc(_object(dotted)) or ""
    assert "Examples\n--------" in doc and ">>> " in doc, f"{dotted} has no doctested Examples section"


def test_public_functions_document_their_parameters():
    missing = []
    for dotted, obj in _public_callables():
        if not _documented_parameters(obj):
            continue
        doc = inspect.getdoc(obj) or ""
        sections = ("Parameters\n----------", "Attributes\n----------") if inspect.isclass(obj) else (
            "Parameters\n----------",)
        if not any(section in doc for section in sections):
            missing.append(dotted)
    assert not missing, "no Parameters section: " + ", ".join(missing)
