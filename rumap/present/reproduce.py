"""The command line and the Python call that reproduce a result, generated from its specification.

:func:`to_command` gives the ``python -m rumap ...`` command and
:func:`to_python` a short Python script, for any specification of
:data:`REPRODUCERS`: an analytic or an empirical map (:mod:`rumap.specs`), a
release (:class:`rumap.release.spec.ReleaseSpec`), a table built from
microdata and protected, or its R-U map (:mod:`rumap.specs.table_protection`),
one public function called on a data file (:class:`rumap.specs.calls.CallSpec`,
whose command is in :data:`CALL_COMMANDS`), one of the Tables page's analyses
(:mod:`rumap.specs.tables`) or record linkage with interval disclosure
(:class:`rumap.specs.risk.MaskedRiskSpec`), whose writers are in
:mod:`rumap.present.reproduce_tables`.
One record per specification type says how both are written; a type the
command line cannot run says why (:class:`NoCommandLine`), rather than giving a
command that does something else. Numbers are written with ``repr``, so the
code gives exactly the inputs the specification holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from rumap._validation import InstanceOf, validate_params
from rumap.errors import InputError
from rumap.present import reproduce_tables as tables
from rumap.present.code_text import command_line, python_script
from rumap.present.commands import _analytic_cli, _analytic_python, _empirical_cli, _empirical_python, data_path
from rumap.release.registry import CATEGORICAL_METHODS
from rumap.release.spec import ReleaseSpec
from rumap.specs import AnalyticSpec, EmpiricalSpec
from rumap.specs.calls import CallSpec
from rumap.specs.dp_tables import DPTableMapSpec, DPTableSpec
from rumap.specs.risk import MaskedRiskSpec
from rumap.specs.scale import ScaleRiskSpec
from rumap.specs.synthetic import SyntheticSpec
from rumap.specs.table_protection import TableMapSpec, TableProtectionSpec
from rumap.specs.tables import (
    DominanceFlawSpec,
    HierarchicalTableSpec,
    LinkedTablesSpec,
    RedesignSpec,
    RoundingMapSpec,
    RuleSpec,
    SuppressedCellsSpec,
)

__all__ = ["REPRODUCERS", "Reproducer", "NoCommandLine", "CALL_COMMANDS", "CallCommand", "to_command", "to_python",
           "command_or_reason", "command_line", "python_script"]


class NoCommandLine(InputError):
    """A specification that no ``python -m rumap`` command computes.

    Parameters
    ----------
    message : str
        Why the command line cannot compute it.
    """


@dataclass(frozen=True)
class Reproducer:
    """How the code reproducing one type of specification is written.

    Parameters
    ----------
    python : callable
        spec -> the Python script.
    command : callable, optional
        spec -> the ``python -m rumap`` command, or None for a spec the command line cannot run
        (None: the command line runs no spec of this type).
    no_command : str
        Why there is no command, when ``command`` is or gives None.
    """

    python: Callable[[Any], str]
    command: Callable[[Any], str | None] | None = None
    no_command: str = ""


# --- a release ------------------------------------------------------------------------------------------------

def _release_command(spec: ReleaseSpec) -> str:
    from rumap.release.spec import DEFAULT_REPLICATES

    parts: list[object] = ["release", "--data", spec.data, "--plan", spec.plan_file, "--out", spec.out]
    if spec.chunk_size is not None:  # no report, no prediction
        return command_line(*parts, "--chunk-size", spec.chunk_size)
    if spec.report is not None:
        parts += ["--report", spec.report]
    if spec.replicates is None:
        parts.append("--no-prediction")
    elif spec.replicates != DEFAULT_REPLICATES:
        parts += ["--replicates", spec.replicates]
    return command_line(*parts)


def _release_python(spec: ReleaseSpec) -> str:
    if spec.chunk_size is not None:
        return python_script({"pathlib": ["Path"], "rumap.release.plan": ["read_plan"],
                              "rumap.release.stream": ["release_in_chunks"]},
                             [f"plan = read_plan(Path({spec.plan_file!r}).read_bytes())",
                              f"done = release_in_chunks({spec.data!r}, plan, {spec.out!r}, {spec.chunk_size!r})"])
    imports: dict[str, list[str]] = {"pathlib": ["Path"], "rumap.io.data": ["read_table", "write_table"],
                                     "rumap.release.apply": ["apply_plan"], "rumap.release.plan": ["read_plan"]}
    lines = [f"frame = read_table({spec.data!r})", f"plan = read_plan(Path({spec.plan_file!r}).read_bytes())",
             f"result = apply_plan(frame, plan, source={spec.data!r}, between={PurePath(spec.out).name!r})"]
    if spec.report is None:
        return python_script(imports, [*lines, f"write_table(result.data, {spec.out!r})"])
    as_json = PurePath(spec.report).suffix.lower() == ".json"
    writer = "release_report_json" if as_json else "release_report_html"
    imports["rumap.io.data"] = ["read_table", "table_bytes", "write_files"]
    imports["rumap.release.report"] = ["release_report"]
    imports["rumap.present.release_report"] = [writer]
    lines += [f"report = release_report(frame, result, replicates={spec.replicates!r})",
              f"write_files([('out', {spec.out!r}, table_bytes(result.data, {spec.out!r})),  # both or neither",
              f"             ('report', {spec.report!r}, {writer}(report).encode('utf-8'))])"]
    return python_script(imports, lines)


# --- a table built from microdata, protected, and its map --------------------------------------------------------

#: Why the command line does not reproduce a table built from microdata.
NO_MICRODATA_TABLE = "the command line protects a table file, not microdata"


def _table_lines(spec: TableProtectionSpec) -> list[str]:
    arguments = ", ".join(f"{k}={v!r}" for k, v in spec.table_arguments().items() if v is not None)
    parameters = ", ".join(f"{k}={v!r}" for k, v in spec.rule_parameters.items())
    return [f"frame = read_table({spec.data!r})", f"table = table_from_microdata(frame, {arguments})",
            f"primary = table.primary({spec.rule!r}, {spec.layer!r}, {parameters})"]


_TABLE_IMPORTS = {"rumap.io.data": ["read_table"], "rumap.tables.microdata": ["table_from_microdata"]}


def _protection_python(spec: TableProtectionSpec) -> str:
    return python_script({**_TABLE_IMPORTS, "rumap.tables.secondary": ["suppress_secondary"]},
                         [*_table_lines(spec),
                          f"result = suppress_secondary(table.published({spec.layer!r}), primary, "
                          f"protection={spec.protection!r}, cost={spec.cost!r}, "
                          f"frequencies=table.frequencies({spec.layer!r}))", "print(result.to_frame())"])


def _table_map_python(spec: TableMapSpec) -> str:
    from rumap.tables.rules import RULES

    s, grid = spec.protection, list(spec.grid)
    measures = f"risk={spec.risk!r}, utility={spec.utility!r}"
    lines = _table_lines(s)
    if spec.sweep == "rule":
        swept = next(iter(RULES[s.rule].parameters))
        fixed = {k: v for k, v in s.rule_parameters.items() if k != swept}
        function = "rule_map"
        lines = [*lines[:2], f"m = rule_map(table, {s.rule!r}, {grid!r}, rule_parameters={fixed!r}, "
                             f"layer={s.layer!r}, protection={s.protection!r}, cost={s.cost!r}, {measures}, "
                             f"time_limit={spec.time_limit!r})"]
    elif spec.sweep == "protection":
        function = "protection_map"
        lines.append(f"m = protection_map(table.published({s.layer!r}), primary, {grid!r}, cost={s.cost!r}, "
                     f"{measures}, time_limit={spec.time_limit!r}, required={s.protection!r})")
    else:
        function = "rounding_base_map"
        lines.append(f"m = rounding_base_map(table.published({s.layer!r}), {grid!r}, primary=primary, "
                     f"protection={s.protection!r}, {measures})")
    return python_script({**_TABLE_IMPORTS, "rumap.maps.tables": [function]}, [*lines, "print(m.to_frame())"])


# --- one function called on a data file ---------------------------------------------------------------------

FlagWriter = Callable[[Any], tuple]


def _flag(flag: str) -> FlagWriter:
    """A flag given a value: absent for None or False, alone for True, a list's items joined by commas."""
    def write(value: Any) -> tuple:
        if value is None or value is False:
            return ()
        if value is True:
            return (flag,)
        if isinstance(value, (list, tuple)):
            return (flag, ",".join(map(str, value)))
        return (flag, value)
    return write


