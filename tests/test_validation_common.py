"""Every validated public function refuses every invalid value its constraints make, with an InputError naming it.

The registry :data:`rumap._validation.REGISTRY` fills as the modules are
imported, so every module of the package is imported first. Every public
function of a public module is either validated or marked as taking values its
caller has already checked. For each function
and each constrained parameter, the constraint makes invalid values
(:meth:`rumap._validation.Constraint.invalid_values`); the function is called
with its valid example and that one value replaced, and must raise
:class:`rumap.errors.InputError` whose message names the parameter. Any other
exception, or none, fails.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pkgutil
import re
from typing import Any

import pytest

import rumap
from rumap._validation import ASSUMES_VALID, REGISTRY, Validated
from rumap.errors import InputError

for _module in pkgutil.walk_packages(rumap.__path__, "rumap."):
    if not _module.name.endswith("__main__"):
        importlib.import_module(_module.name)

#: The modules whose public functions form the API (private modules such as ``_validation`` are left out).
PUBLIC_MODULES = [m.name for m in pkgutil.walk_packages(rumap.__path__, "rumap.")
                  if not m.name.endswith("__main__") and not any(p.startswith("_") for p in m.name.split(".")[1:])]

#: The validated public callables there are now; the count only grows as modules adopt the constraints.
MINIMUM_VALIDATED = 120
KNOWN = ("rumap.tables.granularity_types.granularity_types", "rumap.tables.granularity_types.key_granularity_types",
         "rumap.masking.granularity.eliminate_granularity", "rumap.masking.noise.NoiseSpec", "rumap.masking.noise.add_noise", "rumap.masking.noise.as_matrix",
         "rumap.masking.swapping.rank_swap", "rumap.masking.swapping.swap_window",
         "rumap.risk.interval.interval_disclosure", "rumap.risk.interval.interval_risk",
         "rumap.risk.interval.sdid_risk", "rumap.risk.interval.rank_half_width",
         "rumap.maps.analytic.utility_mean", "rumap.maps.analytic.efficiency", "rumap.maps.analytic.risk_mean_target",
         "rumap.maps.analytic.risk_population", "rumap.maps.analytic.risk_sample", "rumap.maps.analytic.risk_record",
         "rumap.maps.analytic.risk_percentile", "rumap.maps.analytic.extreme_constants",
         "rumap.maps.analytic.risk_maximum", "rumap.maps.analytic.risk_minimum", "rumap.maps.analytic.check_state",
         "rumap.maps.analytic.state_risk", "rumap.maps.analytic.analytic_map",
         "rumap.risk.linkage.distance.distance_linkage", "rumap.risk.linkage.distance.variable_distance",
         "rumap.risk.linkage.probabilistic.probabilistic_linkage",
         "rumap.risk.linkage.probabilistic.fellegi_sunter_em", "rumap.risk.linkage.record_linkage",
         "rumap.risk.linkage.linkage_risk_distance", "rumap.risk.linkage.linkage_risk_distance_shared_ties",
         "rumap.risk.linkage.linkage_risk_probabilistic", "rumap.masking.microaggregation.microaggregate",
         "rumap.tables.redesign.merge_categories", "rumap.tables.redesign.redesign_bounds",
         "rumap.tables.rounding.round_table", "rumap.tables.rounding.rounding_risk", "rumap.tables.rounding.rounding_ru_map",
         "rumap.risk.poisson_gamma.poisson_gamma_uniques", "rumap.risk.poisson_gamma.minimal_subpopulation_size",
         "rumap.risk.poisson_gamma.fit_poisson_gamma", "rumap.tables.rules.apply_rule",
         "rumap.maps.optimum.max_tolerable_risk", "rumap.maps.optimum.crossings", "rumap.maps.optimum.envelope",
         "rumap.tables.dominance.lemma1_fraction", "rumap.tables.dominance.lemma1_ratio",
         "rumap.tables.dominance.relative_contributions", "rumap.tables.dominance.dominance_flaw",
         "rumap.tables.dominance.theorem1_scan", "rumap.tables.dominance.coalition_bound", "rumap.tables.dominance.example1",
         "rumap.tables.entropy.uniform_risk", "rumap.tables.entropy.entropy_risk", "rumap.tables.entropy.count_values",
         "rumap.tables.bounds.suppression_bounds", "rumap.tables.insider.insider_view",
         "rumap.tables.insider.insider_bounds", "rumap.tables.linked.linked_bounds",
         "rumap.maps.simulation.simulate", "rumap.maps.attacks.parse_target", "rumap.maps.utility.utility_label",
         "rumap.maps.pareto.map_points", "rumap.maps.pareto.pareto_frontier", "rumap.maps.pareto.best_under_risk",
         "rumap.masking.microaggregation.partition.standardize_columns",
         "rumap.masking.microaggregation.partition.sum_of_squares", "rumap.cli.json_output.curve_dict",
         "rumap.present.numbers.format_number", "rumap.specs.spec_from_dict", "rumap.fingerprint.bytes_digest",
         "rumap.fingerprint.array_digest", "rumap.fingerprint.config_digest", "rumap.fingerprint.cache_key",
         "rumap.io.data.read_table", "rumap.io.data.read_table_bytes", "rumap.io.data.numeric_columns",
         "rumap.io.data.numeric_column", "rumap.io.data.numeric_column_names", "rumap.io.data.summary_table",
         "rumap.tables.table_files.published_table_from_frame", "rumap.tables.table_files.read_published_table",
         "rumap.tables.table_files.contributions_from_frame", "rumap.tables.table_files.read_contributions", "rumap.cli.main",
         "rumap.cli.flags.parse_grid",
         "rumap.present.commands.shown_path",
         "rumap.present.commands.data_path",
         "rumap.present.commands.cli_command",
         "rumap.present.commands.python_call",
         "rumap.present.examples.example_specs",
         "rumap.present.figures.analysis_figure",
         "rumap.present.figures.comparison_figure",
         "rumap.present.figures.presentation_figure",
         "rumap.present.figures.pareto_figure",
         "rumap.present.plotting.ru_map_figure",
         "rumap.present.report.config_dict",
         "rumap.present.report.config_json",
         "rumap.present.report.load_config",
         "rumap.present.report.curves_csv",
         "rumap.present.report.curves_json",
         "rumap.present.report.report_html",
         "rumap.present.report.figure_image", "rumap.present.images.image_digest",
         "rumap.present.report.csv_text",
         "rumap.present.statements.knowledge_phrase",
         "rumap.present.statements.map_choice",
         "rumap.present.statements.one_sentence",
         "rumap.present.statements.summary_lines",
         "rumap.present.statements.describe_optimum",
         "rumap.present.statements.recommendation",
         "rumap.present.statements.recommendation_sentence",
         "rumap.present.statements.map_lines",
         "rumap.present.statements.crossing_lines",
         "rumap.present.glossary.term",
         "rumap.present.sketch.map_svg",
         "rumap.present.glossary.both_names",
         "rumap.present.glossary.glossary_frame",
         "rumap.present.table_figures.constructions_figure",
         "rumap.present.table_figures.theorem_figure",
         "rumap.present.table_figures.bounds_figure",
         "rumap.risk.identity.identification_risk",
         "rumap.risk.identity.max_sample_fraction",
         "rumap.risk.identity.expected_acquaintances",
         "rumap.risk.identity.multiple_investigators_risk",
         "rumap.risk.identity.subpopulation_risk",
         "rumap.risk.identity.worst_case_subpopulation_risk",
         "rumap.risk.identity.nested_keys_total_risk",
         "rumap.risk.identity.key_frequencies",
         "rumap.risk.identity.identity_risk_from_data",
         "rumap.risk.identity.subsampling_map",
         "rumap.risk.identity.recoding_map",
         "rumap.risk.identity.recoding_total_risk",
         # the release, hierarchies, JJ files, n-D tables, the scale engine and the recommendation (issue 41)
         "rumap.release.apply.apply_plan", "rumap.release.step_apply.apply_step", "rumap.release.apply.round_trip",
         "rumap.release.from_map.step_from_key_map", "rumap.release.from_map.step_from_spec",
         "rumap.release.from_map.table_steps", "rumap.release.gathered.check_whole_file_work",
         "rumap.release.plan.read_plan", "rumap.release.report.categorical_measures",
         "rumap.release.report.numeric_measures", "rumap.release.report.predict_step",
         "rumap.release.report.release_report", "rumap.release.stream.check_streamed",
         "rumap.io.formats.file_digest",
         "rumap.tables.hierarchy.flat", "rumap.tables.hierarchy.from_parents", "rumap.tables.hierarchy.from_prefixes",
         "rumap.tables.hierarchy.read_hrc", "rumap.tables.hierarchy.read_parent_child",
         "rumap.tables.jj.instance_from_table", "rumap.tables.jj.read_jj", "rumap.tables.jj.solve_jj",
         "rumap.tables.jj.write_jj", "rumap.tables.ndtable.build_table",
         "rumap.scale.cluster.cluster_individual_risk", "rumap.scale.cluster.cluster_key_frequencies",
         "rumap.scale.cluster.cluster_scale_risk", "rumap.scale.cluster_parts.cluster_frequencies",
         "rumap.scale.cluster_protect.cluster_pram", "rumap.scale.cluster_protect.cluster_recode",
         "rumap.scale.cluster_protect.cluster_suppress", "rumap.scale.frequencies.key_frequencies",
         "rumap.scale.frequencies.row_codes", "rumap.scale.protect.pram_file", "rumap.scale.protect.suppress_file",
         "rumap.scale.recoding.recode_file", "rumap.scale.recoding.recoded_keys", "rumap.scale.risk.frequencies_file",
         "rumap.scale.risk.identity_risk", "rumap.scale.risk.individual_risk", "rumap.scale.passes.apply_chunks",
         "rumap.scale.source.scan", "rumap.scale.suda.suda_file",
         "rumap.maps.recommend.ReplicateRisk", "rumap.maps.recommend.recommend",
         "rumap.maps.recommend.recommend_exact", "rumap.maps.recommend.max_risk_of_error",
         "rumap.maps.recommend.error_of_max_risk",
         "rumap.risk.individual.individual_risk", "rumap.tables.secondary.suppress_secondary")

CASES = [(qualname, parameter) for qualname, entry in sorted(REGISTRY.items()) for parameter in entry.constraints]


def valid_arguments(entry: Validated) -> dict[str, Any]:
    """The entry's example, with the defaults of the parameters it leaves out."""
    assert entry.example is not None, "validate_params(..., example=...) is missing: no valid call to start from"
    defaults = {name: p.default for name, p in inspect.signature(entry.target).parameters.items()
                if p.default is not inspect.Parameter.empty}
    return {**defaults, **entry.example()}


