"""``python -m rumap release``: apply a release plan (or one step) to a data file, write the protected file and a report.

``--plan PLAN.json`` gives the steps; or one step from ``--method`` and the
parameter flags of ``simulate``, each with one value. The output format follows
the extension of ``--out``; the other columns pass through unchanged, in their
order, and a suppressed value is missing. ``--json`` prints one object whose
``steps`` are a plan for the next run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rumap.cli.engine import AUTO_MEMORY_BYTES, ENGINE_NAMES
from rumap.cli.flags import (
    TARGET_FORMS,
    WRITER_SUFFIXES,
    add_overwrite_flag,
    add_record_flag,
    add_work_limit,
    budget_from_args,
    check_flag,
    check_needs,
    check_output_flags,
    split_names,
)
from rumap.cli.progress import Progress, add_progress_flag
from rumap.errors import InputError
from rumap.maps.methods import METHODS
from rumap.release.registry import STEP_METHODS

if TYPE_CHECKING:
    from collections.abc import Callable

    from rumap.release.plan import ReleasePlan, Step

# The registry of step methods loads without pandas or scipy (each record imports its kernels when it runs), so that
# ``release --help`` starts quickly with every method's flags read from its record.


def step_method_names() -> tuple[str, ...]:
    """The methods of ``--method``: every step method of the microdata stage, in the registry's order.

    Returns
    -------
    tuple of str
    """
    return tuple(name for name, record in STEP_METHODS.items() if record.stage == "microdata")


def __getattr__(name: str) -> tuple[str, ...]:
    """``STEP_METHOD_NAMES``: :func:`step_method_names` of the methods registered when it is asked for."""
    if name == "STEP_METHOD_NAMES":
        return step_method_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


HELP = "apply a release plan (or one masking step) to a data file: the protected file and a report"

#: Report formats, by extension.
REPORT_FORMATS = (".html", ".json")
#: Simulated releases behind each map prediction unless --replicates says otherwise.
DEFAULT_REPLICATES = 50  # rumap.release.spec.DEFAULT_REPLICATES (tests/cli/test_startup.py checks)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``release`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("release", help=HELP, description=HELP)
    p.add_argument("--data", required=True, help="data file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS); a Parquet "
                   "file may be over the size limit")
    p.add_argument("--out", required=True, metavar="FILE", help=f"the protected file ({', '.join(WRITER_SUFFIXES)})")
    p.add_argument("--plan", metavar="PLAN.json", help="the release plan (a JSON object with a steps list)")
    p.add_argument("--report", metavar="REPORT", help="write the release report (.html or .json)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    step = p.add_argument_group("one step instead of --plan")
    step.add_argument("--method", choices=list(step_method_names()),
                      help="the masking method (a table's steps go in a --plan)")
    step.add_argument("--columns", metavar="A,B,...", help="numeric columns (noise, microaggregation, rankswap); "
                      "synthesize: the columns synthesised first, in order (default: every column; the others follow)")
    step.add_argument("--keys", metavar="A,B,...", help="categorical keys (" + ", ".join(
        name for name in step_method_names() if STEP_METHODS[name].target == "keys") + ")")
    step.add_argument("--seed", type=int, help="seed of the step's random numbers (default 0)")
    step.add_argument("--lambda2", type=float, help="noise: the noise variance (data units squared)")
    step.add_argument("--lambda2-frac", type=float, help="noise: the noise variance as a fraction of each variable's")
    step.add_argument("--swap-percent", type=float, help="rankswap: the window, %% of the records")
    step.add_argument("--truncate-below", type=float, metavar="V", help="noise: release max(V, x + e)")
    step.add_argument("--truncate-above", type=float, metavar="V", help="noise: release min(V, x + e)")
    unequal = step.add_mutually_exclusive_group()
    unequal.add_argument("--unequal-above", type=float, metavar="T",
                         help="noise: multiply the noise variance of records whose --target-column is above T by "
                              "--unequal-factor")
    unequal.add_argument("--unequal-below", type=float, metavar="T", help="noise: the same for records below T")
    step.add_argument("--unequal-factor", type=float, metavar="F", help="noise: variance factor (default 2)")
    step.add_argument("--target-column", metavar="COL", help="noise: the column of --unequal-above/below "
                                                              "(default: the first)")
    step.add_argument("--correlated", action="store_true", help="noise: correlated like the data (Kim 1986)")
    step.add_argument("--algorithm", help="microaggregation: mdav, mwa, fixed, individual, optimal, mdav_partitioned or optimal_pc1 (default mdav)")
    step.add_argument("--standardize", action="store_true", help="microaggregation: form groups on z-scores")
    step.add_argument("--criterion", help="microaggregation: sorting criterion of 'fixed' (default pc1)")
    _add_record_flags(step)
    _add_step_flags(step)
    report = p.add_argument_group("report")
    report.add_argument("--weight", metavar="W", help="sampling weight column (risk on the categorical keys)")
    report.add_argument("--replicates", type=int, metavar="M",
                        help=f"simulated releases behind each step's map prediction (default {DEFAULT_REPLICATES})")
    report.add_argument("--no-prediction", action="store_true", help="leave the maps' predictions out")
    report.add_argument("--target", action="append", metavar="TARGET",
                        help=f"repeatable: the snooper's target on a numeric step's first column, {TARGET_FORMS} "
                             "(default max)")
    scale = p.add_argument_group("a Parquet file larger than memory")
    scale.add_argument("--engine", default="auto", choices=list(ENGINE_NAMES),
                       help="memory: the whole file in memory, with the report; scale: the plan applied chunk by "
                            "chunk (--chunk-size, default 1,000,000); auto (default): chunk by chunk when the file's "
                            f"columns would take more than {AUTO_MEMORY_BYTES // 2**20} MB in memory, --data and --out "
                            "are Parquet files, every step streams and no report flag (--report, --weight, "
                            "--replicates, --target) is given")
    scale.add_argument("--chunk-size", type=int, metavar="R",
                       help="apply the plan R records at a time, from a .parquet --data to a .parquet --out: memory "
                            "grows with R, not with the file; microaggregation, rankswap and suppress hold their own "
                            "columns of every record (8 bytes a value, 4 a key's code) and their result, not the "
                            "other columns; no table steps, report or predictions")
    add_overwrite_flag(p)
    add_work_limit(p)
    add_progress_flag(p)
    return p


def _add_record_flags(group: argparse._ArgumentGroup) -> None:
    """The flags of a masking method's release step that the flags above do not give, from its record: its grid
    parameter (one value) and its options, each stored under its parameter's name."""
    taken = set(group._option_string_actions)
    for name, method in METHODS.items():
        if method.release is None:
            continue
        for grid in method.grids:
            if grid.flag.flag not in taken:
                taken.add(grid.flag.flag)
                group.add_argument(grid.flag.flag, dest=grid.name, type=int if grid.integer else float,
                                   help=f"{name}: the {grid.label} ({grid.units})")
        for option in method.options:
            flag = option.flag
            if flag is None or flag.flag in taken:
                continue
            taken.add(flag.flag)
            if flag.type is None:
                group.add_argument(flag.flag, dest=option.name, action="store_true", help=f"{name}: {flag.help}")
            else:
                group.add_argument(flag.flag, dest=option.name, type=flag.type, metavar=flag.metavar,
                                   help=f"{name}: {flag.help}")


