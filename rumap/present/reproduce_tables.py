"""The Python and the command of the Tables page's analyses and of record linkage and interval disclosure.

The writers :data:`rumap.present.reproduce.REPRODUCERS` holds for the
specifications of :mod:`rumap.specs.tables` and :mod:`rumap.specs.risk`: each
spec gives a Python script, and a ``python -m rumap`` command where the command
line computes the same (a table or contributions file, not an example built into
rumap).
"""

from __future__ import annotations

from rumap.errors import InputError
from rumap.present.code_text import command_line, python_script
from rumap.specs.dp_tables import DPTableMapSpec, DPTableSpec
from rumap.specs.risk import EXAMPLE_NOISE_SEED, MaskedRiskSpec
from rumap.specs.scale import ScaleRiskSpec
from rumap.specs.tables import (
    ROUNDING_STATISTICS,
    DominanceFlawSpec,
    HierarchicalTableSpec,
    LinkedTablesSpec,
    RedesignSpec,
    RoundingMapSpec,
    RuleSpec,
    SuppressedCellsSpec,
)

__all__ = ["BUILT_IN", "NO_ROUNDING_MAP", "NOTHING_CHOSEN"]

#: Why an example built into rumap has no command line.
BUILT_IN = "the command line reads a file; this example is built into rumap"
#: Why the rounding map has no command line.
NO_ROUNDING_MAP = "the command line has no rounding map"
#: Why record linkage and interval disclosure with neither keys nor variables have no command line.
NOTHING_CHOSEN = "neither key variables nor numeric variables are chosen"


def _table(data: str | None, example: str) -> tuple[dict[str, list[str]], list[str]]:
    """The imports and the line that give ``table``: the example, or the file's published table."""
    if data is None:
        return {"rumap.tables.published": [example]}, [f"table = {example}()"]
    return {"rumap.tables.table_files": ["read_published_table"]}, [f"table = read_published_table({data!r})"]


def _keywords(parameters: dict) -> str:
    return "".join(f", {name}={value!r}" for name, value in parameters.items())


