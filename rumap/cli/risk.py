"""``python -m rumap risk``: disclosure risk measures (record linkage, interval disclosure, identity risk).

::

    python -m rumap risk linkage --original FILE --masked FILE [--keys A,B,...] \\
        [--method distance|probabilistic] [--json]
    python -m rumap risk interval --original FILE --masked FILE [--columns A,B,...] [--p PERCENT] [--json]
    python -m rumap risk identity --f F --a A --fu FU [--N N] [--investigators M] [--json]
    python -m rumap risk identity --data FILE --keys A,B,... --N N --a A [--max-risk G]
        [--engine auto|memory|scale] [--json]
    python -m rumap risk individual --data FILE --keys A,B,... [--weight W] [--household H] [--k K]
        [--sensitive S] [--merge VAR:A,B=NEW ...] [--engine auto|memory|scale] [--chunk-size N] [--out FILE]
        [--quiet] [--scheduler ADDR] [--json]
    python -m rumap risk keys --data FILE --keys A,B,... [--dimension D] [--threshold T] [--json]
    python -m rumap risk suda --data FILE --keys A,B,... [--max-size M] [--dis-fraction F]
        [--merge VAR:A,B=NEW ...] [--engine auto|memory|scale] [--chunk-size N] [--out FILE] [--quiet] [--json]
    python -m rumap risk synthetic --original FILE --release FILE [--holdout FILE] [--columns A,B,...]
        [--keys A,B,...] [--target T] [--json]
    python -m rumap risk frequencies --data FILE --keys A,B,... [--weight W] [--chunk-size N] [--out FILE]
        [--quiet] [--json]

``risk identity`` also reads ``--key`` for ``--keys``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from rumap.cli.engine import add_engine_flags, scale_engine, work_refusal
from rumap.cli.flags import (
    add_merge_flag,
    add_overwrite_flag,
    add_work_limit,
    budget_from_args,
    check_flag,
    check_output_flags,
    merge_flags,
    split_names,
)
from rumap.errors import InputError

# The parser is built from these names alone, so that ``risk --help`` and ``risk identity --f ...`` start without
# pandas or scipy; each measure's module is imported when it runs. ``tests/cli/test_startup.py`` checks they are
# the registries' keys and defaults (rumap.risk.linkage, rumap.risk.interval, rumap.risk.poisson_gamma, rumap.risk.suda).
LINKAGE_METHOD_NAMES = ("distance", "probabilistic")
AGGREGATION_NAMES = ("sum_of_squares", "sum", "max")
INTERVAL_METHOD_NAMES = ("rank", "sd")
INTERVAL_DEFAULT_P = {"rank": 10.0, "sd": 5.0}
BETA_ESTIMATOR_NAMES = ("ml", "moments")
SUDA_DEFAULT_DIS_FRACTION = 0.01
SUDA_DEFAULT_MAX_SIZE: int | None = None

HELP = "disclosure risk: record linkage, interval disclosure, identity (population uniques)"


def _names(text: str | None, flag: str) -> list[str] | None:
    return None if text is None else split_names(text, flag)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``risk`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("risk", help=HELP, description=HELP)
    sub = p.add_subparsers(dest="risk_command", metavar="MEASURE", parser_class=type(p))
    sub.required = True

    link = sub.add_parser("linkage", help="share of masked records linked to their own original",
                          description="Record linkage between an original file and its masked version "
                                      "(row i of the masked file is the masked record i).")
    link.add_argument("--original", required=True, help="original data file")
    link.add_argument("--masked", required=True, help="masked data file (same rows, same columns)")
    link.add_argument("--keys", metavar="A,B,...", help="the intruder's key variables (default: every column)")
    link.add_argument("--method", default="distance", choices=list(LINKAGE_METHOD_NAMES),
                      help="distance-based (default) or probabilistic (Fellegi-Sunter) linkage")
    link.add_argument("--aggregation", default="sum_of_squares", choices=list(AGGREGATION_NAMES),
                      help="record-level aggregation of distances (distance method; default sum_of_squares)")
    link.add_argument("--ordinal", metavar="A,B,...", help="key variables to treat as ordinal (distance method)")
    link.add_argument("--ties", default="none", choices=["none", "share"],
                      help="a tie among t equally near originals counts 0 (default) or 1/t (distance method)")
    link.add_argument("--tolerance", type=float, default=0.1,
                      help="numeric agreement tolerance in standard deviations (probabilistic; default 0.1)")
    link.add_argument("--block-size", type=int, default=1000, help="records per block (probabilistic; default 1000)")
    add_work_limit(link)
    link.add_argument("--json", action="store_true", help="print one JSON object")
    link.set_defaults(_risk_run=run_linkage)

    interval = sub.add_parser("interval", help="share of original values inside an interval around the masked value",
                              description="Interval disclosure (rank intervals, or standard-deviation intervals).")
    interval.add_argument("--original", required=True, help="original data file")
    interval.add_argument("--masked", required=True, help="masked data file (same rows, same columns)")
    interval.add_argument("--columns", metavar="A,B,...", help="numeric variables (default: every numeric column)")
    interval.add_argument("--p", type=float, metavar="PERCENT",
                          help=f"interval width in percent (default {INTERVAL_DEFAULT_P['rank']:g} for rank, "
                               f"{INTERVAL_DEFAULT_P['sd']:g} for sd)")
    interval.add_argument("--method", default="rank", choices=list(INTERVAL_METHOD_NAMES),
                          help="rank intervals (default) or sd intervals (SDID)")
    interval.add_argument("--json", action="store_true", help="print one JSON object")
    interval.set_defaults(_risk_run=run_interval)

    identity = sub.add_parser("identity", help="risk of identification through population uniques (Mokken et al.)",
                              description="Identity disclosure risk from figures (--f --a --fu) or estimated "
                                          "from a data file's key (--data --keys --N --a).")
    identity.add_argument("--f", type=float, help="sample fraction n / N")
    identity.add_argument("--a", type=float, help="acquaintances of the investigator")
    identity.add_argument("--fu", type=float, help="fraction of population uniques u / N")
    identity.add_argument("--N", type=float, help="population size")
    identity.add_argument("--investigators", type=int, metavar="M", help="number of investigators (needs --N)")
    identity.add_argument("--data", help="sample data file")
    identity.add_argument("--keys", "--key", dest="key", metavar="A,B,...",
                          help="key variables of --data (--key is the same flag)")
    identity.add_argument("--max-risk", type=float, metavar="G", help="risk bound in (0, 1): gives f_max")
    identity.add_argument("--cells", type=int, help="number of key values k (default: product of category counts)")
    identity.add_argument("--estimator", default="ml", choices=list(BETA_ESTIMATOR_NAMES),
                          help="estimator of the Poisson-gamma beta (default ml)")
    add_engine_flags(identity)
    identity.add_argument("--json", action="store_true", help="print one JSON object")
    identity.set_defaults(_risk_run=run_identity)

    individual = sub.add_parser("individual", help="per-record re-identification risk on categorical keys (mu-Argus)",
                                description="Individual risk of every record from the frequency of its key value "
                                            "in the file (f_k) and in the population (F_k, summed weights), as "
                                            "mu-Argus and sdcMicro compute it; household risk and k-anonymity.")
    individual.add_argument("--data", required=True, help="microdata file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    individual.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables")
    individual.add_argument("--weight", metavar="W", help="sampling weight column (default: the file is a census)")
    individual.add_argument("--household", metavar="H", help="household identifier column: adds household risk")
    individual.add_argument("--k", type=int, metavar="K", help="count records violating k-anonymity (f_k < K)")
    individual.add_argument("--sensitive", metavar="S", help="sensitive variable: adds each record's distinct "
                                                            "l-diversity")
    add_merge_flag(individual, ", applied first")
    add_work_limit(individual)
    add_engine_flags(individual)
    individual.add_argument("--out", metavar="FILE", help="scale engine: write each record's fk, Fk, risk (and "
                                                        "household_risk, l_diversity) to FILE (.parquet or .csv), "
                                                        "in file order; the JSON then holds the totals")
    add_overwrite_flag(individual)
    individual.add_argument("--json", action="store_true", help="print one JSON object")
    individual.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address: count the key frequencies "
                                                                "(and household risk, l-diversity) of a CSV or Parquet "
                                                                "file on its workers (totals only)")
    individual.set_defaults(_risk_run=run_individual)

    keys = sub.add_parser("keys", help="unsafe cells of every combination of key variables (mu-Argus)",
                          description="Tabulate every combination of up to --dimension key variables and count "
                                      "the unsafe cells (fewer than --threshold records), as mu-Argus does.")
    keys.add_argument("--data", required=True, help="microdata file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    keys.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables")
    keys.add_argument("--dimension", type=int, default=3, help="largest number of variables combined (default 3)")
    keys.add_argument("--threshold", type=int, default=3, help="a cell with fewer records is unsafe (default 3)")
    add_work_limit(keys)
    keys.add_argument("--json", action="store_true", help="print one JSON object")
    keys.set_defaults(_risk_run=run_keys)

    suda = sub.add_parser("suda", help="special uniques: SUDA2 minimal sample uniques, SUDA and DIS scores",
                          description="Minimal sample uniques of every record up to --max-size key variables, "
                                      "its SUDA score and DIS score, as sdcMicro's suda2 computes them.")
    suda.add_argument("--data", required=True, help="microdata file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    suda.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables")
    suda.add_argument("--max-size", type=int, default=SUDA_DEFAULT_MAX_SIZE, metavar="M",
                      help="largest minimal sample unique searched (default: the number of keys)")
    suda.add_argument("--dis-fraction", type=float, default=SUDA_DEFAULT_DIS_FRACTION, metavar="F",
                      help=f"sampling fraction of the DIS score, in (0, 1) (default {SUDA_DEFAULT_DIS_FRACTION:g})")
    add_merge_flag(suda, ", applied first")
    add_work_limit(suda)
    add_engine_flags(suda)
    suda.add_argument("--out", metavar="FILE", help="scale engine: write each record's msus, smallest_msu, score and "
                                                  "dis_score to FILE (.parquet or .csv), in file order; the JSON "
                                                  "then holds the totals")
    add_overwrite_flag(suda)
    suda.add_argument("--json", action="store_true", help="print one JSON object")
    suda.set_defaults(_risk_run=run_suda)

    table = sub.add_parser("frequencies", help="the key frequency table of a file, out of core: each distinct key "
                                               "row's count, weight, f_k and F_k",
                           description="The distinct key rows of a CSV or Parquet file with their records, weight, "
                                       "f_k and F_k (a missing value matching any category), found a hash "
                                       "partition of the rows at a time and written to --out partition by "
                                       "partition: memory follows --chunk-size, not the table.")
    table.add_argument("--data", required=True, help="CSV or Parquet file")
    table.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables")
    table.add_argument("--weight", metavar="W", help="sampling weight column (default: the file is a census)")
    table.add_argument("--chunk-size", type=int, metavar="N",
                       help="distinct key rows per partition, about (default 1,000,000): bounds the memory")
    table.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    table.add_argument("--out", metavar="FILE", help="write the distinct key rows (key values, count, weight, fk, Fk) "
                                                   "to FILE (.parquet or .csv); the JSON holds the summary")
    add_overwrite_flag(table)
    table.add_argument("--json", action="store_true", help="print one JSON object")
    table.set_defaults(_risk_run=run_frequencies)

    synthetic = sub.add_parser("synthetic", help="a release (synthetic or masked) against its original: distance to "
                               "closest record, nndr, membership, repu, DiSCO, pMSE",
                               description="Every measure of rumap.risk.synthetic that the inputs allow, as one "
                                           "object (a measure that needs a holdout, keys or a target is null "
                                           "without them).")
    synthetic.add_argument("--original", required=True, help="the original file (the records the release was made from)")
    synthetic.add_argument("--release", required=True, help="the released file: synthetic, masked or any release")
    synthetic.add_argument("--holdout", help="original records the generator did not see (dcr_share, membership)")
    synthetic.add_argument("--columns", metavar="A,B,...", help="the columns compared (default: every column of "
                           "--original)")
    synthetic.add_argument("--keys", metavar="A,B,...", help="the intruder's key variables (repu, disco)")
    synthetic.add_argument("--target", metavar="T", help="the sensitive variable of disco (with --keys)")
    synthetic.add_argument("--json", action="store_true", help="print one JSON object")
    synthetic.set_defaults(_risk_run=run_synthetic)
    return p


def run_synthetic(args: argparse.Namespace) -> int:
    """``risk synthetic``, run by :func:`rumap.cli.risk_synthetic.run`, imported only then.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags; returns the exit code.
    """
    from rumap.cli.risk_synthetic import run

    return run(args)


def run_frequencies(args: argparse.Namespace) -> int:
    """``risk frequencies``: the key frequency table of a file, out of core, written partition by partition.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk frequencies``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.scale import DEFAULT_CHUNK_SIZE, frequencies_file, scan

    if args.chunk_size is not None:
        check_flag("--chunk-size", "record_chunk", args.chunk_size)
    keys = _names(args.keys, "--keys")
    check_output_flags(args, ("--out",), ("--data",))
    result = frequencies_file(scan(args.data), keys, args.out, weight=args.weight,
                              chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, progress=not args.quiet,
                              overwrite=args.overwrite)
    payload = result.to_dict()
    lines = [f"key frequencies of {', '.join(payload['keys'])} ({payload['n']} records, out of core in "
             f"{result.partitions} partitions)",
             f"distinct key rows: {payload['distinct_rows']}; sample uniques: {payload['sample_uniques']}; records "
             f"with a missing key value: {payload['records_with_missing_keys']}"]
    if result.out is not None:
        lines.append(f"the table: {result.out}")
    return _emit(args, payload, lines)