def _repeated(flag: str) -> FlagWriter:
    """A flag given once per item of a list."""
    return lambda values: tuple(part for value in values for part in (flag, value))


def _grid(flag: str, integer: bool) -> FlagWriter:
    """A grid flag: ``START:STOP:NUM`` (``START:STOP[:STEP]`` for integers) that gives exactly the values."""
    from rumap.present.commands import _grid_text

    def write(values: Any) -> tuple:
        text = _grid_text(list(values), integer)
        if text is None:
            raise NoCommandLine(f"{flag} cannot give the values {list(values)!r}: the command line takes an evenly "
                                "spaced grid")
        return (flag, text)
    return write


#: The flag of each option of a categorical map's measures.
_MEASURE_OPTION_FLAGS = {"threshold": "--risk-threshold", "k": "--anonymity-k", "response": "--response",
                         "pair": "--pair"}


def _measure_options(options: Any) -> tuple:
    return tuple(part for name, value in dict(options or {}).items()
                 for part in _flag(_MEASURE_OPTION_FLAGS[name])(value))


_KEYS = {"keys": _flag("--keys"), "weight": _flag("--weight")}
_MEASURES = {"risk": _flag("--risk"), "utility": _flag("--utility"), "options": _measure_options}


def _categorical_commands() -> dict[str, CallCommand]:
    """The command of each map of :data:`rumap.release.registry.CATEGORICAL_METHODS`, from its record:
    ``simulate --method NAME``, its grid flag (``--`` + its parameter), ``--replicates`` and ``--seed`` of a
    simulated map, ``--band-variable`` of a map that bands one."""
    out = {}
    for name, record in CATEGORICAL_METHODS.items():
        if not record.function:
            continue
        flags = {**_KEYS, record.grid_argument: _grid("--" + record.parameter.replace("_", "-"), record.integer),
                 **_MEASURES}
        if record.simulated:
            flags.update(replicates=_flag("--replicates"), seed=_flag("--seed"))
        if record.variable:
            flags["variable"] = _flag("--band-variable")
        out[record.function] = CallCommand(
            ("simulate", "--method", name), flags)
    return out