def names(parameter: str) -> re.Pattern:
    """The parameter's name as a word of its own (``p`` is not found in ``p_percent``)."""
    return re.compile(rf"(?<![\w-]){re.escape(parameter)}(?![\w-])")


#: The functions whose example this process has called: each is checked valid once, not once per parameter.
_VALID_EXAMPLES: set[str] = set()


@pytest.mark.parametrize(("qualname", "parameter"), CASES, ids=[f"{q.split('.', 1)[1]}-{p}" for q, p in CASES])
def test_invalid_values_raise_input_error_naming_the_parameter(qualname, parameter):
    entry = REGISTRY[qualname]
    if qualname not in _VALID_EXAMPLES:
        entry.target(**valid_arguments(entry))  # the example is valid
        _VALID_EXAMPLES.add(qualname)
    constraint = entry.constraints[parameter]
    valid = valid_arguments(entry)  # built once (some examples solve a table); each call gets its own copy
    invalid = constraint.invalid_values(parameter, copy.deepcopy(valid))
    assert len(invalid) >= 3, f"{qualname}: the constraint of {parameter} makes too few invalid values"
    for value in invalid:
        arguments = {**copy.deepcopy(valid), parameter: value}
        with pytest.raises(InputError) as caught:
            entry.target(**arguments)
        message = str(caught.value)
        assert names(parameter).search(message), f"{qualname}({parameter}={value!r}): {message!r} does not name it"


def test_registry_holds_every_validated_function_with_an_example():
    assert len(REGISTRY) >= MINIMUM_VALIDATED
    assert set(KNOWN) <= set(REGISTRY)
    for qualname, entry in REGISTRY.items():
        assert entry.example is not None, f"{qualname} has no valid example"
        assert entry.constraints, f"{qualname} declares no constraint"
    assert len(CASES) >= 25


def test_every_public_function_is_validated_or_assumes_valid_input():
    unaccounted = []
    for module_name in sorted(PUBLIC_MODULES):
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            qualname = f"{module_name}.{name}"
            if inspect.isfunction(obj) and obj.__module__ == module_name \
                    and qualname not in REGISTRY and qualname not in ASSUMES_VALID:
                unaccounted.append(qualname)
    assert not unaccounted, f"public functions neither validated nor marked assumes_valid: {unaccounted}"
    assert "rumap.masking.noise.mask_with" in ASSUMES_VALID