def run(args: argparse.Namespace) -> int:
    """Run the chosen ``risk`` measure.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    runner: Callable[[argparse.Namespace], int] = args._risk_run
    return runner(args)


def _emit(args: argparse.Namespace, payload: dict, lines: list[str]) -> int:
    if args.json:
        from rumap.cli import print_json

        print_json(payload)
    else:
        print("\n".join(lines))
    return 0


def run_linkage(args: argparse.Namespace) -> int:
    """``risk linkage``: record linkage between ``--original`` and ``--masked``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk linkage``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.io.data import read_table
    from rumap.risk.linkage import distance_linkage, probabilistic_linkage

    check_flag("--tolerance", "tolerance", args.tolerance)  # whatever the method: no bad value passes silently
    check_flag("--block-size", "block_size", args.block_size)
    original, masked = read_table(args.original), read_table(args.masked)
    keys = _names(args.keys, "--keys")
    for frame, name in ((original, args.original), (masked, args.masked)):
        for key in keys or []:
            if key not in frame.columns:
                raise InputError(f"{name}: no column {key!r}; columns are {', '.join(frame.columns)}")
    if original.shape[0] != masked.shape[0]:
        raise InputError(f"{args.original} has {original.shape[0]} rows but {args.masked} has {masked.shape[0]}: "
                         "row i of the masked file must be the masked version of row i")
    if keys is None:
        missing = [c for c in original.columns if c not in masked.columns]
        if missing:
            raise InputError(f"{args.masked}: no column {missing[0]!r} (the original has it); choose --keys")
        keys = list(original.columns)
    if args.method == "distance":
        ordinal = _names(args.ordinal, "--ordinal") or []
        for name in ordinal:
            if name not in keys:
                raise InputError(f"--ordinal column {name!r} is not one of the keys ({', '.join(keys)})")
        result = distance_linkage(original[keys], masked[keys], keys, kinds={c: "ordinal" for c in ordinal},
                                  aggregation=args.aggregation, ties=args.ties, budget=budget_from_args(args))
    else:
        result = probabilistic_linkage(original[keys], masked[keys], keys, tolerance=args.tolerance,
                                       block_size=args.block_size, budget=budget_from_args(args))
    lines = [f"{result.method} record linkage on {', '.join(result.keys)} ({result.n} records)",
             f"linked correctly: {result.linked_correctly:.4f} ({result.n_correct} of {result.n}; "
             f"{result.n_tied} ties not counted)"]
    return _emit(args, result.to_dict(), lines)


