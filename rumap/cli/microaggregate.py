"""``python -m rumap microaggregate``: microaggregate columns of a data file and report SSE/SST."""

from __future__ import annotations

import argparse
from pathlib import Path

from rumap.cli.flags import WRITER_SUFFIXES, add_overwrite_flag, add_work_limit, budget_from_args, check_output_flags
from rumap.cli.progress import Progress, add_progress_flag
from rumap.errors import InputError

# The parser's choices, the keys of rumap.masking.microaggregation.ALGORITHMS and CRITERIA, so that ``microaggregate --help`` starts without pandas; ``tests/cli/test_startup.py``
# checks they agree. The modules are imported when the command runs.
ALGORITHM_NAMES = ("mdav", "mwa", "fixed", "individual", "optimal", "mdav_partitioned", "optimal_pc1")
CRITERION_NAMES = ("pc1", "variable", "zsum")

HELP = "microaggregate numeric columns (groups of at least k records) and report the information loss"

#: Writers of the masked file, by extension.
def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``microaggregate`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("microaggregate", help=HELP, description=HELP)
    p.add_argument("--data", required=True, help="data file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS); a Parquet "
                   "file may be over the size limit: its chosen columns are read alone")
    p.add_argument("--columns", metavar="A,B,...", help="comma-separated numeric columns (default: every numeric one)")
    p.add_argument("--k", type=int, required=True, help="minimum group size")
    p.add_argument("--algorithm", required=True, choices=list(ALGORITHM_NAMES), help="microaggregation algorithm")
    p.add_argument("--criterion", default="pc1", choices=list(CRITERION_NAMES),
                   help="sorting criterion of --algorithm fixed (default pc1: first principal component)")
    p.add_argument("--standardize", action="store_true",
                   help="form groups on z-scores; SSE, SST and the loss are then measured on z-scores")
    p.add_argument("--out", metavar="MASKED.csv",
                   help=f"write the file with the chosen columns replaced ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(p)
    add_work_limit(p)
    add_progress_flag(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def parse_columns(text: str | None) -> list[str] | None:
    """``"A,B"`` -> ``["A", "B"]``; ``None`` means every numeric column.

    Parameters
    ----------
    text : str or None
        The value of ``--columns``: comma-separated names.

    Returns
    -------
    list of str or None
        The names, in order; ``None`` where no names were given.
    """
    if text is None:
        return None
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise InputError(f"--columns has an empty name: {text!r}")
    if len(set(names)) != len(names):
        raise InputError(f"--columns names a column twice: {text!r}")
    return names


def run(args: argparse.Namespace) -> int:
    """Microaggregate the chosen columns of ``--data`` and print SSE/SST (and write ``--out``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``microaggregate``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.io.data import WRITERS, numeric_column_names, numeric_columns, read_table, write_table
    from rumap.io.parquet import is_parquet, read_parquet_numeric, write_parquet_replacing
    from rumap.masking.microaggregation import microaggregate

    out_path = Path(args.out) if args.out else None
    if out_path is not None and out_path.suffix.lower() not in WRITERS:
        raise InputError(f"--out {args.out}: unknown format {out_path.suffix or '(no extension)'!r}; "
                         f"use one of {', '.join(WRITERS)}")
    check_output_flags(args, ("--out",), ("--data",))
    progress = Progress(args.progress)
    progress.stage(f"reading {args.data}")
    columns = parse_columns(args.columns)
    frame = table = None
    if is_parquet(args.data):  # the chosen columns alone (every column only to write --out), of a file of any size
        values, names, table = read_parquet_numeric(args.data, columns, every_column=out_path is not None)
    else:
        frame = read_table(args.data)
        values = numeric_columns(frame, columns, source=args.data)
        names = columns if columns is not None else numeric_column_names(frame)
    progress.stage(f"read {values.shape[0]} records x {values.shape[1]} variables; {args.algorithm}, k = {args.k}")
    result = microaggregate(values, args.k, args.algorithm, standardize=args.standardize,
                            criterion=args.criterion, columns=names, budget=budget_from_args(args),
                            progress=progress.counter("records grouped"))
    progress.stage(f"{result.n_groups} groups, information loss {result.information_loss:.6f}")
    if out_path is not None:
        if table is not None and is_parquet(out_path):
            write_parquet_replacing(table, names, result.masked, out_path, args.overwrite, "--out")
        else:
            masked = frame.copy() if frame is not None else table.to_pandas()
            for j, name in enumerate(names):
                masked[name] = result.masked[:, j]
            write_table(masked, out_path, "--out", args.overwrite)
        progress.stage(f"written {out_path}")
    summary = result.to_dict()
    if args.json:
        from rumap.cli import print_json

        print_json(summary)
        return 0
    scale = "z-scores" if result.standardized else "original units"
    print(f"{args.algorithm} microaggregation, k = {result.k}, n = {result.n}, {len(names)} variable(s): "
          f"{', '.join(names)}")
    print(f"groups: {summary['groups']} (sizes {summary['min_group_size']} to {summary['max_group_size']})")
    print(f"SSE = {result.sse:.6g}, SST = {result.sst:.6g} ({scale})")
    print(f"information loss L = SSE/SST = {result.information_loss:.6f} ({100 * result.information_loss:.2f}%)")
    if out_path is not None:
        print(f"masked data written to {out_path}")
    return 0