def _add_step_flags(group: argparse._ArgumentGroup) -> None:
    """The flags each step method's record declares (:attr:`rumap.release.methods.StepMethod.flags` and
    ``text_flags``), each added once; a flag several methods declare says what it is for each."""
    for name in step_method_names():
        record = STEP_METHODS[name]
        for flag in (*record.flags, *record.text_flags):
            add_record_flag(group, name, flag)


def _parameter_flags() -> dict[str, tuple[str, str]]:
    """Step parameter -> (attribute of the parsed flags, flag), for the flags that give one parameter each."""
    released = [method for method in METHODS.values() if method.release is not None]
    return {
        **{g.name: (g.name, g.flag.flag) for method in released for g in method.grids},
        **{o.name: (o.name, o.flag.flag) for method in released for o in method.options if o.flag is not None},
        **{flag.dest: (flag.dest, flag.flag) for record in STEP_METHODS.values() for flag in record.flags},
        "unequal_column": ("target_column", "--target-column"),
    }

def _text_flags() -> dict[str, str]:
    """Flags that build a parameter of one method from their text, each with the first method whose record names it."""
    out: dict[str, str] = {}
    for name, record in STEP_METHODS.items():
        for flag in record.text_flags:
            out.setdefault(flag.flag, name)
    return out