def run_interval(args: argparse.Namespace) -> int:
    """``risk interval``: interval disclosure of ``--masked`` around ``--original``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk interval``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.io.data import read_table
    from rumap.risk.interval import interval_disclosure

    original, masked = read_table(args.original), read_table(args.masked)
    columns = _names(args.columns, "--columns")
    if columns is None:
        from rumap.io.data import numeric_column_names

        columns = numeric_column_names(original)
        if not columns:
            raise InputError(f"{args.original}: no numeric column")
    for frame, name in ((original, args.original), (masked, args.masked)):
        for col in columns:
            if col not in frame.columns:
                raise InputError(f"{name}: no column {col!r}; columns are {', '.join(frame.columns)}")
    result = interval_disclosure(original[columns], masked[columns], args.p, args.method, columns)
    lines = [f"{result.method} interval disclosure, p = {result.p:g}%, {result.n} records",
             *(f"  {c}: {r:.4f}" for c, r in zip(result.columns, result.per_variable, strict=True)),
             f"risk (share of original values inside their interval): {result.risk:.4f}"]
    return _emit(args, result.to_dict(), lines)


def _identity_from_figures(args: argparse.Namespace) -> int:
    from rumap.risk.identity import identification_risk, max_sample_fraction, multiple_investigators_risk

    if args.f is None or args.a is None or args.fu is None:
        raise InputError("identity risk from figures needs --f, --a and --fu (or use --data --keys --N --a)")
    if args.key is not None:
        raise InputError("--keys goes with --data")
    if args.investigators is not None:
        if args.N is None:
            raise InputError("--investigators needs --N (the population size)")
        risk = multiple_investigators_risk(args.f, args.a, args.fu, args.N, args.investigators)
        formula = "R_m = 1 - (1 - (E(a_m)/N) f_u)^(f N), E(a_m) = N - N (1 - a/N)^m (Mokken et al. Eq 19, 21)"
    else:
        risk = identification_risk(args.f, args.a, args.fu, args.N)
        formula = ("R = 1 - (1 - (a/N) f_u)^(f N) (Mokken et al. Eq 5)" if args.N is not None
                   else "R = 1 - exp(-f a f_u) (Mokken et al. Eq 6)")
    payload = {"risk": risk, "formula": formula, "f": args.f, "a": args.a, "f_u": args.fu, "N": args.N,
               "investigators": args.investigators}
    lines = [f"risk: {risk:.6g}", f"formula: {formula}"]
    if args.max_risk is not None and args.investigators is None:
        payload["f_max"] = max_sample_fraction(args.max_risk, args.a, args.fu, args.N)
        lines.append(f"largest sample fraction with risk <= {args.max_risk:g}: {payload['f_max']:.6g}")
    return _emit(args, payload, lines)


def run_identity(args: argparse.Namespace) -> int:
    """``risk identity``: identification risk from the key variables of a file, or from given figures.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk identity``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    if args.data is None:
        return _identity_from_figures(args)
    if args.key is None or args.N is None or args.a is None:
        raise InputError("identity risk from --data needs --keys, --N and --a")
    for flag, value in (("--f", args.f), ("--fu", args.fu), ("--investigators", args.investigators)):
        if value is not None:
            raise InputError(f"{flag} goes with the figures form (--f --a --fu), not with --data")
    if scale_engine(args, args.data, _names(args.key, "--keys")):
        from rumap.scale import identity_risk, scan

        result = identity_risk(scan(args.data), _names(args.key, "--keys"), args.N, args.a, max_risk=args.max_risk,
                               cells=args.cells, method=args.estimator)
    else:
        from rumap.io.data import read_table
        from rumap.risk.identity import identity_risk_from_data

        result = identity_risk_from_data(read_table(args.data), _names(args.key, "--keys"), args.N, args.a,
                                         max_risk=args.max_risk, cells=args.cells, method=args.estimator,
                                         source=args.data)
    lines = [f"key {' x '.join(result.key)}: {result.cells} cells, {result.observed_cells} observed, "
             f"{result.sample_uniques} sample uniques (n = {result.n}, f = {result.f:.6g})",
             f"Poisson-gamma beta = {result.beta:.6g} ({result.method}); estimated population uniques "
             f"{result.population_uniques:.6g} (f_u = {result.f_u:.6g})",
             f"risk with a = {result.a:g} acquaintances: {result.risk:.6g}"]
    if not math.isnan(result.f_max):
        lines.append(f"largest sample fraction with risk <= {result.max_risk:g}: {result.f_max:.6g}")
    return _emit(args, result.to_dict(), lines)


