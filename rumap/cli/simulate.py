"""``python -m rumap simulate``: empirical R-U maps of a data file (Duncan et al. 2001, section 4)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import numpy as np

from rumap.cli.flags import (
    FAMILY_FLAGS,
    TARGET_FORMS,
    add_merge_flag,
    add_record_flag,
    add_work_limit,
    budget_from_args,
    check_applies,
    check_flag,
    check_needs,
    merge_flags,
    parse_grid,
    recommendation_line,
    split_names,
)
from rumap.cli.progress import Progress, add_progress_flag
from rumap.cli.simulate_ckm import TABLE_MAP_METHOD_NAMES, add_ckm_flags, run_ckm_map
from rumap.cli.simulate_dp import DP_TABLE_FLAGS, DP_TABLE_METHOD_NAMES, add_dp_table_flags
from rumap.cli.synthesize import mapped_generators
from rumap.errors import InputError
from rumap.maps.method_records import Flag
from rumap.maps.methods import METHODS
from rumap.maps.utility import UTILITIES
from rumap.release.registry import CATEGORICAL_METHODS

if TYPE_CHECKING:
    from rumap.maps.simulation import SimulationConfig

# The parser's choices and help: the registries of the masking methods, the protections of keys (their records load
# without pandas) and the utilities themselves, and the keys of the heavier ones (rumap.maps.attacks.KNOWLEDGE,
# rumap.risk.measures.DATASET_RISK_MEASURES, rumap.maps.categorical_measures.CATEGORICAL_UTILITIES and
# CATEGORICAL_RISKS, rumap.maps.recommend.DECISIONS), so that ``simulate --help`` starts without pandas or scipy;
# ``tests/cli/test_startup.py`` checks they agree. The heavier modules are imported when the command runs.
KNOWLEDGE_NAMES = ("index", "position", "corrected", "mean")
DATASET_RISK_NAMES = ("record-linkage", "record-linkage-shared-ties", "probabilistic-linkage", "interval-disclosure",
                      "sdid")
CATEGORICAL_UTILITY_NAMES = ("kept", "entropy", "hellinger", "cramers_v", "regression", "variance", "categories")
CATEGORICAL_RISK_NAMES = ("global_risk", "expected_reidentifications", "share_above", "k_violations", "linkage",
                          "key_matching", "unit_cells")
DECISION_NAMES = ("upper", "mean")
# rumap.maps.synthetic.SYNTHETIC_RISKS and SYNTHETIC_UTILITIES (the generators: rumap.cli.synthesize).
SYNTHETIC_RISK_NAMES = ("dcr_share", "nndr", "membership_advantage", "repu", "disco", "linkage")
SYNTHETIC_UTILITY_NAMES = ("pmse", "common")
#: Flags of simulate that the generators' maps read too (attribute, flag), besides their own.
_SYNTHETIC_SHARED = (("columns", "--columns"), ("keys", "--keys"), ("risk", "--risk"), ("target", "--target"))

HELP = "empirical R-U map: simulate masking of a data file and the snooper's attacks"

def _grids() -> dict[str, tuple]:
    """The grid parameters of each masking method (:data:`rumap.maps.methods.METHODS`), by method."""
    return {name: method.grids for name, method in METHODS.items()}


def flag_scope() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every flag that applies to some methods only: attribute -> (flag, methods), from the registries' records."""
    families = {"numeric": tuple(METHODS), "categorical": tuple(CATEGORICAL_METHODS)}
    scope: dict[str, tuple[str, tuple[str, ...]]] = {}

    def add(attr: str, flag: str, methods: tuple[str, ...]) -> None:
        known = scope.get(attr, (flag, ()))[1]
        scope[attr] = (flag, known + tuple(m for m in methods if m not in known))

    for name, method in METHODS.items():
        for option in method.options:
            if option.flag is not None:
                add(_attr(option.flag.flag), option.flag.flag, (name,))
    for attr, (flag, family) in FAMILY_FLAGS.items():
        add(attr, flag, families[family])
    for name, grids in _grids().items():
        for grid in grids:
            add(_attr(grid.flag.flag), grid.flag.flag, (name,))
    for name, method in CATEGORICAL_METHODS.items():
        add(method.parameter, "--" + method.parameter.replace("_", "-"), (name,))
    for attr, (flag, methods) in DP_TABLE_FLAGS.items():
        add(attr, flag, methods)
    for attr in ("dims", "hierarchy"):  # the table of the cell key method's map, as dp-table's
        add(attr, "--" + attr, TABLE_MAP_METHOD_NAMES)
    for name, method in CATEGORICAL_METHODS.items():
        for flag in method.flags:
            add(flag.dest, flag.flag, (name,))
    for name, record in mapped_generators().items():
        add(record.parameter, f"--{record.parameter}", (name,))
    for attr, flag in (*_SYNTHETIC_SHARED, ("holdout_share", "--holdout-share"), ("copies", "--copies")):
        add(attr, flag, tuple(mapped_generators()))
    return scope


