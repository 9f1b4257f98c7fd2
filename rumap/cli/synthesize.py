"""``python -m rumap synthesize``: fit a synthetic-data generator on a data file and write synthetic records.

::

    python -m rumap synthesize --data FILE --method cart|copula|mst [--columns A,B,...] [--minbucket M]
        [--shrinkage S] [--epsilon E] [--copies m] [--rows N] [--seed S] --out FILE [--overwrite] [--json]

With ``--copies`` m > 1 the file holds the m copies one after the other, after
a first column ``copy`` (1 to m).
"""

from __future__ import annotations

import argparse

from rumap.cli.flags import WRITER_SUFFIXES, add_overwrite_flag, check_flag, check_output_flags, split_names
from rumap.errors import InputError
from rumap.synthesis.generators import GENERATORS, Generator

# The parser is built from the generators' records (rumap.synthesis.generators loads without pandas).


def mapped_generators() -> dict[str, Generator]:
    """The generators whose map ``simulate --method NAME`` draws: their records' ``no_map`` is empty (``simulate
    --method mst`` is MST's own map, :mod:`rumap.maps.mst`).

    Returns
    -------
    dict
    """
    return {name: record for name, record in GENERATORS.items() if not record.no_map}

HELP = ("synthetic data: fit a generator (sequential CART, Gaussian copula, MST with differential privacy) on a data "
        "file and write synthetic records")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``synthesize`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("synthesize", help=HELP, description=HELP)
    p.add_argument("--data", required=True, help="the original data file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    p.add_argument("--method", required=True, choices=list(GENERATORS),
                   help="cart: sequential CART as synthpop's default; copula: a Gaussian copula of the ranks; mst: "
                        "MST's differentially private counts of each value (of a numeric column of many, 20 bands; rumap[dp])")
    p.add_argument("--columns", metavar="A,B,...",
                   help="the columns to synthesise, in the order of synthesis (default: every column)")
    for method, record in GENERATORS.items():
        name, kind, default = record.parameter, int if record.integer else float, record.default
        p.add_argument(f"--{name}", type=kind, metavar=name.upper(),
                       help=f"{method}'s parameter (default {default:g})")
    p.add_argument("--copies", type=int, default=1, help="the number m of synthetic files (default 1)")
    p.add_argument("--rows", type=int, help="records of each copy (default: those of --data)")
    p.add_argument("--seed", type=int, help="random seed: the same seed writes the same bytes")
    p.add_argument("--out", required=True, metavar="SYNTHETIC.csv",
                   help=f"the synthetic file ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def run(args: argparse.Namespace) -> int:
    """Synthesise ``--data`` and write ``--out``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``synthesize``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.fingerprint import bytes_digest
    from rumap.io.data import read_table
    from rumap.io.writers import write_table
    from rumap.synthesis import synthesize

    record = GENERATORS[args.method]
    for name, other in GENERATORS.items():
        if name != args.method and getattr(args, other.parameter) is not None:
            raise InputError(f"--{other.parameter} is a parameter of --method {name}, not of {args.method}")
    check_output_flags(args, ("--out",), ("--data",))
    for flag, parameter, value in (("--copies", "copies", args.copies), ("--rows", "records", args.rows),
                                   ("--seed", "seed", args.seed)):
        if value is not None:
            check_flag(flag, parameter, value)
    value = getattr(args, record.parameter)
    if value is not None:
        check_flag(f"--{record.parameter}", record.entry, value)
    frame = read_table(args.data)
    columns = split_names(args.columns, "--columns") if args.columns else None
    result = synthesize(frame, args.method, columns, value, copies=args.copies, rows=args.rows, seed=args.seed,
                        source=args.data)
    table = result.to_frame()
    content = write_table(table, args.out, "--out", args.overwrite)
    summary = {"out": str(args.out), "rows": int(table.shape[0]), "method": result.method,
               "parameters": result.parameters, "seed": result.seed, "copies": len(result.copies),
               "sha256_out": bytes_digest(content)}
    if args.json:
        from rumap.cli import print_json

        print_json(summary)
        return 0
    parameters = ", ".join(f"{k} = {v:g}" for k, v in result.parameters.items())
    print(f"{args.method} synthesis ({parameters}), {len(result.copies)} cop{'y' if len(result.copies) == 1 else 'ies'}"
          f" of {result.copies[0].shape[0]} records, seed {result.seed}")
    print(f"synthetic data written to {args.out}")
    return 0