def run_individual(args: argparse.Namespace) -> int:
    """``risk individual``: per-record risk on categorical keys, with household risk and k-anonymity.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk individual``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.risk.individual import individual_risk

    if args.k is not None:
        check_flag("--k", "k", args.k)
    if args.scheduler is not None:
        return _individual_on_cluster(args)
    columns = [*_names(args.keys, "--keys"), *(c for c in (args.weight, args.household, args.sensitive) if c)]
    if (scale_engine(args, args.data, columns, memory_only="--merge" if args.merge else None)
            or (args.engine == "auto" and args.out is not None and not args.merge)):
        return _individual_scale(args)
    if args.out is not None:
        raise InputError("--out goes with --engine scale (in memory, --json lists every record's values)")
    frame = _recoded(args)
    try:
        result = individual_risk(frame, _names(args.keys, "--keys"), weight=args.weight, household=args.household,
                                 k=args.k, source=args.data, budget=budget_from_args(args))
    except InputError as exc:
        raise InputError(work_refusal(str(exc), scale=not args.merge)) from None
    lines = [f"individual risk on {', '.join(result.keys)} ({result.n} records, "
             f"{'weighted' if result.weighted else 'census: risk 1/f_k'})",
             f"expected re-identifications: {result.expected_reidentifications:.4f}",
             f"global risk: {result.global_risk:.6f}",
             f"highest individual risk: {result.risk.max():.4f} ({int((result.risk >= result.risk.max()).sum())} "
             "record(s))"]
    if result.household_risk is not None:
        lines.append(f"household expected re-identifications: {result.household_expected_reidentifications:.4f}")
    if result.k is not None:
        lines.append(f"records violating {result.k}-anonymity (f_k < {result.k}): {result.k_anonymity_violations}")
    payload = result.to_dict()
    if args.sensitive is not None:
        from rumap.risk.individual import l_diversity

        diversity = l_diversity(frame, list(result.keys), args.sensitive, source=args.data,
                                budget=budget_from_args(args))
        payload["l_diversity"] = diversity.tolist()
        payload["l_diversity_min"] = int(diversity.min())
        lines.append(f"distinct l-diversity of {args.sensitive}: at least {int(diversity.min())}; "
                     f"{int((diversity == 1).sum())} record(s) in a key group with one value")
    return _emit(args, payload, lines)


def _individual_on_cluster(args: argparse.Namespace) -> int:
    """``risk individual --scheduler ADDR``: the totals, from frequencies counted on a Dask cluster."""
    from rumap.scale.cluster import cluster_individual_risk

    for flag, value in (("--merge", args.merge), ("--out", args.out)):
        if value:
            raise InputError(f"{flag} works on one machine: drop --scheduler")
    if args.chunk_size is not None:
        check_flag("--chunk-size", "record_chunk", args.chunk_size)
    result = cluster_individual_risk(args.data, _names(args.keys, "--keys"), weight=args.weight, k=args.k,
                                     scheduler=args.scheduler, household=args.household, sensitive=args.sensitive,
                                     chunk_size=args.chunk_size)
    lines = [f"individual risk on {', '.join(result['keys'])} ({result['n']} records, "
             f"{'weighted' if result['weighted'] else 'census: risk 1/f_k'}; counted on {args.scheduler})",
             f"expected re-identifications: {result['expected_reidentifications']:.4f}",
             f"global risk: {result['global_risk']:.6f}", f"highest individual risk: {result['max_risk']:.4f}"]
    if "household_expected_reidentifications" in result:
        lines.append(f"household expected re-identifications: {result['household_expected_reidentifications']:.4f}")
    if args.k is not None:
        lines.append(f"records violating {args.k}-anonymity (f_k < {args.k}): {result['k_anonymity_violations']}")
    if args.sensitive is not None:
        lines.append(f"distinct l-diversity of {args.sensitive}: at least {result['l_diversity_min']}; "
                     f"{result['l_diversity_one']} record(s) in a key group with one value")
    return _emit(args, result, lines)


def _individual_scale(args: argparse.Namespace) -> int:
    """``risk individual`` out of core (:mod:`rumap.scale`): the totals, each record's values in ``--out``."""
    from rumap.scale import DEFAULT_CHUNK_SIZE, individual_risk, scan

    if args.merge:
        raise InputError("--merge goes with --engine memory: the scale engine does not recode keys")
    check_output_flags(args, ("--out",), ("--data",))
    result = individual_risk(scan(args.data), _names(args.keys, "--keys"), weight=args.weight,
                             household=args.household, k=args.k, sensitive=args.sensitive, out=args.out,
                             chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, progress=not args.quiet,
                             overwrite=args.overwrite)
    lines = [f"individual risk on {', '.join(result.keys)} ({result.n} records, "
             f"{'weighted' if result.weighted else 'census: risk 1/f_k'}; out of core, {result.distinct_rows} "
             "distinct key rows)",
             f"expected re-identifications: {result.expected_reidentifications:.4f}",
             f"global risk: {result.global_risk:.6f}",
             f"highest individual risk: {result.max_risk:.4f} ({result.records_at_max} record(s))"]
    if result.household_expected_reidentifications is not None:
        lines.append(f"household expected re-identifications: {result.household_expected_reidentifications:.4f}")
    if result.k is not None:
        lines.append(f"records violating {result.k}-anonymity (f_k < {result.k}): {result.k_anonymity_violations}")
    if result.sensitive is not None:
        lines.append(f"distinct l-diversity of {result.sensitive}: at least {result.l_diversity_min}; "
                     f"{result.l_diversity_one} record(s) in a key group with one value")
    if result.records_out is not None:
        lines.append(f"each record's values: {result.records_out}")
    return _emit(args, result.to_dict(), lines)