@dataclass(frozen=True)
class CallCommand:
    """How ``python -m rumap`` runs the function of a :class:`rumap.specs.calls.CallSpec`.

    Parameters
    ----------
    words : tuple of str
        The subcommand and the flags that choose the function (empty: no command).
    flags : mapping of str to callable
        The function's argument -> its flags (value -> tuple of words).
    no_command : str
        Why the command line does not run the function, when ``words`` is empty.
    column_flags : tuple of str, optional
        The flags of a specification's ``column`` and ``records``.
    """

    words: tuple[str, ...] = ()
    flags: Mapping[str, FlagWriter] = field(default_factory=dict)
    no_command: str = ""
    column_flags: tuple[str, str] | None = None


#: Why the identity maps have no command.
_ESTIMATE_ONLY = "the command line gives the estimate, not this map"

#: Why the maps of camouflage and auditing have no command.
_QUERIES_ONLY = "the command line answers and audits queries; the maps are in Python"

#: The command of each function a CallSpec may call, by dotted name; a function not here has no command.
CALL_COMMANDS: dict[str, CallCommand] = {
    "rumap.risk.individual.individual_risk": CallCommand(
        ("risk", "individual"), {**_KEYS, "household": _flag("--household"), "k": _flag("--k")}),
    "rumap.risk.suda.suda2": CallCommand(
        ("risk", "suda"), {"keys": _flag("--keys"), "max_size": _flag("--max-size"),
                           "dis_fraction": _flag("--dis-fraction")}),
    **_categorical_commands(),
    "rumap.risk.identity.identity_risk_from_data": CallCommand(
        ("risk", "identity"), {"key": _flag("--keys"), "N": _flag("--N"), "a": _flag("--a"),
                               "max_risk": _flag("--max-risk"), "cells": _flag("--cells"),
                               "method": _flag("--estimator")}),
    "rumap.risk.identity.subsampling_map": CallCommand(no_command=_ESTIMATE_ONLY),
    "rumap.risk.identity.recoding_map": CallCommand(no_command=_ESTIMATE_ONLY),
    "rumap.databases.camouflage.answer_with_camouflage": CallCommand(
        ("query", "answer", "--show-vectors"), {"queries": _repeated("--query"), "protection": _flag("--protection"),
                                                "k": _flag("--camouflage-k"), "seed": _flag("--seed")},
        column_flags=("--value", "--records")),
    "rumap.maps.databases.camouflage_map": CallCommand(no_command=_QUERIES_ONLY),
    "rumap.maps.databases.audit_map": CallCommand(no_command=_QUERIES_ONLY),
    "rumap.maps.cellkey_map.ckm_map": CallCommand(
        ("simulate", "--method", "ckm"), {"dims": _flag("--dims"), "variances": _flag("--variance"),
                                          "max_perturbation": _flag("--max-perturbation"), "js": _flag("--js"),
                                          "replicates": _flag("--replicates"), "seed": _flag("--seed")}),
    "rumap.databases.audit.audit_queries": CallCommand(
        ("query", "audit"), {"queries": _repeated("--query"), "protection": _flag("--protection")},
        column_flags=("--value", "--records")),
    "rumap.maps.swap_map.swap_map": CallCommand(
        ("simulate", "--method", "swap"), {**_KEYS, "swaprates": _grid("--swaprate", False),
                                           "hierarchy": _flag("--hierarchy"), "household": _flag("--household"),
                                           "similar": lambda sets: ("--similar", ",".join("+".join(s) for s in sets)),
                                           "carry_along": lambda names: _flag("--carry-along")(list(names) or None),
                                           "k": _flag("--swap-k"), "replicates": _flag("--replicates"),
                                           "seed": _flag("--seed"), **_MEASURES}),
    "rumap.tables.cellkey.cell_key_method": CallCommand(
        no_command="python -m rumap table ckm --microdata FILE --dims ... gives it (its microdata flag is not --data)"),
    "rumap.tables.granularity.granularity_analysis": CallCommand(
        no_command="python -m rumap table granularity takes one table; the procedure is in Python"),
    "rumap.masking.granularity.eliminate_granularity": CallCommand(
        ("protect", "granularity"), {"keys": _flag("--keys"), "level": _flag("--level"), "types": _flag("--types"),
                                     "moves": lambda moves: {"merge": ("--merge-only",),
                                                             "suppress": ("--suppress-only",)}.get(moves, ()),
                                     "dispersed_frequency": _flag("--dispersed-frequency"),
                                     "odd_expected": _flag("--odd-expected")}),
}