def __getattr__(name: str) -> dict:
    """``FLAG_SCOPE``: :func:`flag_scope` of the methods registered when it is asked for."""
    if name == "FLAG_SCOPE":
        return flag_scope()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _attr(flag: str) -> str:
    """The attribute argparse stores a flag in: ``--unequal-factor`` -> ``unequal_factor``."""
    return flag.lstrip("-").replace("-", "_")


def _add_method_flags(p: argparse.ArgumentParser, grid: argparse._ArgumentGroup) -> None:
    """Every masking method's grid flags (in ``grid``) and option flags (a group per method), from its record."""
    added: set[str] = set()
    for method in METHODS.values():
        for parameter in method.grids:
            flag = parameter.flag
            if flag.flag not in added:
                added.add(flag.flag)
                grid.add_argument(flag.flag, metavar=flag.metavar, help=flag.help)
    for method in METHODS.values():
        flags = [o.flag for o in method.options if o.flag is not None and o.flag.flag not in added]
        if not flags:
            continue
        group = p.add_argument_group(method.title or method.description)
        exclusive: dict[str, argparse._MutuallyExclusiveGroup] = {}
        for flag in flags:
            added.add(flag.flag)
            target = group
            if flag.exclusive:
                if flag.exclusive not in exclusive:
                    exclusive[flag.exclusive] = group.add_mutually_exclusive_group()
                target = exclusive[flag.exclusive]
            if flag.type is None:
                target.add_argument(flag.flag, action="store_true", help=flag.help)
            else:
                target.add_argument(flag.flag, type=flag.type, metavar=flag.metavar, help=flag.help)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("simulate", help=HELP, description=HELP)
    p.add_argument("--data", required=True, help="data file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    p.add_argument("--column", help="the numeric column to mask and attack")
    p.add_argument("--columns", help="several numeric columns, comma-separated (the first is attacked unless "
                                     "--target-column is given)")
    p.add_argument("--target-column", help="the column the snooper attacks (default: the first)")
    p.add_argument("--method", default="noise",
                   choices=[*METHODS, *CATEGORICAL_METHODS, *DP_TABLE_METHOD_NAMES, *TABLE_MAP_METHOD_NAMES,
                            *mapped_generators()],
                   help=f"masking method (default noise); {', '.join(CATEGORICAL_METHODS)} protect "
                        "categorical --keys; dp-table releases the count table of --dims with differential privacy, "
                        "mst synthesizes --dims, over --epsilon; ckm perturbs a table of --dims by the cell key method; "
                        "cart and copula synthesise the file")
    _add_method_flags(p, p.add_argument_group("parameter grid (one, by method)"))
    attack = p.add_argument_group("snooper and utility")
    attack.add_argument("--target", action="append", metavar="TARGET",
                        help=f"repeatable (numeric methods): {TARGET_FORMS}")
    attack.add_argument("--knowledge", action="append", metavar="STATE",
                        help=f"repeatable: {', '.join(KNOWLEDGE_NAMES)} (default index and position)")
    attack.add_argument("--rational", action="store_true", help="add the rational snooper's envelope per target")
    attack.add_argument("--risk-measure", action="append", default=[], metavar="NAME",
                        help="repeatable: a dataset-level risk measure as R "
                             f"({', '.join(DATASET_RISK_NAMES) or 'none available'})")
    attack.add_argument("--utility", help=f"{', '.join(UTILITIES)} (default mean, Eq 14); with --method suppress, "
                                          f"recode, pram or granularity: {', '.join(CATEGORICAL_UTILITY_NAMES)} (default: the "
                                          "method's own)")
    attack.add_argument("--quantiles", metavar="Q1,Q2,...", help="quantiles of --utility quantiles (default 0.1,0.5,0.9)")
    attack.add_argument("--response", help="response column of --utility regression (default: the first; "
                                           "required with categorical keys)")
    categorical = p.add_argument_group(f"categorical keys (--method {', '.join(CATEGORICAL_METHODS)})")
    categorical.add_argument("--keys", metavar="A,B,...", help="the categorical key variables")
    categorical.add_argument("--weight", metavar="W", help="sampling weight column (for the individual risk)")
    _add_key_map_grids(categorical)
    categorical.add_argument("--band-variable", metavar="VAR", help="the numeric key that a map banding one bands ("
                             + ", ".join(name for name, method in CATEGORICAL_METHODS.items() if method.variable) + ")")
    categorical.add_argument("--risk", metavar="NAME",
                             choices=list(dict.fromkeys([*CATEGORICAL_RISK_NAMES, *SYNTHETIC_RISK_NAMES])),
                             help=f"R of the map: {', '.join(CATEGORICAL_RISK_NAMES)} (default: global_risk; "
                                  f"key_matching for pram); with cart or copula: {', '.join(SYNTHETIC_RISK_NAMES)} "
                                  "(default dcr_share)")
    categorical.add_argument("--risk-threshold", type=float, metavar="T",
                             help="individual risk above which a record counts (--risk share_above)")
    categorical.add_argument("--anonymity-k", type=int, metavar="K", help="the k of --risk k_violations")
    categorical.add_argument("--pair", metavar="A,B", help="the two variables of --utility cramers_v")
    add_merge_flag(categorical, ", applied to --data first")
    add_dp_table_flags(p)
    synthetic = p.add_argument_group("synthetic data (--method cart, copula; --columns, --keys, --risk, --utility "
                                     f"{'|'.join(SYNTHETIC_UTILITY_NAMES)}, --target of disco)")
    for name, record in mapped_generators().items():
        parameter = record.parameter
        synthetic.add_argument(f"--{parameter}", metavar="START:STOP:NUM|A,B,...", help=f"{name}: the grid of {parameter}")
    synthetic.add_argument("--holdout-share", type=float, metavar="F",
                           help="share of the records each replicate holds out of the generator's fit (default 0.5)")
    synthetic.add_argument("--copies", type=int, metavar="M", help="synthetic files per fit (default 1)")
    decision = p.add_argument_group("recommendation")
    decision.add_argument("--max-risk", type=float, metavar="R",
                          help="maximum tolerable risk, in the units of the map's R: adds the recommended value "
                               "(the most utility among values whose risk is at most R for every curve)")
    decision.add_argument("--decision", choices=list(DECISION_NAMES),
                          help="judge a value's risk by the upper end of its 95%% band (upper, the default) or by "
                               "its mean; needs --max-risk")
    run_group = p.add_argument_group("run")
    run_group.add_argument("--replicates", type=int, default=200, metavar="M", help="masked copies per value (200)")
    run_group.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    run_group.add_argument("--chunk-size", type=int, metavar="R", help="replicates per chunk (memory; not results)")
    run_group.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address: run the replicates there")
    run_group.add_argument("--subsample", type=int, metavar="M",
                           help="estimate the map on simple random subsamples of M records (numeric methods; "
                                "noise with index knowledge): the standard errors are the subsamples' spread")
    run_group.add_argument("--subsamples", type=int, metavar="B",
                           help="independent subsamples of --subsample (default 10)")
    add_work_limit(run_group)
    add_progress_flag(run_group)
    add_ckm_flags(p)
    _add_key_map_flags(categorical)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _add_key_map_grids(group: argparse._ArgumentGroup) -> None:
    """The grid flag of each protection of keys (``--`` + its map's parameter), from its record; a flag another
    method's grid holds already (``--k``) says what it is for this one too."""
    for name, method in CATEGORICAL_METHODS.items():
        flag = "--" + method.parameter.replace("_", "-")
        add_record_flag(group, name, Flag(flag, method.grid_help or method.description, str, "START:STOP:NUM"))


def _add_key_map_flags(group: argparse._ArgumentGroup) -> None:
    """The flags of each protection of keys' own options (swap's ``--household``), from its record, after every
    other group's: a flag another group holds (the tables' repeatable ``--hierarchy``) serves this one too."""
    for name, method in CATEGORICAL_METHODS.items():
        for flag in method.flags:
            add_record_flag(group, name, flag)


def _columns(args: argparse.Namespace) -> list[str]:
    if (args.column is None) == (args.columns is None):
        raise InputError("give --column COL or --columns A,B,... (one of them)")
    columns = [args.column] if args.column is not None else split_names(args.columns, "--columns")
    if len(set(columns)) != len(columns):
        raise InputError(f"--columns names a column twice: {','.join(columns)}")
    return columns


def _index_of(name: str | None, columns: list[str], flag: str) -> int:
    if name is None:
        return 0
    if name not in columns:
        raise InputError(f"{flag} {name!r} is not one of the masked columns ({', '.join(columns)})")
    return columns.index(name)


def _grid(args: argparse.Namespace) -> tuple[tuple, dict]:
    """The grid values, and the options that the grid flag chosen implies (noise's ``--lambda2-frac``: relative)."""
    grids = _grids()
    flags = {_attr(g.flag.flag): g.flag.flag for method in grids.values() for g in method}
    given = {attr: getattr(args, attr) for attr in flags if getattr(args, attr, None) is not None}
    own = {_attr(g.flag.flag): g for g in grids[args.method]}
    for attr in given:
        if attr not in own:
            raise InputError(f"{flags[attr]} does not apply to --method {args.method}")
    if len(given) != 1:
        raise InputError(f"--method {args.method} needs one grid: {' or '.join(g.flag.flag for g in own.values())}")
    attr, text = next(iter(given.items()))
    values = parse_grid(text, attr, integer=own[attr].integer, budget=budget_from_args(args))
    return tuple(values.tolist()), dict(own[attr].implies)


def _method_options(args: argparse.Namespace, columns: list[str]) -> dict:
    """The method's options given by its flags (those not given keep their defaults), from its record."""
    method = METHODS[args.method]
    options: dict = {}
    for option in method.options:
        if option.follows == "target_column":
            options[option.name] = _index_of(args.target_column, columns, "--target-column")
            continue
        if option.flag is None:
            continue
        value = getattr(args, _attr(option.flag.flag))
        if option.flag.type is None:
            options[option.name] = bool(value)
        elif value is not None:
            options[option.name] = value
    check_needs(method.options, {o.name: getattr(args, _attr(o.flag.flag)) for o in method.options if o.flag is not None})
    return options


def config_from_args(args: argparse.Namespace, columns: list[str]) -> SimulationConfig:
    """The simulation config described by the command line.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``simulate``.
    columns : list of str
        The masked columns, in order.

    Returns
    -------
    SimulationConfig
    """
    from rumap.maps.simulation import SimulationConfig

    check_applies(args, flag_scope(), args.method)
    values, implied = _grid(args)
    options = {**implied, **_method_options(args, columns)}
    utility_options: dict = {}
    if args.quantiles is not None:
        try:
            utility_options["quantiles"] = tuple(float(q) for q in split_names(args.quantiles, "--quantiles"))
        except ValueError:
            raise InputError(f"--quantiles must be numbers in (0, 1), got {args.quantiles!r}") from None
    if args.response is not None:
        utility_options["response"] = _index_of(args.response, columns, "--response")
    return SimulationConfig(
        method=args.method, values=values, method_options=options, targets=tuple(args.target),
        knowledge=tuple(args.knowledge or (("index",) if args.subsample is not None else ("index", "position"))),
        target_column=_index_of(args.target_column, columns, "--target-column"), utility="mean" if args.utility is None else args.utility,
        utility_options=utility_options, replicates=args.replicates, seed=args.seed, chunk_size=args.chunk_size,
        risk_measures=tuple(args.risk_measure), rational=args.rational, **_subsample_options(args))


def _subsample_options(args: argparse.Namespace) -> dict:
    """``subsample`` and ``subsamples`` of ``--subsample M`` and ``--subsamples B`` (the latter needs the former)."""
    if args.subsample is None:
        if args.subsamples is not None:
            raise InputError("--subsamples needs --subsample (the records of each subsample)")
        return {}
    return {"subsample": args.subsample, **({} if args.subsamples is None else {"subsamples": args.subsamples})}


#: Keys the JSON config gets besides the simulation's own: where the data came from.
CONTEXT_KEYS = ("data", "columns")


def config_from_json(config: dict) -> SimulationConfig:
    """The simulation config of this command's JSON ``config`` (which also says where the data came from).

    Parameters
    ----------
    config : dict
        The ``config`` object of ``simulate --json``.

    Returns
    -------
    SimulationConfig
    """
    from rumap.maps.simulation import SimulationConfig

    return SimulationConfig.from_dict(config, ignore=CONTEXT_KEYS)


def _terminal_progress(done: int, total: int) -> None:
    """Progress on stderr, overwritten in place (only when stderr is a terminal)."""
    end = "\n" if done >= total else ""
    print(f"\rsimulating: {done}/{total} replicate-values ({done / total:.0%})", end=end, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Run the simulation the flags describe and print its maps (a table, or one JSON object).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``simulate``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    import pandas as pd

    from rumap.cli.json_output import simulation_json
    from rumap.io.data import numeric_columns, read_table
    from rumap.io.parquet import is_parquet, read_parquet_numeric
    from rumap.specs import DataSource, EmpiricalSpec

    check_applies(args, flag_scope(), args.method)
    if args.method in CATEGORICAL_METHODS:
        return _run_categorical(args)
    if args.method in DP_TABLE_METHOD_NAMES:
        from rumap.cli.simulate_dp import run_dp

        return run_dp(args)
    if args.method in TABLE_MAP_METHOD_NAMES:
        return run_ckm_map(args)
    if args.method in mapped_generators():
        from rumap.cli.simulate_synthetic import run_synthetic

        _check_decision_flags(args)
        return run_synthetic(args)
    if not args.target:
        raise InputError("give at least one --target (the record the snooper attacks)")
    columns = _columns(args)
    _check_decision_flags(args)
    for flag, entry in (("--replicates", "replicates"), ("--seed", "seed"), ("--chunk-size", "chunk_size"),
                        ("--subsample", "subsample"), ("--subsamples", "subsamples")):
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None:  # each integer flag against its entry, named as given
            check_flag(flag, entry, value)
    config = config_from_args(args, columns)
    if is_parquet(args.data):  # the masked columns alone, from a file of any size
        data = read_parquet_numeric(args.data, columns)[0]
    else:
        data = numeric_columns(read_table(args.data), columns, source=args.data)
    progress = _terminal_progress if sys.stderr.isatty() else Progress(args.progress).counter("replicate-values")
    spec = EmpiricalSpec(simulation=config, data=DataSource.of("server", args.data, columns, data),
                         max_risk=args.max_risk)  # the spec the dashboard builds for a file where it lies
    analysis = spec.run(data, counts=progress, client=args.scheduler, budget=budget_from_args(args))
    if args.json:
        from rumap.cli import print_json

        out = simulation_json(analysis)
        out["config"] = {**out["config"], **dict(zip(CONTEXT_KEYS, (args.data, columns), strict=True))}
        if args.max_risk is not None:
            out["recommendation"] = analysis.recommendation(decision=args.decision or "upper").to_dict()
        print_json(out)
        return 0
    first = analysis.maps[0]
    table = pd.DataFrame({config.parameter: first.values, "U": first.utility, "U_se": first.utility_se})
    if first.efficiency is not None:
        table["efficiency"] = first.efficiency
    for m in analysis.maps:
        name = f"{m.target}/{m.knowledge}" if m.target else m.knowledge
        table[f"R[{name}]"] = m.risk
        if m.risk_se is not None:
            table[f"se[{name}]"] = m.risk_se
    print(f"{config.method} on {', '.join(columns)} (n = {analysis.n_records}, M = "
          f"{1 if config.deterministic else config.replicates}, seed {config.seed}); U: {first.utility_label}")
    if analysis.subsample is not None:
        sub = analysis.subsample
        print(f"estimated on {sub.subsamples} random subsamples of {sub.m} records; U_se and se[...] are "
              f"{sub.method} standard errors: {sub.covers}")
    with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 250):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if any(np.isinf(m.risk).any() for m in analysis.maps) or np.isinf(first.utility).any():
        print("note: inf means a mean squared error of 0: for R an exact disclosure (the snooper recovers the "
              "target exactly), for U an exact statistic")
    if args.max_risk is not None:
        print(recommendation_line(analysis.recommendation(decision=args.decision or "upper")))
    return 0


def _check_decision_flags(args: argparse.Namespace) -> None:
    """``--max-risk`` is a bound (> 0); ``--decision`` needs it."""
    if args.max_risk is not None:
        check_flag("--max-risk", "max_risk", args.max_risk)
    elif args.decision is not None:
        raise InputError("--decision needs --max-risk (the bound it decides against)")


def _categorical_options(args: argparse.Namespace) -> dict:
    """The options of the categorical map's measures, each flag checked against the measure it serves."""
    if args.utility is not None and args.utility not in CATEGORICAL_UTILITY_NAMES:
        raise InputError(f"--utility must be one of {', '.join(CATEGORICAL_UTILITY_NAMES)} with --method {args.method}, "
                         f"got {args.utility!r}")
    wanted = {"--risk-threshold": ("share_above", args.risk, args.risk_threshold),
              "--anonymity-k": ("k_violations", args.risk, args.anonymity_k),
              "--pair": ("cramers_v", args.utility, args.pair),
              "--response": ("regression", args.utility, args.response)}
    for flag, (measure, chosen, value) in wanted.items():
        if (value is None) != (chosen != measure):
            kind = "--risk" if flag in ("--risk-threshold", "--anonymity-k") else "--utility"
            raise InputError(f"{kind} {measure} needs {flag}" if value is None else f"{flag} goes with {kind} {measure}")
    options: dict = {}
    if args.risk_threshold is not None:
        options["threshold"] = check_flag("--risk-threshold", "risk_bound", args.risk_threshold)
    if args.anonymity_k is not None:
        options["k"] = check_flag("--anonymity-k", "k", args.anonymity_k)
    if args.pair is not None:
        pair = split_names(args.pair, "--pair")
        if len(pair) != 2 or pair[0] == pair[1]:
            raise InputError(f"--pair needs two different variables A,B, got {args.pair!r}")
        options["pair"] = tuple(pair)
    if args.response is not None:
        options["response"] = args.response
    return {**options, **_key_map_options(args)}


def _number_of(flag: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{flag}: {text.strip()!r} is not a number") from None


def _key_map_options(args: argparse.Namespace) -> dict:
    """The options of the map of ``--method`` that its own flags give, read by its record (swap's geography)."""
    method = CATEGORICAL_METHODS[args.method]
    given = {flag.flag: getattr(args, flag.dest) for flag in method.flags
             if getattr(args, flag.dest, None) not in (None, [])}
    return method.read_flags(given) if given and method.read_flags is not None else {}


def _run_categorical(args: argparse.Namespace) -> int:
    """``simulate --method suppress|recode|pram``: the R-U map of a categorical protection, as curve JSON."""
    import pandas as pd

    from rumap.cli.json_output import SIMULATION_CURVE_KEYS, curve_dict
    from rumap.io.data import read_table
    from rumap.maps.recommend import recommend

    method = CATEGORICAL_METHODS[args.method]
    _check_decision_flags(args)
    if args.keys is None:
        raise InputError(f"--method {args.method} needs --keys (the categorical key variables)")
    flag = "--" + method.parameter.replace("_", "-")
    text = getattr(args, method.parameter)
    if text is None:
        raise InputError(f"--method {args.method} needs {flag} (the grid of {method.parameter})")
    if "," in text and ":" not in text:  # a list of values, each checked as the parameter
        values = np.array([check_flag(flag, method.parameter, _number_of(flag, part)) for part in text.split(",")])
    else:
        values = parse_grid(text, method.parameter, integer=method.integer, budget=budget_from_args(args))
    for name in ("replicates", "seed"):
        check_flag(f"--{name}", name, getattr(args, name))
    options = _categorical_options(args)
    frame = read_table(args.data)
    merges = merge_flags(args.merge)
    if merges:
        from rumap.masking.categorical import recode

        frame = recode(frame, merges, source=args.data)
    keys = split_names(args.keys, "--keys")
    for name in [*options.get("pair", ()), *([options["response"]] if "response" in options else [])]:
        if name not in frame.columns:
            raise InputError(f"{args.data}: no column {name!r}; columns are {', '.join(map(str, frame.columns))}")
    try:
        m = method.draw(frame, keys, values, weight=args.weight, variable=args.band_variable,
                        replicates=args.replicates, seed=args.seed, source=args.data, budget=budget_from_args(args),
                        risk=args.risk, utility=args.utility, options=options)
    except InputError as exc:  # the grid's argument is the flag here
        message = str(exc)
        for argument in ("every thetas", "every ks", "every widths", "every levels", "thetas", "ks", "widths",
                         "levels"):
            message = message.replace(argument, f"every value of {flag}", 1) if message.startswith(argument) \
                else message
        raise InputError(message) from None
    config = {"method": args.method, "parameter": method.parameter, "values": m.values.tolist(), "keys": keys,
              "weight": args.weight, "replicates": args.replicates if method.simulated else 1,
              "seed": args.seed if method.simulated else None, "data": args.data}
    if merges:
        config["merge"] = args.merge
    if args.risk is not None or args.utility is not None:  # the measures chosen (the defaults add no key)
        config["risk"], config["utility"] = m.config["risk"], m.config["utility"]
        config.update({key: list(value) if isinstance(value, tuple) else value for key, value in options.items()})
    choice = None if args.max_risk is None else recommend([m], args.max_risk, args.decision or "upper",
                                                           n_records=int(frame.shape[0]))
    if args.json:
        from rumap.cli import print_json

        out = {"curves": [curve_dict(m, SIMULATION_CURVE_KEYS)], "config": config, "n": int(frame.shape[0])}
        if choice is not None:
            out["recommendation"] = choice.to_dict()
        print_json(out)
        return 0
    table = m.to_frame()
    print(f"{method.description} of {', '.join(keys)} (n = {frame.shape[0]}); R: {m.risk_label}; U: {m.utility_label}")
    with pd.option_context("display.max_rows", None, "display.width", 250):
        print(table.drop(columns=["method", "knowledge", "target"], errors="ignore")
              .to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if choice is not None:
        print(recommendation_line(choice))
    return 0