def run_keys(args: argparse.Namespace) -> int:
    """``risk keys``: the unsafe cells of every combination of key variables.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk keys``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.io.data import read_table
    from rumap.risk.keys import key_analysis

    frame = read_table(args.data)
    try:
        result = key_analysis(frame, _names(args.keys, "--keys"), dimension=args.dimension, threshold=args.threshold,
                              source=args.data, budget=budget_from_args(args))
    except InputError as exc:  # name the flags, not the function's arguments
        raise InputError(str(exc).replace("dimension must", "--dimension must").replace(
            "threshold must", "--threshold must")) from None
    table = result.combinations
    lines = [f"{len(table)} combinations of {', '.join(result.keys)} up to dimension {result.dimension}; "
             f"unsafe: fewer than {result.threshold} records",
             f"records in at least one unsafe cell: {int(result.records_at_risk.sum())} of {len(frame)}",
             table.head(20).to_string(index=False), "", result.variables.to_string(index=False)]
    return _emit(args, result.to_dict(), lines)


def _recoded(args: argparse.Namespace):
    """``--data`` read, with the global recoding of its ``--merge`` flags applied."""
    from rumap.io.data import read_table

    frame = read_table(args.data)
    mapping = merge_flags(args.merge)
    if not mapping:
        return frame
    from rumap.masking.categorical import recode

    return recode(frame, mapping, source=args.data)


def run_suda(args: argparse.Namespace) -> int:
    """``risk suda``: SUDA2 minimal sample uniques, SUDA and DIS scores of every record.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk suda``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.risk.suda import suda2

    if args.max_size is not None:
        check_flag("--max-size", "max_size", args.max_size)
    check_flag("--dis-fraction", "dis_fraction", args.dis_fraction)
    keys = _names(args.keys, "--keys")
    if args.max_size is not None and args.max_size > len(keys):
        raise InputError(f"--max-size ({args.max_size}) cannot exceed the number of --keys ({len(keys)})")
    if (scale_engine(args, args.data, keys, memory_only="--merge" if args.merge else None)
            or (args.engine == "auto" and args.out is not None and not args.merge)):
        return _suda_scale(args, keys)
    if args.out is not None:
        raise InputError("--out goes with --engine scale (in memory, --json lists every record's values)")
    frame = _recoded(args)
    try:
        result = suda2(frame, keys, max_size=args.max_size, dis_fraction=args.dis_fraction, source=args.data,
                       budget=budget_from_args(args))
    except InputError as exc:
        raise InputError(work_refusal(str(exc), scale=not args.merge)) from None
    payload = result.to_dict()
    return _emit(args, payload, _suda_lines(payload, result.score.max(), result.dis_score.max()))