def _call_command(spec: CallSpec) -> str:
    command = CALL_COMMANDS.get(spec.function)
    if command is None or not command.words:
        raise NoCommandLine(command.no_command if command is not None and command.no_command
                            else f"the command line does not run {spec.name}")
    parts: list[object] = [*command.words, "--data", spec.data]
    if spec.column is not None:
        if command.column_flags is None:
            raise NoCommandLine(f"the command line's {spec.name} reads a table, not a column")
        parts += [command.column_flags[0], spec.column]
        parts += [] if spec.records is None else [command.column_flags[1], spec.records]
    for name, value in spec.arguments.items():
        if name not in command.flags:
            raise NoCommandLine(f"the command line has no flag for the {name} of {spec.name}")
        parts += command.flags[name](value)
    for line in spec.merges:
        parts += ["--merge", line]
    return command_line(*parts, "--json")


def _call_python(spec: CallSpec) -> str:
    imports = {"rumap.io.data": ["read_table"], spec.module: [spec.name]}
    read, given = f"read_table({spec.data!r})", "frame"
    if spec.merges:
        imports.setdefault("rumap.masking.categorical", []).append("recode")
        read = f"recode({read}, {spec.mapping()!r})"
    if spec.column is not None:
        imports["rumap.io.data"].append("numeric_column")
        read, given = f"numeric_column({read}, {spec.column!r})", "values"
        read += "" if spec.records is None else f"[:{spec.records}]"
    arguments = "".join(f", {name}={value!r}" for name, value in spec.arguments.items())
    return python_script(imports, [f"{given} = {read}", f"result = {spec.name}({given}{arguments})"])