def _text_parameters(args: argparse.Namespace) -> dict:
    """The parameters the text flags give, read by the record of ``--method`` (a flag of another method refused)."""
    record = STEP_METHODS[args.method]
    own = {flag.flag for flag in record.text_flags}
    methods = _text_flags()
    given = {}
    for flag in methods:
        value = getattr(args, flag.lstrip("-").replace("-", "_"), None)
        if value in (None, []):
            continue
        if flag not in own:
            raise InputError(f"{flag} applies to --method {methods[flag]}, not {args.method}")
        given[flag] = value
    return record.read_flags(given) if given and record.read_flags is not None else {}


def step_from_args(args: argparse.Namespace) -> Step:
    """The one step that ``--method`` and the parameter flags describe.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``release``.

    Returns
    -------
    Step
    """
    from rumap.release.plan import Step

    record = STEP_METHODS[args.method]
    parameters = {}
    parameter_flags = _parameter_flags()
    for name, (attribute, flag) in parameter_flags.items():
        value = getattr(args, attribute, None)  # a flag of a method registered after the parser was made
        if value is None or value is False:  # not given (0 is a value: `0 in (None, False)` would drop it)
            continue
        if name not in record.parameters:
            raise InputError(f"{flag} does not apply to --method {args.method}")
        parameters[name] = value
    if args.method in METHODS:  # an option that does nothing without another (--unequal-factor alone)
        check_needs(METHODS[args.method].options, parameters,
                    {name: flag for name, (_attribute, flag) in parameter_flags.items()})
    parameters.update(_text_parameters(args))
    if args.seed is not None:
        check_flag("--seed", "seed", args.seed)
    target, other = ("--columns", "--keys") if record.target == "columns" else ("--keys", "--columns")
    if getattr(args, other.lstrip("-")) is not None:
        raise InputError(f"--method {args.method} protects {target.lstrip('-')}: give {target}, not {other}")
    text = getattr(args, target.lstrip("-"))
    if text is None and not record.every_column:
        raise InputError(f"--method {args.method} needs {target}")
    names = None if text is None else split_names(text, target)
    try:
        return Step(args.method, parameters, seed=args.seed, **{target.lstrip("-"): names})
    except InputError as exc:  # a parameter's message names the flag that gave it
        message = str(exc)
        for name, (_attribute, flag) in parameter_flags.items():
            message = message.replace(f"parameter {name} ", f"{flag} ", 1)
        raise InputError(message) from None


def _named_by_flags(message: str, args: argparse.Namespace) -> str:
    """A step's message with its parameter named by the flag that gave it (one step), a plan's by its key."""
    if args.method is not None:
        for name, (_attribute, flag) in _parameter_flags().items():
            message = message.replace(f"steps[0].parameters.{name} ", f"{flag} ", 1)
    return message


def _plan(args: argparse.Namespace) -> ReleasePlan:
    from rumap.io.data import read_file_bytes
    from rumap.release.plan import ReleasePlan, read_plan

    if (args.plan is None) == (args.method is None):
        raise InputError("give --plan PLAN.json or --method METHOD (one step), one of them")
    if args.method is not None:
        return ReleasePlan((step_from_args(args),))
    # every flag of the one-step group, from the tables that map them to a step's parameters
    step_flags = [("--columns", "columns"), ("--keys", "keys"), ("--seed", "seed"),
                  *((flag, attribute) for attribute, flag in _parameter_flags().values()),
                  *((flag, flag.lstrip("-").replace("-", "_")) for flag in _text_flags())]
    stray = [flag for flag, attribute in step_flags if getattr(args, attribute, None) not in (None, False, [])]
    if stray:
        raise InputError(f"{stray[0]} goes with --method (one step); a plan's steps carry their own")
    content = read_file_bytes(args.plan, name=f"--plan {args.plan}")
    try:
        return read_plan(content)
    except InputError as exc:
        raise InputError(f"--plan {args.plan}: {exc}") from None


def _decided_elsewhere(plan, frame) -> list[int]:
    """The 1-based numbers of the plan's steps whose map was drawn on a table of another fingerprint."""
    from rumap.fingerprint import frame_digest

    drawn_on = [(i + 1, step.origin.get("data")) for i, step in enumerate(plan.steps) if step.origin]
    if not any(data for _, data in drawn_on):
        return []
    here = frame_digest(frame)
    return [i for i, data in drawn_on if data and data != here]