def _suda_lines(payload: dict, max_score: float, max_dis_score: float, where: str = "") -> list[str]:
    """The lines of ``risk suda`` from the totals of its JSON (in memory or out of core)."""
    return [f"SUDA2 on {', '.join(payload['keys'])} ({payload['n']} records; MSUs up to size "
            f"{payload['max_size']}{where})",
            f"special uniques (records with an MSU): {payload['special_uniques']}; sample uniques: "
            f"{payload['sample_uniques']}",
            "MSUs by size: " + ", ".join(f"{k}: {c}" for k, c in payload["msus_by_size"].items()),
            f"DIS (sampling fraction {payload['dis_fraction']:g}): {payload['dis']:.6f}",
            f"highest SUDA score: {max_score:g}; highest DIS score: {max_dis_score:.6f}",
            "MSUs per variable: " + ", ".join(f"{v['variable']}: {v['msus']}" for v in payload["variables"])]


def _suda_scale(args: argparse.Namespace, keys: list[str]) -> int:
    """``risk suda`` out of core (:mod:`rumap.scale.suda`): the totals, each record's values in ``--out``."""
    from rumap.scale import DEFAULT_CHUNK_SIZE, scan
    from rumap.scale.suda import suda_file

    if args.merge:
        raise InputError("--merge goes with --engine memory: the scale engine does not recode keys")
    check_output_flags(args, ("--out",), ("--data",))
    try:
        result = suda_file(scan(args.data), keys, args.out, max_size=args.max_size, dis_fraction=args.dis_fraction,
                           chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE, progress=not args.quiet,
                           budget=budget_from_args(args), overwrite=args.overwrite)
    except InputError as exc:
        raise InputError(work_refusal(str(exc), scale=False)) from None
    payload = result.to_dict()
    lines = _suda_lines(payload, result.max_score, result.max_dis_score,
                        f"; out of core, {result.distinct_rows} distinct key rows")
    if result.out is not None:
        lines.append(f"each record's values: {result.out}")
    return _emit(args, payload, lines)