def _synthetic_arguments(spec: SyntheticSpec) -> dict[str, Any]:
    return {"risk": spec.risk, "utility": spec.utility, "replicates": spec.replicates,
            "holdout_share": spec.holdout_share, "copies": spec.copies,
            **({"keys": list(spec.keys)} if spec.keys else {}), **({"target": spec.target} if spec.target else {}),
            "seed": spec.seed}


def _synthetic_python(spec: SyntheticSpec) -> str:
    columns = list(spec.data.columns)
    arguments = "".join(f", {name}={value!r}" for name, value in _synthetic_arguments(spec).items())
    lines = [f"data = read_table({data_path(spec.data)!r})",
             f"result = synthetic_map(data, {spec.method!r}, {list(spec.values)!r}{arguments}, columns={columns!r})"]
    imports = {"rumap.io.data": ["read_table"], "rumap.maps.synthetic": ["synthetic_map"]}
    if spec.max_risk is not None:
        imports["rumap.maps.recommend"] = ["recommend"]
        lines.append(f"recommendation = recommend([result], {spec.max_risk!r}, n_records=len(data))")
    return python_script(imports, lines)


def _synthetic_command(spec: SyntheticSpec) -> str | None:
    from rumap.synthesis import GENERATORS

    if GENERATORS[spec.method].no_map:
        return None
    values = ",".join(str(v) if isinstance(v, int) else repr(float(v)) for v in spec.values)
    parts: list[object] = ["simulate", "--data", data_path(spec.data), "--method",
                           spec.method, f"--{spec.parameter.replace('_', '-')}", values,
                           "--columns", ",".join(spec.data.columns)]
    for name, value in _synthetic_arguments(spec).items():
        parts += [f"--{name.replace('_', '-')}", ",".join(value) if isinstance(value, list) else value]
    if spec.max_risk is not None:
        parts += ["--max-risk", spec.max_risk]
    return command_line(*parts, "--json")


