"""``python -m rumap protect recode|suppress|pram|swap``: protect categorical key variables of a file.

Each prints what the protection did (counts, never data values) and the risk
before and after; ``--out`` writes the protected file.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rumap.cli.flags import (
    WRITER_SUFFIXES,
    add_engine_flags,
    add_merge_flag,
    add_overwrite_flag,
    add_work_limit,
    budget_from_args,
    check_flag,
    check_output_flags,
    merge_flags,
    scale_engine,
    split_names,
    variable_number,
)
from rumap.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

HELP = "protect categorical key variables: global recoding, local suppression, PRAM, targeted swapping"


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
    sup.add_argument("--k", type=int, help="reach k-anonymity (f_k >= K)")
    sup.add_argument("--max-risk", type=float, help="reach individual risk at most this")
    sup.add_argument("--importance", metavar="VAR:VALUE,...", help="importance of variables (least important "
                                                                    "suppressed first; with --optimal, the cost "
                                                                    "of suppressing one value)")
    sup.add_argument("--optimal", action="store_true",
                     help="the least costly suppression for --k, by mixed integer programming (HiGHS)")
    sup.add_argument("--household", metavar="H", help="household identifier column, with --household-variables")
    sup.add_argument("--household-variables", metavar="A,B,...",
                     help="keys the same for a whole household (region, household size): suppressed in one member, "
                          "suppressed in all")
    sup.set_defaults(_protect_run=run_suppress)

    pr = sub.add_parser("pram", help="invariant PRAM with a retention probability")
    common(pr)
    pr.add_argument("--theta", type=float, required=True, help="probability that a value is kept, in [0, 1]")
    pr.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    pr.set_defaults(_protect_run=run_pram)
    from rumap.cli.protect_swap import add_swap_parser

    add_swap_parser(sub)
    return p


def _finish(args: argparse.Namespace, frame: pd.DataFrame, protected: pd.DataFrame, keys: list[str],
            summary: dict, lines: list[str]) -> int:
    from rumap.io.data import write_table
    from rumap.risk.individual import individual_risk

    before = individual_risk(frame, keys, weight=args.weight, source=args.data, budget=budget_from_args(args))
    after = individual_risk(protected, keys, weight=args.weight, source=args.data, budget=budget_from_args(args))
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
    from rumap.masking.categorical import band, recode, top_bottom_code

    if args.scheduler is not None:
        return _run_on_cluster(args)
    if scale_engine(args, args.data):
        return _run_out_of_core(args)
    frame = _read(args)
    keys = split_names(args.keys, "--keys")
    if not (args.merge or args.band or args.top or args.bottom):
        raise InputError("give at least one of --merge, --band, --top, --bottom")
    protected = frame
    mapping = merge_flags(args.merge)
    if mapping:
        protected = recode(protected, mapping, source=args.data)
    for text in args.band:
        variable, width = variable_number(text, "--band")
        protected = band(protected, variable, check_flag("--band", "band_width", width),
                         source=args.data)
    for flag, values in (("--top", args.top), ("--bottom", args.bottom)):
        for text in values:
            variable, limit = variable_number(text, flag)
            limits = {"above": limit} if flag == "--top" else {"below": limit}
            protected = top_bottom_code(protected, variable, **limits, source=args.data)
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
        return _run_on_cluster(args, importance)
    if scale_engine(args, args.data):
        if args.optimal:
            raise InputError("--optimal works in memory: give --engine memory")
        return _run_out_of_core(args, importance)
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
        raise InputError(_flag_names(str(exc))) from None
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
        return _run_on_cluster(args)
    if scale_engine(args, args.data):
        return _run_out_of_core(args)
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


def _run_out_of_core(args: argparse.Namespace, importance: dict[str, float] | None = None) -> int:
    """``protect recode|suppress|pram --engine scale``: the file read and written a chunk at a time.

    The same JSON keys as in memory; the risk before and after is that of
    :func:`rumap.scale.individual_risk` on the file and on ``--out`` (a
    recoded Parquet ``--out`` read as the file's values mapped to codes of
    the written text, :func:`rumap.scale.recoding.recoded_keys`).
    """
    from rumap.io.outputs import atomic_outputs
    from rumap.scale import DEFAULT_CHUNK_SIZE, individual_risk, scan
    from rumap.scale.protect import pram_file, suppress_file
    from rumap.scale.recoding import recode_file, recoded_keys
    from rumap.scale.source import check_out

    if args.out is None:
        raise InputError("--engine scale writes the protected records to a file: give --out")
    check_out(args.out, [("--data", args.data)], args.overwrite, "--out")
    keys = split_names(args.keys, "--keys")
    source = scan(args.data)
    chunks = {"chunk_size": args.chunk_size or DEFAULT_CHUNK_SIZE, "progress": not args.quiet}
    method = args.protect_command
    # written beside --out, renamed into place once the risk after is counted on it too
    with atomic_outputs(args.out, flag="--out") as (temporary,):
        out = str(temporary)
        if method == "suppress":
            if args.k is None and args.max_risk is None:
                raise InputError("give --k (k-anonymity), --max-risk (individual risk) or both")
            try:
                result = suppress_file(source, keys, out, k=args.k, max_risk=args.max_risk, weight=args.weight,
                                       importance=importance or None, budget=budget_from_args(args),
                                       **_households(args), **chunks, overwrite=True)
            except InputError as exc:
                raise InputError(_flag_names(str(exc))) from None
            summary, lines = _suppression_summary(args, result)
        elif method == "pram":
            result = pram_file(source, keys, args.theta, args.seed, out, **chunks, overwrite=True)
            summary, lines = _pram_summary(args, result)
        else:
            if not (args.merge or args.band or args.top or args.bottom):
                raise InputError("give at least one of --merge, --band, --top, --bottom")
            result = recode_file(source, out, **_recoding_flags(args), **chunks, overwrite=True)
            summary, lines = _recoding_summary(args, keys, result)
        before = individual_risk(source, keys, weight=args.weight, **chunks)
        written = scan(out)
        if method == "recode" and written.format == "parquet":  # a CSV re-read may type the written text otherwise
            written = recoded_keys(source, result) or written
        after = individual_risk(written, keys, weight=args.weight, **chunks)
    return _report(args, {**summary, "n": before.n}, lines, before, after)


def _run_on_cluster(args: argparse.Namespace, importance: dict[str, float] | None = None) -> int:
    """``protect recode|suppress|pram --scheduler ADDR``: counted and transformed on a Dask cluster, written here.

    The same JSON keys and records as ``--engine scale``; the risk before and
    after is counted on the cluster too, from the file and from ``--out``.
    """
    from types import SimpleNamespace

    from rumap.io.outputs import atomic_outputs
    from rumap.scale.cluster import _client, cluster_scale_risk
    from rumap.scale.cluster_protect import cluster_pram, cluster_recode, cluster_suppress
    from rumap.scale.source import check_out

    if args.out is None:
        raise InputError("--scheduler writes the protected records to a file: give --out")
    if args.chunk_size is not None:
        check_flag("--chunk-size", "record_chunk", args.chunk_size)
    keys = split_names(args.keys, "--keys")
    method = args.protect_command
    if method == "suppress" and args.k is None and args.max_risk is None:
        raise InputError("give --k (k-anonymity), --max-risk (individual risk) or both")
    if method == "recode" and not (args.merge or args.band or args.top or args.bottom):
        raise InputError("give at least one of --merge, --band, --top, --bottom")
    check_out(args.out, [("--data", args.data)], args.overwrite, "--out")
    client, own = _client(args.scheduler)
    parts = {"scheduler": client, "chunk_size": args.chunk_size, "progress": not args.quiet}
    try:  # written beside --out, renamed into place once the risk after is counted on it too
        with atomic_outputs(args.out, flag="--out") as (temporary,):
            out = str(temporary)
            if method == "suppress":
                try:
                    result = cluster_suppress(args.data, keys, out, k=args.k, max_risk=args.max_risk,
                                              weight=args.weight, importance=importance or None,
                                              budget=budget_from_args(args), **_households(args), **parts,
                                              overwrite=True)
                except InputError as exc:
                    raise InputError(_flag_names(str(exc))) from None
                summary, lines = _suppression_summary(args, result)
            elif method == "pram":
                result = cluster_pram(args.data, keys, args.theta, args.seed, out, **parts, overwrite=True)
                summary, lines = _pram_summary(args, result)
            else:
                result = cluster_recode(args.data, out, **_recoding_flags(args), **parts, overwrite=True)
                summary, lines = _recoding_summary(args, keys, result)
            risk = {"weight": args.weight, "scheduler": client, "chunk_size": args.chunk_size}
            before = SimpleNamespace(**cluster_scale_risk(args.data, keys, **risk))
            after = SimpleNamespace(**cluster_scale_risk(out, keys, **risk))
    finally:
        if own:
            client.close()
    return _report(args, {**summary, "n": before.n}, lines, before, after)