def rules_python(spec: RuleSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.RuleSpec`."""
    if spec.data is None:
        imports = {"rumap.tables.rules": ["apply_rule", "example_contributions"]}
        first = "contributions = example_contributions()"
    else:
        imports = {"rumap.tables.rules": ["apply_rule"], "rumap.tables.table_files": ["read_contributions"]}
        first = f"contributions = read_contributions({spec.data!r}, {spec.cell_column!r}, {spec.value_column!r})"
    return python_script(imports, [first, f"result = apply_rule(contributions, rule={spec.rule!r}"
                                          f"{_keywords(dict(spec.parameters))})", "print(result.to_frame())"])


def rules_command(spec: RuleSpec) -> str | None:
    """The ``table rules`` command of a :class:`~rumap.specs.tables.RuleSpec` on a file (None: the example)."""
    if spec.data is None:
        return None
    flags = [part for name, value in spec.parameters.items() for part in (f"--{name}", value)]
    return command_line("table", "rules", "--contributions", spec.data, "--rule", spec.rule, *flags,
                        "--cell-column", spec.cell_column, "--value-column", spec.value_column, "--json")


def flaw_python(spec: DominanceFlawSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.DominanceFlawSpec`."""
    return python_script({"rumap.tables.dominance": ["dominance_flaw", "example1", "theorem1_scan"]},
                         [f"example = example1({spec.example_k!r})", "print(example.to_frame())",
                          f"flaw = dominance_flaw({spec.n!r}, {spec.k!r}, {spec.cells!r})",
                          "print(flaw.r, flaw.nonsensitive_tail, flaw.sensitive_tail, flaw.theorem_holds)",
                          f"scan = theorem1_scan({spec.n!r}, {spec.k!r}, "
                          f"list(range({spec.scan_cells()[0]}, {spec.scan_cells()[-1] + 1})))"])


def flaw_command(spec: DominanceFlawSpec) -> str:
    """The ``table dominance-flaw`` command: the constructions (Example 1 and the scan are in the Python)."""
    return command_line("table", "dominance-flaw", "--n", spec.n, "--k", spec.k, "--cells", spec.cells, "--json")


def suppressed_python(spec: SuppressedCellsSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.SuppressedCellsSpec`."""
    imports, lines = _table(spec.data, "paper_table1")
    imports["rumap.tables.bounds"] = ["suppression_bounds"]
    lines += ["bounds = suppression_bounds(table)", "print(bounds.to_frame())"]
    if spec.insider is not None:
        row, column, own = spec.insider
        imports["rumap.tables.insider"] = ["insider_bounds"]
        lines += [f"insider = insider_bounds(table, {row!r}, {column!r}, {own!r})", "print(insider.to_frame())"]
    return python_script(imports, lines)


def suppressed_command(spec: SuppressedCellsSpec) -> str | None:
    """The ``table bounds`` command of a :class:`~rumap.specs.tables.SuppressedCellsSpec` on a file."""
    if spec.data is None:
        return None
    flags: list[object] = []
    if spec.insider is not None:
        row, column, own = spec.insider
        flags = ["--insider-row", row, "--insider-column", column, "--contribution", own]
    return command_line("table", "bounds", "--table", spec.data, *flags, "--json")


def redesign_python(spec: RedesignSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.RedesignSpec`."""
    return python_script({"rumap.tables.published": ["paper_table1_completed"],
                          "rumap.tables.redesign": ["merge_categories", "redesign_bounds"]},
                         ["table = paper_table1_completed()", f"parts = {list(spec.parts)!r}",
                          f"merged = merge_categories(table, parts, merged_label={spec.label!r})",
                          f"bounds = redesign_bounds(merged, {spec.label!r}, parts)", "print(bounds.to_frame())"])


def linked_python(spec: LinkedTablesSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.LinkedTablesSpec`."""
    return python_script({"rumap.specs.tables": ["example_cube"], "rumap.tables.linked": ["linked_bounds"]},
                         [f"cube = example_cube({spec.seed!r})",
                          f"bounds = linked_bounds(cube, {list(spec.released)!r})", "print(bounds.to_frame())"])


def rounding_python(spec: RoundingMapSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.RoundingMapSpec` (``maps``: one map per statistic)."""
    imports, lines = _table(spec.data, "paper_table1_completed")
    imports["rumap.tables.rounding"] = ["rounding_ru_map"]
    return python_script(imports, [*lines, f"bases = {list(spec.bases)!r}",
                                   f"maps = [rounding_ru_map(table, bases, statistic=s) for s in "
                                   f"{ROUNDING_STATISTICS!r}]", "for m in maps:", "    print(m.to_frame())"])


def masked_risk_python(spec: MaskedRiskSpec) -> str:
    """The Python of a :class:`~rumap.specs.risk.MaskedRiskSpec` (the example's masked file written too)."""
    imports: dict[str, list[str]] = {"rumap.io.data": ["read_table"]}
    lines = [f"original = read_table({spec.original!r})"]
    if spec.noise is None:
        lines.append(f"masked = read_table({spec.masked!r})")
    else:
        imports["rumap.specs.risk"] = ["example_masked"]
        lines += [f"masked = example_masked(original, {spec.noise!r}, seed={EXAMPLE_NOISE_SEED})",
                  f"masked.to_csv({spec.masked!r}, index=False)  # the file the command line reads"]
    if spec.keys:
        lines.append(f"keys = {list(spec.keys)!r}")
        if spec.method == "distance":
            imports["rumap.risk.linkage"] = ["distance_linkage"]
            lines.append(f"linked = distance_linkage(original[keys], masked[keys], keys, "
                         f"aggregation={spec.aggregation!r})")
        else:
            imports["rumap.risk.linkage"] = ["probabilistic_linkage"]
            lines.append(f"linked = probabilistic_linkage(original[keys], masked[keys], keys, "
                         f"tolerance={spec.tolerance!r})")
        lines.append("print(linked.linked_correctly)")
    if spec.columns:
        imports["rumap.risk.interval"] = ["interval_disclosure"]
        lines += [f"columns = {list(spec.columns)!r}",
                  f"intervals = interval_disclosure(original[columns], masked[columns], {spec.p!r}, "
                  f"{spec.interval_method!r}, columns)", "print(intervals.risk)"]
    return python_script(imports, lines)


def masked_risk_command(spec: MaskedRiskSpec) -> str | None:
    """The ``risk linkage`` and ``risk interval`` commands, one a line (None: neither keys nor columns)."""
    flags = ["--original", spec.original, "--masked", spec.masked]
    commands = []
    if spec.keys:
        options = (["--aggregation", spec.aggregation] if spec.method == "distance"
                   else ["--tolerance", spec.tolerance])
        commands.append(command_line("risk", "linkage", *flags, "--keys", ",".join(spec.keys), "--method",
                                     spec.method, *options, "--json"))
    if spec.columns:
        commands.append(command_line("risk", "interval", *flags, "--columns", ",".join(spec.columns), "--p",
                                     spec.p, "--method", spec.interval_method, "--json"))
    return "\n".join(commands) or None


def _hierarchy_lines(spec: HierarchicalTableSpec | DPTableSpec, imports: dict[str, list[str]]) -> list[str]:
    """The lines that read the microdata and each dimension's hierarchy (its imports added to ``imports``)."""
    imports["rumap.io.data"] = ["read_table"]
    lines = [f"frame = read_table({spec.data!r})", "hierarchies = {}"]
    for dim, lengths in spec.prefixes.items():
        imports["rumap.specs.tables"] = ["prefix_codes"]
        imports.setdefault("rumap.tables.hierarchy", []).append("from_prefixes")
        lines.append(f"hierarchies[{dim!r}] = from_prefixes(prefix_codes(frame, {dim!r}), {list(lengths)!r})")
    for dim, (name, kind) in spec.files.items():
        reader = "read_hrc" if kind == "hrc" else "read_parent_child"
        imports["pathlib"] = ["Path"]
        imports.setdefault("rumap.tables.hierarchy", []).append(reader)
        lines.append(f"hierarchies[{dim!r}] = {reader}(Path({name!r}).read_text(encoding='utf-8-sig'))")
    return lines


def _hierarchy_flags(spec: HierarchicalTableSpec | DPTableSpec) -> list[object]:
    """``--microdata``, ``--dims`` and ``--hierarchy`` of every kind (a file, its format, code prefixes)."""
    parts: list[object] = ["--microdata", spec.data, "--dims", ",".join(spec.dims)]
    for dim, lengths in spec.prefixes.items():
        parts += ["--hierarchy", f"{dim}=prefixes:{','.join(str(n) for n in lengths)}"]
    for dim, (name, kind) in spec.files.items():
        named = name.lower().endswith(".hrc") == (kind == "hrc")
        parts += ["--hierarchy", f"{dim}={name}" if named else f"{dim}={kind}:{name}"]
    return parts


def hierarchical_python(spec: HierarchicalTableSpec) -> str:
    """The Python of a :class:`~rumap.specs.tables.HierarchicalTableSpec`."""
    imports: dict[str, list[str]] = {"rumap.tables.ndtable": ["build_table"],
                                     "rumap.tables.table_suppression": ["suppress_table"]}
    lines = _hierarchy_lines(spec, imports)
    lines += [f"table = build_table(frame, {list(spec.dims)!r}, hierarchies, {spec.value_column!r})",
              f"mask = table.primary_mask({spec.rule!r}{_keywords(spec.primary_parameters())})",
              f"result = suppress_table(table, mask, protection={spec.protection!r}, cost={spec.cost!r}, "
              f"method={spec.method!r})", "print(result.to_frame())"]
    return python_script(imports, lines)


def hierarchical_command(spec: HierarchicalTableSpec) -> str:
    """The ``table suppress --microdata`` command: ``--hierarchy`` of every kind (a file, its format, code prefixes)."""
    parts: list[object] = ["table", "suppress", *_hierarchy_flags(spec)]
    if spec.value_column is not None:
        parts += ["--value-column", spec.value_column]
    rule_flags = [word for name, value in spec.primary_parameters().items() for word in (f"--{name}", value)]
    parts += ["--rule", spec.rule, *rule_flags, "--protection", spec.protection, "--cost", spec.cost]
    if spec.method is not None:
        parts += ["--method", spec.method]
    return command_line(*parts, "--json")


def _dp_loss(spec: DPTableSpec) -> dict[str, object]:
    return {name: value for name, value in (("epsilon", spec.epsilon), ("rho", spec.rho), ("delta", spec.delta))
            if value is not None}


def dp_python(spec: DPTableSpec) -> str:
    """The Python of a :class:`~rumap.specs.dp_tables.DPTableSpec`: :func:`rumap.tables.dp.dp_table`."""
    imports: dict[str, list[str]] = {"rumap.tables.dp": ["dp_table"]}
    lines = _hierarchy_lines(spec, imports)
    bounds = None if spec.bounds is None else tuple(spec.bounds)
    lines += [f"result = dp_table(frame, {list(spec.dims)!r}, hierarchies, {spec.value_column!r}, {bounds!r}, "
              f"mechanism={spec.mechanism!r}{_keywords(_dp_loss(spec))}, seed={spec.seed!r})",
              "print(result.to_frame())"]
    return python_script(imports, lines)


def dp_command(spec: DPTableSpec) -> str:
    """The ``table dp`` command of a :class:`~rumap.specs.dp_tables.DPTableSpec`."""
    parts: list[object] = ["table", "dp", *_hierarchy_flags(spec)]
    if spec.value_column is not None and spec.bounds is not None:
        parts += ["--value-column", spec.value_column, f"--bounds={spec.bounds[0]!r}:{spec.bounds[1]!r}"]
    parts += ["--mechanism", spec.mechanism, *(word for name, value in _dp_loss(spec).items()
                                               for word in (f"--{name}", value))]
    if spec.seed is not None:
        parts += ["--seed", spec.seed]
    return command_line(*parts, "--json")


def dp_map_python(spec: DPTableMapSpec) -> str:
    """The Python of a :class:`~rumap.specs.dp_tables.DPTableMapSpec`: its table, then its map."""
    t = spec.table
    name = "suppression_threshold_map" if spec.curve == "suppression" else "dp_table_map"
    imports: dict[str, list[str]] = {"rumap.maps.dp_tables": [name], "rumap.tables.ndtable": ["build_table"]}
    lines = _hierarchy_lines(t, imports)
    lines.append(f"table = build_table(frame, {list(t.dims)!r}, hierarchies, None)")
    if spec.curve == "suppression":
        lines.append(f"m = suppression_threshold_map(table, {list(spec.thresholds or ())!r})")
    else:
        lines.append(f"m = dp_table_map(table, {list(spec.epsilons)!r}, mechanism={t.mechanism!r}, delta={t.delta!r}, "
                     f"replicates={spec.replicates!r}, seed={t.seed!r})")
    return python_script(imports, [*lines, "print(m.to_frame())"])


def dp_map_command(spec: DPTableMapSpec) -> str:
    """The ``simulate --method dp-table`` command of a :class:`~rumap.specs.dp_tables.DPTableMapSpec`."""
    t = spec.table
    parts: list[object] = ["simulate", "--method", "dp-table", "--data", *_hierarchy_flags(t)[1:],
                           "--epsilon", ",".join(repr(e) for e in spec.epsilons), "--mechanism", t.mechanism]
    if t.delta is not None:
        parts += ["--delta", t.delta]
    parts += ["--replicates", spec.replicates, "--seed", 0 if t.seed is None else t.seed]
    if spec.thresholds:
        from rumap.present.commands import _grid_text

        grid = _grid_text(list(spec.thresholds), integer=True)
        if grid is None:
            raise InputError(f"--beside-suppression takes evenly spaced thresholds, not {list(spec.thresholds)}")
        parts += ["--beside-suppression", grid]
    return command_line(*parts, "--json")


def scale_risk_python(spec: ScaleRiskSpec) -> str:
    """The Python of a :class:`~rumap.specs.scale.ScaleRiskSpec`: :func:`rumap.scale.individual_risk` on the file."""
    arguments = "".join(f", {name}={value!r}" for name, value in spec.arguments().items())
    return python_script({"rumap.scale": ["individual_risk", "scan"]},
                         [f"result = individual_risk(scan({spec.data!r}), {list(spec.keys)!r}{arguments})",
                          "print(result.to_dict())"])


def scale_risk_command(spec: ScaleRiskSpec) -> str:
    """The ``risk individual --engine scale`` command of a :class:`~rumap.specs.scale.ScaleRiskSpec`."""
    flags = [word for name, value in spec.arguments().items() for word in (f"--{name}", value)]
    return command_line("risk", "individual", "--data", spec.data, "--keys", ",".join(spec.keys), *flags,
                        "--engine", "scale", "--json")