#: How the code of each type of specification is written.
REPRODUCERS: dict[type, Reproducer] = {
    AnalyticSpec: Reproducer(_analytic_python, _analytic_cli),
    EmpiricalSpec: Reproducer(_empirical_python, _empirical_cli),
    SyntheticSpec: Reproducer(_synthetic_python, _synthetic_command,
                              "the command line's simulate draws another map of this generator (python -m rumap "
                              "synthesize writes its synthetic file); the Python script draws this one"),
    ReleaseSpec: Reproducer(_release_python, _release_command),
    TableProtectionSpec: Reproducer(_protection_python, no_command=NO_MICRODATA_TABLE),
    TableMapSpec: Reproducer(_table_map_python, no_command=NO_MICRODATA_TABLE),
    CallSpec: Reproducer(_call_python, _call_command),
    RuleSpec: Reproducer(tables.rules_python, tables.rules_command, tables.BUILT_IN),
    DominanceFlawSpec: Reproducer(tables.flaw_python, tables.flaw_command),
    SuppressedCellsSpec: Reproducer(tables.suppressed_python, tables.suppressed_command, tables.BUILT_IN),
    RedesignSpec: Reproducer(tables.redesign_python, no_command=tables.BUILT_IN),
    LinkedTablesSpec: Reproducer(tables.linked_python, no_command=tables.BUILT_IN),
    RoundingMapSpec: Reproducer(tables.rounding_python, no_command=tables.NO_ROUNDING_MAP),
    HierarchicalTableSpec: Reproducer(tables.hierarchical_python, tables.hierarchical_command),
    DPTableSpec: Reproducer(tables.dp_python, tables.dp_command),
    DPTableMapSpec: Reproducer(tables.dp_map_python, tables.dp_map_command),
    MaskedRiskSpec: Reproducer(tables.masked_risk_python, tables.masked_risk_command, tables.NOTHING_CHOSEN),
    ScaleRiskSpec: Reproducer(tables.scale_risk_python, tables.scale_risk_command),
}

_SPEC = InstanceOf(tuple(REPRODUCERS), "a specification of rumap.present.reproduce.REPRODUCERS")


def _reproducer(spec: object) -> Reproducer:
    return REPRODUCERS[type(spec)]


def _example() -> dict[str, Any]:
    return {"spec": AnalyticSpec(n=200, sigma2=1.0, states=("record",))}


@validate_params({"spec": _SPEC}, example=_example)
def to_command(spec: Any) -> str:
    """The ``python -m rumap ...`` command that computes what ``spec`` computes.

    Parameters
    ----------
    spec : a specification of :data:`REPRODUCERS`

    Returns
    -------
    str

    Raises
    ------
    NoCommandLine
        When no command computes it (the message says why).

    Examples
    --------
    >>> to_command(AnalyticSpec(n=200, sigma2=1.0, states=("record",), lambda2_num=5))
    'python -m rumap analytic --n 200 --sigma2 1 --mu 0 --p 0.99 --lambda2 0:3:5 --state record --json'
    """
    reproducer = _reproducer(spec)
    command = None if reproducer.command is None else reproducer.command(spec)
    if command is None:
        raise NoCommandLine(reproducer.no_command)
    return command


@validate_params({"spec": _SPEC}, example=_example)
def to_python(spec: Any) -> str:
    """A Python script that computes what ``spec`` computes.

    Parameters
    ----------
    spec : a specification of :data:`REPRODUCERS`

    Returns
    -------
    str

    Examples
    --------
    >>> print(to_python(AnalyticSpec(n=200, sigma2=1.0, states=("record",), lambda2_num=5)).splitlines()[-1])
    maps = analytic_map(['record'], lambda2, setting)
    """
    return _reproducer(spec).python(spec)


@validate_params({"spec": _SPEC}, example=_example)
def command_or_reason(spec: Any) -> tuple[str | None, str]:
    """The command of :func:`to_command` and ``""``, or None and why there is none.

    Parameters
    ----------
    spec : a specification of :data:`REPRODUCERS`

    Returns
    -------
    tuple of (str or None, str)

    Examples
    --------
    >>> from rumap.specs.table_protection import TableProtectionSpec
    >>> command_or_reason(TableProtectionSpec("firms.csv", "region", rule_parameters={"p": 10.0}))
    (None, 'the command line protects a table file, not microdata')
    """
    try:
        return to_command(spec), ""
    except NoCommandLine as exc:
        return None, str(exc)
