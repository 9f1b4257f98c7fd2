"""``python -m rumap table ckm``: a frequency table perturbed by the cell key method.

The table is built from ``--microdata`` over ``--dims`` with every subtotal
(``--hierarchy`` as in ``table suppress``). The perturbation table is built by
maximum entropy from ``--max-perturbation D --variance V [--js J]``
(:func:`rumap.tables.ptable.create_ptable`) or read from ``--ptable FILE``
(ptable's columns i, v, p_int_ub at least). Record keys come from
``--record-key COLUMN`` or are drawn from ``--seed``. The JSON has the cells
(codes and published value; ``--show-original`` adds each cell's count, cell
key and perturbation), how far totals are from the sums of their children
(``additivity``) and the perturbation table used (``ptable``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rumap.cli.flags import WRITER_SUFFIXES, add_engine_flags, add_overwrite_flag, print_frame, scale_engine
from rumap.errors import InputError

if TYPE_CHECKING:
    from rumap.tables.cellkey import CellKeyTable
    from rumap.tables.ptable import PTable


def add_ckm_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``ckm`` to the ``table`` sub-subcommands.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The ``table`` subcommand's sub-subcommands.
    """
    c = commands.add_parser(
        "ckm", help="the cell key method: a frequency table with consistent random perturbation",
        description="Build a frequency table of up to 5 dimensions with every subtotal from --microdata and "
                    "perturb each cell by the cell key method: the cell's key (the fractional part of the sum of "
                    "its records' keys) picks its perturbation from the perturbation table's row for its count. "
                    "The same cell gets the same perturbation in any table; the published table is not additive.")
    c.add_argument("--microdata", required=True, metavar="FILE", help="the microdata, one record per row")
    c.add_argument("--dims", required=True, metavar="A,B[,C...]", help="the table's dimensions (1 to 5 columns)")
    c.add_argument("--hierarchy", action="append", metavar="A=FILE",
                   help="hierarchy of dimension A, as for 'table suppress' (repeatable)")
    c.add_argument("--weight", metavar="COLUMN",
                   help="sampling weights: publish weighted counts, the perturbed count times the cell's mean weight")
    c.add_argument("--max-perturbation", type=int, metavar="D", help="largest absolute perturbation D")
    c.add_argument("--variance", type=float, metavar="V", help="variance V of the perturbation")
    c.add_argument("--js", type=int, default=0, metavar="J",
                   help="counts 1..J are never published (default 0)")
    c.add_argument("--ptable", metavar="FILE", help="read the perturbation table (columns i, v, p_int_ub, ...)")
    c.add_argument("--record-key", metavar="COLUMN", help="column of record keys in [0, 1]")
    c.add_argument("--seed", type=int, help="seed of the drawn record keys (without --record-key)")
    c.add_argument("--show-original", action="store_true",
                   help="add each cell's original count, cell key and perturbation (withheld by default)")
    c.add_argument("--out", metavar="FILE",
                   help=f"write the published table ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(c)
    c.add_argument("--json", action="store_true", help="print one JSON object")
    add_engine_flags(c)


def _ptable(args: argparse.Namespace) -> PTable:
    from rumap.tables.ptable import create_ptable, read_ptable

    built = args.max_perturbation is not None or args.variance is not None
    if args.ptable is not None:
        if built or args.js:
            raise InputError("--ptable reads the perturbation table: give it without --max-perturbation, "
                             "--variance and --js")
        from rumap.io.data import read_table

        return read_ptable(read_table(args.ptable), f"--ptable {args.ptable}")
    if args.max_perturbation is None or args.variance is None:
        raise InputError("give --max-perturbation D and --variance V (or --ptable FILE)")
    try:
        return create_ptable(args.max_perturbation, args.variance, args.js)
    except InputError as exc:
        text = str(exc)
        for name, flag in (("D ", "--max-perturbation "), ("V ", "--variance "), ("js ", "--js ")):
            if text.startswith(name):
                raise InputError(flag + text[len(name):]) from None
        raise InputError(f"--max-perturbation {args.max_perturbation} --variance {args.variance:g} --js {args.js}: "
                         + text.split(": ", 1)[-1]) from None


def _check_columns(args: argparse.Namespace, columns: Any) -> None:
    for flag, column in (("--record-key", args.record_key), ("--weight", args.weight)):
        if column is not None and column not in columns:
            raise InputError(f"{flag}: no column {column!r} in {args.microdata}")


def _out_of_core(args: argparse.Namespace, dims: list[str], ptable: PTable) -> CellKeyTable:
    """The table of a file larger than memory (the scale engine): record keys from ``--record-key``."""
    from rumap.cli.table_microdata import _hierarchies
    from rumap.scale.cellkey import cellkey_table_file
    from rumap.scale.source import scan

    if args.record_key is None:
        raise InputError("the scale engine (--engine scale, or a file over the in-memory limit) reads the record "
                         "keys: give --record-key COLUMN")
    source = scan(args.microdata)
    _check_columns(args, source.columns)
    codes = source.collect(source.lazy([d for d in dims if d in source.columns]).unique()).to_pandas() \
        if args.hierarchy else None
    hierarchies = _hierarchies(args.hierarchy or [], dims, codes)
    return cellkey_table_file(args.microdata, dims, ptable, hierarchies, record_key=args.record_key,
                              weight=args.weight)


def run_ckm(args: argparse.Namespace) -> int:
    """Run ``table ckm``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        0 on success.
    """
    from rumap.cli.flags import split_names
    from rumap.cli.table_microdata import _hierarchies, _hierarchy_file
    from rumap.io.data import read_table
    from rumap.io.outputs import check_outputs
    from rumap.tables.cellkey import cellkey_table

    if args.record_key is not None and args.seed is not None:
        raise InputError("--record-key reads the keys: give it without --seed")
    if args.out is not None:
        check_outputs([("--out", args.out)],
                      [("--microdata", args.microdata), ("--ptable", args.ptable),
                       *(("--hierarchy", _hierarchy_file(text)) for text in args.hierarchy or [] if "=" in text)],
                      args.overwrite)
    ptable = _ptable(args)
    dims = split_names(args.dims, "--dims")
    if scale_engine(args, args.microdata):
        result = _out_of_core(args, dims, ptable)
    else:
        frame = read_table(args.microdata)
        _check_columns(args, frame.columns)
        hierarchies = _hierarchies(args.hierarchy or [], dims, frame)
        result = cellkey_table(frame, dims, ptable, hierarchies, record_key=args.record_key, seed=args.seed,
                               weight=args.weight)
    if args.out is not None:
        from rumap.io.writers import write_table

        write_table(result.to_frame(args.show_original), args.out, "--out", args.overwrite)
    if args.json:
        from rumap.cli import print_json

        out = result.to_dict(args.show_original)
        if args.out is not None:
            out["out"] = args.out
        print_json(out)
        return 0
    print_frame(result.to_frame(args.show_original))
    add = result.additivity()
    print(f"{result.table.size} cells; {add['non_additive']} of {add['equations']} totals differ from the sum of "
          f"their children (largest by {add['max_abs']:g}, mean {add['mean_abs']:.3g})")
    if args.out is not None:
        print(f"written: {args.out}")
    return 0