def run(args: argparse.Namespace) -> int:
    """Apply the plan to ``--data``, write ``--out`` (and ``--report``) and print what was released.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``release``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap import __version__
    from rumap.fingerprint import bytes_digest
    from rumap.io.data import WRITERS, read_table, table_bytes, write_files
    from rumap.io.formats import file_digest
    from rumap.io.parquet import is_parquet, read_parquet_frame
    from rumap.io.table_size import table_shape
    from rumap.maps.attacks import parse_target
    from rumap.present.release_report import (
        above_sentences,
        decision_sentence,
        release_report_html,
        release_report_json,
    )
    from rumap.release.apply import apply_plan, check_plan_work
    from rumap.release.report import release_report
    from rumap.risk.individual import sampling_weights

    out = Path(args.out)
    if out.suffix.lower() not in WRITERS:
        raise InputError(f"--out {args.out}: unknown format {out.suffix or '(no extension)'!r}; "
                         f"use one of {', '.join(WRITERS)}")
    report_path = Path(args.report) if args.report else None
    if report_path is not None and report_path.suffix.lower() not in REPORT_FORMATS:
        raise InputError(f"--report {args.report}: unknown format {report_path.suffix or '(no extension)'!r}; "
                         f"use one of {', '.join(REPORT_FORMATS)}")
    if args.no_prediction and (args.replicates is not None or args.target):
        raise InputError("--replicates and --target shape the maps' predictions: drop them or --no-prediction")
    replicates = DEFAULT_REPLICATES if args.replicates is None else args.replicates
    if not args.no_prediction:
        check_flag("--replicates", "prediction_replicates", replicates)
    targets = tuple(args.target or ("max",))
    for target in targets:
        try:
            parse_target(target)
        except InputError as exc:
            raise InputError(f"--target: {exc}") from None
    plan = _plan(args)
    check_output_flags(args, ("--out", "--report"), ("--data", "--plan"))
    progress = Progress(args.progress)
    chunks = _chunks(args, plan, out)
    if chunks is not None:
        return _run_streamed(args, plan, out, progress, *chunks)
    budget = budget_from_args(args)
    lighter = _lighter(args, plan, out)
    shape = table_shape(args.data) if is_parquet(args.data) else None
    if shape is not None:  # the plan's work from the file's metadata, before it is read
        check_plan_work(plan, shape.rows, len(shape.columns), budget, None if args.no_prediction else replicates,
                        lighter)
    progress.stage(f"reading {args.data}")
    frame = read_parquet_frame(args.data) if is_parquet(args.data) else read_table(args.data)
    progress.stage(f"read {frame.shape[0]} records x {frame.shape[1]} columns; applying {len(plan.steps)} step(s)")
    if args.weight is not None:
        if args.weight not in frame.columns:
            raise InputError(f"{args.data}: no column {args.weight!r} (--weight)")
        if not any(step.keys for step in plan.steps):
            raise InputError("--weight weighs the risk on categorical keys, and no step of the plan has keys")
        sampling_weights(frame, args.weight, [], args.data)  # numbers >= 1, refused before any work
    elsewhere = _decided_elsewhere(plan, frame)
    if elsewhere:
        print(f"warning: step(s) {', '.join(map(str, elsewhere))} of the plan were decided on a map of other data "
              f"than {args.data}: the risk their maps promised does not hold for this file", file=sys.stderr)
    # the plan's work with the report's predictions, before any step
    check_plan_work(plan, frame.shape[0], frame.shape[1], budget, None if args.no_prediction else replicates,
                    lighter)
    try:
        result = apply_plan(frame, plan, source=args.data, between=out.name, budget=budget)
    except InputError as exc:
        raise InputError(_named_by_flags(str(exc), args)) from None
    progress.stage("steps applied; the report" + ("" if args.no_prediction else
                                                  f" with each step's map ({replicates} simulated releases)"))
    try:
        report = release_report(frame, result, weight=args.weight, replicates=None if args.no_prediction
                                else replicates, budget=budget, targets=targets)
    except InputError as exc:
        raise InputError(str(exc).replace("targets", "--target", 1)) from None
    progress.stage(f"report done; writing {out}")
    content = table_bytes(result.data, str(out), "--out")
    files = [("--out", out, content)]
    if report_path is not None:
        text = release_report_json(report) if report_path.suffix.lower() == ".json" else release_report_html(report)
        files.append(("--report", report_path, text.encode("utf-8")))
    write_files(files, args.overwrite)  # both or neither
    summary = {"out": str(out), "rows": int(result.data.shape[0]), "columns": int(result.data.shape[1]),
               "sha256_in": file_digest(args.data), "sha256_out": bytes_digest(content),
               "steps": [s.to_dict() for s in plan.steps],
               "step_summaries": [dict(o.summary) for o in result.outcomes],
               "risk": report.risk(), "utility": report.utility(),
               "predictions": [{"step": i + 1, "checks": [c.to_dict() for c in s.checks], "note": s.prediction,
                                "decision": dict(s.decision)} for i, s in enumerate(report.steps)],
               "notes": list(report.notes), "report": str(report_path) if report_path else None,
               "rumap_version": __version__, "unreached": list(report.unreached)}
    if args.json:
        from rumap.cli import print_json

        print_json(summary)
        return 0
    print(f"released {summary['rows']} records of {args.data} to {out} in {len(plan.steps)} step(s)")
    for i, s in enumerate(report.steps):
        flags = [f"{c.measure} {c.value:.4g} (map {c.mean:.4g}, one release "
                 f"{c.draw_band[0]:.4g} to {c.draw_band[1]:.4g}{', OUTSIDE' if c.outside else ''}"
                 f"{f', ABOVE R_max {c.max_risk:.4g} (target of rank {c.rank})' if c.above_bound else ''})"
                 for c in s.checks]
        print(f"step {i + 1}: {s.step.method} {s.step.parameters} on {', '.join(s.step.names)}"
              + (f"; {'; '.join(flags)}" if flags else ""))
        if s.decision:
            for line in (decision_sentence(s.decision), *above_sentences(s.decision)):
                print(f"  {line}")
    if report.numeric and report.numeric["linkage"] is not None:
        print(f"numeric: linked to own original {report.numeric['linkage']:.4f}, interval disclosure "
              f"{report.numeric['interval_rank']:.4f}, SSE/SST {report.numeric['sse_sst']:.4g}")
    if report.categorical:
        before, after = report.categorical["before"], report.categorical["after"]
        print(f"keys: global risk {before['global_risk']:.6f} -> {after['global_risk']:.6f}; suppressed "
              f"{sum(report.categorical['suppressed'].values())}, changed {sum(report.categorical['changed'].values())}")
    if report.table:
        table = report.table
        done = {"secondary suppression": f"{table.get('suppressed')} cells suppressed, cost {table.get('cost', 0):g}",
                "controlled rounding": f"rounded to base {table.get('base', 0):g}",
                None: f"{table.get('suppressed')} primary cells left out"}[table["protection"]]
        print(f"table: {table['rows']} x {table['columns']} ({table['kind']}), {len(table['primary'])} primary "
              f"cell(s); {done}")
    for line in report.unreached:
        print(f"NOT REACHED: {line}")
    for note in report.notes:
        print(f"note: {note}")
    if report_path is not None:
        print(f"report written: {report_path}")
    return 0


def _can_stream(args: argparse.Namespace, plan: ReleasePlan, out: Path) -> bool:
    """Whether the plan can be applied chunk by chunk: a Parquet ``--data`` and ``--out``, and every step streams."""
    from rumap.io.parquet import is_parquet
    from rumap.release.stream import check_streamed

    if not (is_parquet(args.data) and is_parquet(out)):
        return False
    try:
        check_streamed(plan)
    except InputError:
        return False
    return True


def _lighter(args: argparse.Namespace, plan: ReleasePlan, out: Path) -> Callable[[int], str]:
    """What would fit the work limit, in ``release``'s flags: fewer simulated releases (``fits`` at most) or
    none, or the plan applied chunk by chunk when it can be."""
    def words(fits: int) -> str:
        options = [] if args.no_prediction else [(f"--replicates {fits} or " if fits >= 1 else "") + "--no-prediction"]
        if _can_stream(args, plan, out):
            options.append("--engine scale (the plan applied chunk by chunk, without the report)")
        return "give " + ", or ".join(options) if options else "ask for less"

    return words


#: Records per chunk of a release the scale engine runs without --chunk-size.
DEFAULT_CHUNK_RECORDS = 1_000_000


def _chunks(args: argparse.Namespace, plan: ReleasePlan, out: Path) -> tuple[int, str] | None:
    """The records per chunk when the plan is applied chunk by chunk, and why if the engine chose it: ``--chunk-size``
    or ``--engine scale``, or ``--engine auto`` on a Parquet file whose columns would take more than
    :data:`AUTO_MEMORY_BYTES` in memory, to a Parquet ``--out``, when every step streams and no flag asks for the
    report. None: the file is read into memory."""
    if args.engine == "memory":
        if args.chunk_size is not None:
            raise InputError("--chunk-size goes with --engine scale or auto (--engine memory reads the whole file)")
        return None
    if args.chunk_size is not None or args.engine == "scale":
        return (DEFAULT_CHUNK_RECORDS if args.chunk_size is None else args.chunk_size), ""
    from rumap.io.table_size import in_memory_bytes, table_shape

    if any((args.report, args.weight, args.replicates, args.target)) or not _can_stream(args, plan, out):
        return None  # the report asked for, or a step that needs the whole file: in memory
    shape = table_shape(args.data)
    size = None if shape is None else in_memory_bytes(shape, None)
    if size is None or size <= AUTO_MEMORY_BYTES:
        return None
    return DEFAULT_CHUNK_RECORDS, (f"{args.data}'s {shape.rows:,} records x {len(shape.columns)} columns would take "
                                   f"{size / 2**20:,.0f} MB in memory, so --engine auto applied the plan chunk by "
                                   "chunk; --engine memory gives the report")


def _run_streamed(args: argparse.Namespace, plan: ReleasePlan, out: Path, progress: Progress, chunk_size: int,
                  why: str = "") -> int:
    """``release --chunk-size R``: the plan applied chunk by chunk (:mod:`rumap.release.stream`), the same keys."""
    from rumap import __version__
    from rumap.io.parquet import is_parquet
    from rumap.release.apply import unreached
    from rumap.release.stream import file_digest, release_in_chunks

    check_flag("--chunk-size", "record_chunk", chunk_size)
    flag = "--chunk-size" if args.chunk_size is not None else "--engine scale"  # what asked for the chunks
    if not (is_parquet(args.data) and is_parquet(out)):
        raise InputError(f"{flag} reads a .parquet --data and writes a .parquet --out")
    given = [flag for flag, value in (("--report", args.report), ("--weight", args.weight),
                                      ("--replicates", args.replicates), ("--target", args.target)) if value]
    if given:
        raise InputError(f"{', '.join(given)} shape the report, which {flag} does not make (it needs the "
                         "whole file in memory)")
    progress.stage(f"applying {len(plan.steps)} step(s) to {args.data}, {chunk_size} records at a time")
    try:
        done = release_in_chunks(args.data, plan, out, chunk_size, source=args.data,
                                 progress=lambda rows: progress.stage(f"{rows} records written"),
                                 budget=budget_from_args(args), stage=progress.stage, overwrite=args.overwrite)
    except InputError as exc:
        raise InputError(f"{flag}: {_named_by_flags(str(exc), args)}") from None
    note = (f"applied chunk by chunk ({chunk_size} records, {done.chunks} chunks, {done.passes} pass(es) over "
            "the file): no report, risk, utility or predictions (they need the whole file in memory)")
    summary = {"out": str(out), "rows": done.rows, "columns": done.columns, "sha256_in": file_digest(args.data),
               "sha256_out": file_digest(out), "steps": [s.to_dict() for s in plan.steps],
               "step_summaries": [dict(summary) for summary in done.summaries], "risk": None, "utility": None, "predictions": [],
               "notes": [note, *([why] if why else [])], "report": None, "rumap_version": __version__,
               "unreached": unreached(plan.steps, done.summaries)}
    if args.json:
        from rumap.cli import print_json

        print_json(summary)
        return 0
    print(f"released {done.rows} records of {args.data} to {out} in {len(plan.steps)} step(s)")
    for line in summary["unreached"]:
        print(f"NOT REACHED: {line}")
    for line in summary["notes"]:
        print(f"note: {line}")
    return 0
