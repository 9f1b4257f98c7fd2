"""``python -m rumap protect recode|suppress|pram|granularity|swap|...``: protect categorical key variables of a file.

Each prints what the protection did (counts, never data values) and the risk
before and after; ``--out`` writes the protected file. Every other protection of
keys in the registry of release steps is a subcommand made from its record
(:mod:`rumap.cli.protect_step`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rumap.cli.engine import add_engine_flags, scale_engine, work_refusal
from rumap.cli.flags import (
    WRITER_SUFFIXES,
    add_merge_flag,
    add_method_flag,
    add_overwrite_flag,
    add_work_limit,
    budget_from_args,
    check_flag,
    check_output_flags,
    merge_flags,
    split_names,
    variable_number,
)
from rumap.errors import InputError
from rumap.release.granularity_step import GRANULARITY_STEP
from rumap.release.pram_step import PRAM_STEP
from rumap.release.suppress_step import SUPPRESS_STEP

if TYPE_CHECKING:
    import pandas as pd

HELP = "protect categorical key variables: global recoding, local suppression, PRAM, granularity, targeted swapping"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``protect`` subcommand and its methods.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("protect", help=HELP, description=HELP)
    sub = p.add_subparsers(dest="protect_command", metavar="METHOD", parser_class=type(p))
    sub.required = True

    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--data", required=True, help="microdata file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
        parser.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables")
        parser.add_argument("--weight", metavar="W", help="sampling weight column (for the risk before and after)")
        parser.add_argument("--out", metavar="FILE", help=f"write the protected file ({', '.join(WRITER_SUFFIXES)})")
        add_overwrite_flag(parser)
        add_work_limit(parser)
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        add_engine_flags(parser)
        parser.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address: count and transform the "
                                                                "records of a CSV or Parquet file on its workers, "
                                                                "decide and write --out here (a path the workers "
                                                                "can read, for the risk after)")

    rec = sub.add_parser("recode", help="global recoding: merge categories, band numbers, top/bottom coding")
    common(rec)
    add_merge_flag(rec)
    rec.add_argument("--band", action="append", default=[], metavar="VAR:WIDTH",
                     help="band the numeric VAR into intervals of WIDTH (repeatable)")
    rec.add_argument("--top", action="append", default=[], metavar="VAR:LIMIT", help="top-code VAR above LIMIT")
    rec.add_argument("--bottom", action="append", default=[], metavar="VAR:LIMIT", help="bottom-code VAR below LIMIT")
    rec.set_defaults(_protect_run=run_recode)

    sup = sub.add_parser("suppress", help="local suppression to k-anonymity or a risk threshold (mu-Argus rule)")
    common(sup)
    own = (*SUPPRESS_STEP.flags, *SUPPRESS_STEP.text_flags)  # the flags of the release step, from its record
    add_method_flag(sup, own, "--k")
    sup.add_argument("--max-risk", type=float, help="reach individual risk at most this")
    add_method_flag(sup, own, "--importance")
    add_method_flag(sup, own, "--optimal")
    sup.add_argument("--household", metavar="H", help="household identifier column, with --household-variables")
    sup.add_argument("--household-variables", metavar="A,B,...",
                     help="keys the same for a whole household (region, household size): suppressed in one member, "
                          "suppressed in all")
    sup.set_defaults(_protect_run=run_suppress)

    pr = sub.add_parser("pram", help="invariant PRAM with a retention probability")
    common(pr)
    add_method_flag(pr, PRAM_STEP.flags, "--theta", required=True)
    pr.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    pr.set_defaults(_protect_run=run_pram)
    _add_granularity(sub)
    from rumap.cli.protect_swap import add_swap_parser

    add_swap_parser(sub).set_defaults(_protect_run=_run_swap)
    from rumap.cli.protect_step import add_step_parsers

    add_step_parsers(sub, _read, _finish)  # every other protection of keys, from its record
    return p


def _add_granularity(sub: argparse._SubParsersAction) -> None:
    """``protect granularity``: Mas's elimination of granularity from the tables of 2 and 3 keys."""
    g = sub.add_parser("granularity", help="merge categories or suppress key values until no hyper-row of the "
                                            "tables of 2 and 3 keys reaches the level, after Mas")
    g.add_argument("--data", required=True, help="microdata file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    g.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables (at least 2)")
    add_method_flag(g, GRANULARITY_STEP.flags, "--level", default=50.0, metavar="L")
    g.add_argument("--types", default="proportional,odd,dispersed", metavar="T,...",
                   help="types eliminated: proportional, odd, dispersed (default all)")
    moves = g.add_mutually_exclusive_group()
    moves.add_argument("--merge-only", action="store_true", help="only merge categories")
    moves.add_argument("--suppress-only", action="store_true", help="only suppress key values")
    g.add_argument("--hierarchy", action="append", default=[], metavar="A=FILE",
                   help="merges allowed in A: a tau-Argus .hrc file or a parent,child CSV; only two categories "
                        "under one parent merge (repeatable)")
    g.add_argument("--population", action="append", default=[], metavar="A=FILE",
                   help="the population distribution of A that odd cells are judged by: a table of A's categories "
                        "(first column) and their frequencies (second) (repeatable; default the tables' margins)")
    g.add_argument("--ordered", metavar="A,B,...", help="the ordered keys (default: those whose every category "
                                                         "begins with a number)")
    g.add_argument("--dispersed-frequency", type=int, default=5, metavar="F",
                   help="a unit cell is dispersed when its neighbours hold at least F records (default 5)")
    g.add_argument("--odd-expected", type=float, default=5.0, metavar="E",
                   help="a unit cell is odd when at least E records are expected in it (default 5)")
    g.add_argument("--weight", metavar="W", help="sampling weight column (for the risk before and after)")
    g.add_argument("--out", metavar="FILE", help=f"write the protected file ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(g)
    add_work_limit(g)
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.set_defaults(_protect_run=_run_granularity)


def _run_swap(args: argparse.Namespace) -> int:
    from rumap.cli.protect_swap import run_swap

    return run_swap(args, _read, _finish)


def _run_granularity(args: argparse.Namespace) -> int:
    from rumap.cli.protect_granularity import run_granularity

    return run_granularity(args, _read, _finish)


def _finish(args: argparse.Namespace, frame: pd.DataFrame, protected: pd.DataFrame, keys: list[str],
            summary: dict, lines: list[str]) -> int:
    from rumap.io.data import write_table
    from rumap.risk.individual import individual_risk

    try:
        before = individual_risk(frame, keys, weight=args.weight, source=args.data, budget=budget_from_args(args))
        after = individual_risk(protected, keys, weight=args.weight, source=args.data, budget=budget_from_args(args))
    except InputError as exc:
        raise InputError(work_refusal(str(exc), scale=not getattr(args, "optimal", False))) from None
    if args.out is not None:
        write_table(protected, args.out, "--out", args.overwrite)
    return _report(args, {**summary, "n": int(frame.shape[0])}, lines, before, after)


def _report(args: argparse.Namespace, summary: dict, lines: list[str], before: Any, after: Any) -> int:
    """Print the summary with the risk before and after (any result with ``global_risk`` and
    ``expected_reidentifications``), and where the file went."""
    summary = {**summary,
               "risk_before": {"global_risk": before.global_risk,
                               "expected_reidentifications": before.expected_reidentifications},
               "risk_after": {"global_risk": after.global_risk,
                              "expected_reidentifications": after.expected_reidentifications}}
    if args.out is not None:
        summary["out"] = args.out
    if args.json:
        from rumap.cli import print_json

        print_json(summary)
    else:
        print("\n".join([*lines, f"global risk {before.global_risk:.6f} -> {after.global_risk:.6f}; expected "
                                  f"re-identifications {before.expected_reidentifications:.2f} -> "
                                  f"{after.expected_reidentifications:.2f}"]
                        + ([f"written: {args.out}"] if args.out else [])))
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the chosen protection.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``protect``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    return int(args._protect_run(args))


def _read(args: argparse.Namespace) -> pd.DataFrame:
    """``--data`` in memory, once ``--out`` is known not to be it nor to exist without ``--overwrite``."""
    from rumap.io.data import read_table

    check_output_flags(args, ("--out",), ("--data",))
    return read_table(args.data)


def run_recode(args: argparse.Namespace) -> int:
    """``protect recode``: merges, bands and top/bottom coding, in that order.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    from rumap.engine import run_chunks
    from rumap.masking.recoding import recode_chunk, recoding_steps

    if args.scheduler is not None:
        return _run_on_cluster(args, _RECODE_FILE)
    if scale_engine(args, args.data):
        return _run_out_of_core(args, _RECODE_FILE)
    frame = _read(args)
    keys = split_names(args.keys, "--keys")
    _check_recoding(args)
    steps = recoding_steps(**_recoding_flags(args), source=args.data)
    recoded: list[Any] = []  # the file in memory is the chunk runner's one chunk
    run_chunks(frame, lambda chunk, start: (recode_chunk(chunk, steps), None), sink=recoded.append)
    protected = recoded[0]
    changed = {c: int((frame[c].astype(str) != protected[c].astype(str)).sum()) for c in frame.columns
               if c in protected.columns and not frame[c].astype(str).equals(protected[c].astype(str))}
    categories = {c: {"before": int(frame[c].nunique()), "after": int(protected[c].nunique())} for c in changed}
    lines = [f"global recoding of {args.data}: " + (", ".join(f"{c} ({categories[c]['before']} -> "
                                                             f"{categories[c]['after']} categories)" for c in changed)
                                                   or "nothing changed")]
    return _finish(args, frame, protected, keys, {"method": "recode", "keys": keys, "changed": changed,
                                                  "categories": categories}, lines)


def run_suppress(args: argparse.Namespace) -> int:
    """``protect suppress``: local suppression.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    from rumap.masking.categorical import local_suppression

    if args.k is not None:
        check_flag("--k", "k", args.k)
    if args.max_risk is not None:
        check_flag("--max-risk", "risk_bound", args.max_risk)
    importance = {}
    if args.importance:
        for part in args.importance.split(","):
            variable, value = variable_number(part, "--importance")
            importance[variable] = value
    if args.household_variables is not None and args.household is None:
        raise InputError("--household-variables need the household identifier column: give --household")
    if args.household is not None and args.household_variables is None:
        raise InputError("--household goes with --household-variables (the keys shared by a household)")
    if args.scheduler is not None:
        if args.optimal:
            raise InputError("--optimal works on one machine: drop --scheduler")
        return _run_on_cluster(args, _SUPPRESS_FILE, importance)
    if scale_engine(args, args.data, memory_only="--optimal" if args.optimal else None):
        if args.optimal:
            raise InputError("--optimal works in memory: give --engine memory")
        return _run_out_of_core(args, _SUPPRESS_FILE, importance)
    frame = _read(args)
    keys = split_names(args.keys, "--keys")
    if args.optimal:
        from rumap.masking.optimal_suppression import optimal_suppression

        if args.household is not None:
            raise InputError("--optimal has no households: drop --household")

        if args.k is None or args.max_risk is not None:
            raise InputError("--optimal needs --k (and no --max-risk)")
        result = optimal_suppression(frame, keys, args.k, importance=importance or None, source=args.data,
                                     budget=budget_from_args(args))
        if not result.feasible:
            raise InputError(str(result.reason).replace("k = ", "--k ", 1))
        summary = {"method": "suppress", "optimal": True, **result.to_dict()}
        lines = [f"least costly local suppression found for {args.data}: {summary['suppressed']} key values suppressed "
                 f"({100 * result.suppressed_share:.2f}%); per variable: "
                 + ", ".join(f"{k} {v}" for k, v in summary["per_variable"].items()),
                 f"cost minimised: {summary['cost']}, {result.objective:g}; target: {summary['matching_rule']}",
                 f"covering model: {result.model_objective:g} (HiGHS bound {result.model_bound:g}, gap "
                 f"{100 * result.model_gap:.2f}%); heuristic: {result.heuristic_objective:g}; restored from the "
                 f"{result.start}'s solution: {result.restored} value(s) put back"]
        return _finish(args, frame, result.data, keys, summary, lines)
    try:
        result = local_suppression(frame, keys, k=args.k, max_risk=args.max_risk, weight=args.weight,
                                   importance=importance or None, source=args.data, budget=budget_from_args(args),
                                   **_households(args))
    except InputError as exc:
        raise InputError(work_refusal(_flag_names(str(exc)))) from None
    summary, lines = _suppression_summary(args, result)
    return _finish(args, frame, result.data, keys, summary, lines)


def _households(args: argparse.Namespace) -> dict[str, Any]:
    """The household arguments of a suppression, from ``--household`` and ``--household-variables``."""
    if args.household is None:
        return {}
    return {"household": args.household,
            "household_variables": split_names(args.household_variables, "--household-variables")}


def _flag_names(message: str) -> str:
    """A suppression's message with the flags' names for its arguments'."""
    return message.replace("max_risk must", "--max-risk must").replace("give k ", "give --k ").replace(
        "household variables must be keys", "--household-variables must be --keys")


def _suppression_summary(args: argparse.Namespace, result: Any) -> tuple[dict, list[str]]:
    """The JSON and the lines of a heuristic suppression (in memory or of a file); an infeasible one refused."""
    if not result.feasible:
        raise InputError(str(result.reason).replace("k = ", "--k ", 1))
    summary = {"method": "suppress", "optimal": False, **result.to_dict()}
    return summary, [f"local suppression of {args.data}: {summary['suppressed']} key values suppressed "
                     f"({100 * result.suppressed_share:.2f}%) in {result.rounds} round(s); per variable: "
                     + ", ".join(f"{k} {v}" for k, v in summary["per_variable"].items())]


def run_pram(args: argparse.Namespace) -> int:
    """``protect pram``: invariant PRAM.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    from rumap.masking.categorical import pram

    check_flag("--theta", "theta", args.theta)
    check_flag("--seed", "seed", args.seed)
    if args.scheduler is not None:
        return _run_on_cluster(args, _PRAM_FILE)
    if scale_engine(args, args.data):
        return _run_out_of_core(args, _PRAM_FILE)
    frame = _read(args)
    keys = split_names(args.keys, "--keys")
    result = pram(frame, keys, args.theta, seed=args.seed, source=args.data)
    return _finish(args, frame, result.data, keys, *_pram_summary(args, result))


def _pram_summary(args: argparse.Namespace, result: Any) -> tuple[dict, list[str]]:
    """The JSON and the lines of PRAM (in memory or of a file)."""
    summary = {"method": "pram", **result.to_dict()}
    return summary, [f"PRAM of {args.data}, theta = {args.theta:g}: values changed "
                     + ", ".join(f"{k} {100 * v:.1f}%" for k, v in summary["changed_share"].items())]


def _recoding_flags(args: argparse.Namespace) -> dict[str, Any]:
    """``--merge``, ``--band``, ``--top`` and ``--bottom`` as the out-of-core recoding's arguments."""
    bands = [variable_number(text, "--band") for text in args.band]
    bands = [(variable, check_flag("--band", "band_width", width)) for variable, width in bands]
    return {"mapping": merge_flags(args.merge) or None, "bands": bands,
            "top": [variable_number(text, "--top") for text in args.top],
            "bottom": [variable_number(text, "--bottom") for text in args.bottom]}


def _recoding_summary(args: argparse.Namespace, keys: list[str], result: Any) -> tuple[dict, list[str]]:
    """The JSON and the lines of a file's recoding (on one machine or a cluster)."""
    summary = {"method": "recode", "keys": keys, "changed": result.changed, "categories": result.categories}
    return summary, [f"global recoding of {args.data}: " + (", ".join(
        f"{c} ({v['before']} -> {v['after']} categories)" for c, v in result.categories.items())
        or "nothing changed")]


def _check_goal(args: argparse.Namespace) -> None:
    """A suppression needs a goal."""
    if args.k is None and args.max_risk is None:
        raise InputError("give --k (k-anonymity), --max-risk (individual risk) or both")


def _check_recoding(args: argparse.Namespace) -> None:
    """A recoding needs something to recode."""
    if not (args.merge or args.band or args.top or args.bottom):
        raise InputError("give at least one of --merge, --band, --top, --bottom")


def _suppressed_file(function: Callable[..., Any], refusal: Callable[[str], str], args: argparse.Namespace,
                     data: Any, keys: list[str], out: str, options: dict,
                     importance: dict[str, float] | None) -> tuple[Any, dict, list[str]]:
    try:
        result = function(data, keys, out, k=args.k, max_risk=args.max_risk, weight=args.weight,
                          importance=importance or None, budget=budget_from_args(args), **_households(args),
                          **options, overwrite=True)
    except InputError as exc:
        raise InputError(refusal(_flag_names(str(exc)))) from None
    return (result, *_suppression_summary(args, result))


def _suppress_file(*arguments: Any) -> tuple[Any, dict, list[str]]:
    from rumap.scale.protect import suppress_file

    # out of core already: a refusal of the work names a coarser key
    return _suppressed_file(suppress_file, lambda message: work_refusal(message, scale=False), *arguments)


def _suppress_on_cluster(*arguments: Any) -> tuple[Any, dict, list[str]]:
    from rumap.scale.cluster_protect import cluster_suppress

    return _suppressed_file(cluster_suppress, str, *arguments)


def _pram_file(args: argparse.Namespace, data: Any, keys: list[str], out: str, options: dict,
               importance: dict[str, float] | None) -> tuple[Any, dict, list[str]]:
    from rumap.scale.protect import pram_file

    result = pram_file(data, keys, args.theta, args.seed, out, **options, overwrite=True)
    return (result, *_pram_summary(args, result))


def _pram_on_cluster(args: argparse.Namespace, data: Any, keys: list[str], out: str, options: dict,
                     importance: dict[str, float] | None) -> tuple[Any, dict, list[str]]:
    from rumap.scale.cluster_protect import cluster_pram

    result = cluster_pram(data, keys, args.theta, args.seed, out, **options, overwrite=True)
    return (result, *_pram_summary(args, result))


def _recode_file(args: argparse.Namespace, data: Any, keys: list[str], out: str, options: dict,
                 importance: dict[str, float] | None) -> tuple[Any, dict, list[str]]:
    from rumap.scale.recoding import recode_file

    result = recode_file(data, out, **_recoding_flags(args), **options, overwrite=True)
    return (result, *_recoding_summary(args, keys, result))


def _recode_on_cluster(args: argparse.Namespace, data: Any, keys: list[str], out: str, options: dict,
                       importance: dict[str, float] | None) -> tuple[Any, dict, list[str]]:
    from rumap.scale.cluster_protect import cluster_recode

    result = cluster_recode(data, out, **_recoding_flags(args), **options, overwrite=True)
    return (result, *_recoding_summary(args, keys, result))


def _recoded_written(source: Any, result: Any, written: Any) -> Any:
    """A recoded Parquet ``--out`` read as the file's values mapped to codes of the written text (a CSV re-read
    may type the written text otherwise)."""
    from rumap.scale.recoding import recoded_keys

    return (recoded_keys(source, result) or written) if written.format == "parquet" else written


@dataclass(frozen=True)
class _FileProtection:
    """One protection of a file as ``--engine scale`` (``scale``) and ``--scheduler`` (``cluster``) run it.

    ``scale`` and ``cluster``: ``(args, data, keys, out, options, importance) -> (result, summary, lines)``;
    ``check`` refuses flags that ask for nothing; ``written``: ``(source, result, written)`` -> the written
    file as the risk after reads it.
    """

    scale: Callable[..., tuple[Any, dict, list[str]]]
    cluster: Callable[..., tuple[Any, dict, list[str]]]
    check: Callable[[argparse.Namespace], None] | None = None
    written: Callable[[Any, Any, Any], Any] | None = None


_SUPPRESS_FILE = _FileProtection(_suppress_file, _suppress_on_cluster, check=_check_goal)
_PRAM_FILE = _FileProtection(_pram_file, _pram_on_cluster)
_RECODE_FILE = _FileProtection(_recode_file, _recode_on_cluster, check=_check_recoding, written=_recoded_written)


def _run_out_of_core(args: argparse.Namespace, protection: _FileProtection,
                     importance: dict[str, float] | None = None) -> int:
    """``protect recode|suppress|pram --engine scale``: the file read and written a chunk at a time.

    The same JSON keys as in memory; the risk before and after is that of
    :func:`rumap.scale.individual_risk` on the file and on ``--out`` (a
    recoded Parquet ``--out`` read as the file's values mapped to codes of
    the written text, :func:`rumap.scale.recoding.recoded_keys`). Without
    ``--out``, when ``--engine auto`` chose this path, the records go to a
    temporary file, removed once the risk after is counted.
    """
    if args.out is None:
        if args.engine != "auto":
            raise InputError("--engine scale writes the protected records to a file: give --out")
        import os
        import tempfile

        # --engine auto chose the scale engine for a large file: the risk after is counted on records written here
        with tempfile.TemporaryDirectory(prefix="rumap-protect-") as folder:
            return _out_of_core(args, protection, importance, os.path.join(folder, "protected.parquet"))
    return _out_of_core(args, protection, importance, args.out)


def _out_of_core(args: argparse.Namespace, protection: _FileProtection, importance: dict[str, float] | None,
                 target: str) -> int:
    """The out-of-core protection, its records written to ``target`` (``--out``, or a temporary file)."""
    from rumap.io.outputs import atomic_outputs
    from rumap.scale import DEFAULT_CHUNK_SIZE, individual_risk, scan
    from rumap.scale.source import check_out

    check_out(target, [("--data", args.data)], args.overwrite, "--out")
    keys = split_names(args.keys, "--keys")
    source = scan(args.data)
    chunks = {"chunk_size": args.chunk_size or DEFAULT_CHUNK_SIZE, "progress": not args.quiet}
    # written beside --out, renamed into place once the risk after is counted on it too
    with atomic_outputs(target, flag="--out") as (temporary,):
        out = str(temporary)
        if protection.check is not None:
            protection.check(args)
        result, summary, lines = protection.scale(args, source, keys, out, chunks, importance)
        before = individual_risk(source, keys, weight=args.weight, **chunks)
        written = scan(out)
        if protection.written is not None:
            written = protection.written(source, result, written)
        after = individual_risk(written, keys, weight=args.weight, **chunks)
    return _report(args, {**summary, "n": before.n}, lines, before, after)


def _run_on_cluster(args: argparse.Namespace, protection: _FileProtection,
                    importance: dict[str, float] | None = None) -> int:
    """``protect recode|suppress|pram --scheduler ADDR``: counted and transformed on a Dask cluster, written here.

    The same JSON keys and records as ``--engine scale``; the risk before and
    after is counted on the cluster too, from the file and from ``--out``.
    """
    from types import SimpleNamespace

    from rumap.io.outputs import atomic_outputs
    from rumap.scale.cluster import cluster_client, cluster_scale_risk
    from rumap.scale.source import check_out

    if args.out is None:
        raise InputError("--scheduler writes the protected records to a file: give --out")
    if args.chunk_size is not None:
        check_flag("--chunk-size", "record_chunk", args.chunk_size)
    keys = split_names(args.keys, "--keys")
    if protection.check is not None:
        protection.check(args)
    check_out(args.out, [("--data", args.data)], args.overwrite, "--out")
    client, own = cluster_client(args.scheduler)
    parts = {"scheduler": client, "chunk_size": args.chunk_size, "progress": not args.quiet}
    try:  # written beside --out, renamed into place once the risk after is counted on it too
        with atomic_outputs(args.out, flag="--out") as (temporary,):
            out = str(temporary)
            result, summary, lines = protection.cluster(args, args.data, keys, out, parts, importance)
            risk = {"weight": args.weight, "scheduler": client, "chunk_size": args.chunk_size}
            before = SimpleNamespace(**cluster_scale_risk(args.data, keys, **risk))
            after = SimpleNamespace(**cluster_scale_risk(out, keys, **risk))
    finally:
        if own:
            client.close()
    return _report(args, {**summary, "n": before.n}, lines, before, after)
