"""``python -m rumap table ckm``: a frequency (or magnitude) table perturbed by the cell key method.

The table is built from ``--microdata`` over ``--dims`` with every subtotal
(``--hierarchy`` as in ``table suppress``). The perturbation table is built by
maximum entropy from ``--max-perturbation D --variance V [--js J]``
(:func:`rumap.tables.ptable.create_ptable`) or read from ``--ptable FILE``
(ptable's columns i, v, p_int_ub at least). Record keys come from
``--record-key COLUMN`` or are drawn from ``--seed``. The JSON has the cells
(codes and published value; ``--show-original`` adds each cell's count, cell
key and perturbation), how far totals are from the sums of their children
(``additivity``) and the perturbation table used (``ptable``). With
``--value-column V`` the table sums V and each cell's perturbation scales its
largest contributions, as cellKey's magnitude method
(:mod:`rumap.tables.cellkey_nums`; ``--show-original`` adds each cell's
``sum``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rumap.cli.engine import add_engine_flags, scale_engine
from rumap.cli.flags import WRITER_SUFFIXES, add_overwrite_flag, print_frame
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
    m = c.add_argument_group("a magnitude table (--value-column), as cellKey's ck_params_nums: the perturbation "
                             "of a cell scales its largest contributions (or its mean, spread or sum); the "
                             "perturbation table is one of magnitudes (--step, --icat) or --ptable")
    m.add_argument("--value-column", metavar="V", help="the numeric variable summed: a magnitude table")
    m.add_argument("--step", type=int, metavar="S", help="steps per unit between perturbations (default 1)")
    m.add_argument("--icat", metavar="1,...,D", help="the classes of the perturbation table (default 1,D)")
    m.add_argument("--magnitude-type", choices=["top_contr", "mean", "range", "sum"],
                   help="what the perturbation scales (default top_contr)")
    m.add_argument("--top-k", type=int, metavar="K", help="top_contr: the K largest contributions, 1 to 6 (default 1)")
    m.add_argument("--flex-point", type=float, metavar="FP",
                   help="the flex function's flex point (the flex multiplier; or --percentage)")
    m.add_argument("--p-small", type=float, metavar="P", help="the flex function's percentage of small values "
                                                              "(default 0.25)")
    m.add_argument("--p-large", type=float, metavar="P", help="the flex function's percentage of large values "
                                                              "(default 0.05)")
    m.add_argument("--q", type=float, metavar="Q", help="the flex function's exponent (default 3)")
    m.add_argument("--percentage", type=float, metavar="P", help="the simple multiplier's percentage (instead of "
                                                                 "--flex-point)")
    m.add_argument("--epsilon", metavar="1,E2,...", help="one weight per contribution, 1 first (default 1)")
    m.add_argument("--mu-c", type=float, metavar="MU", help="added to |v| of a sensitive cell (default 0)")
    m.add_argument("--sensitive-frequency", type=int, metavar="N",
                   help="cells of at most N records are sensitive (cellKey's supp_freq, unweighted)")
    m.add_argument("--scramble-keys", action="store_true",
                   help="the first contribution's key is the cell key with its first digit moved to the end "
                        "(cellKey's same_key = FALSE)")
    m.add_argument("--use-zero-rkeys", action="store_true",
                   help="records whose value is 0 count in the cell key")
    c.add_argument("--show-original", action="store_true",
                   help="add each cell's original count, cell key and perturbation (withheld by default)")
    c.add_argument("--out", metavar="FILE",
                   help=f"write the published table ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(c)
    c.add_argument("--json", action="store_true", help="print one JSON object")
    add_engine_flags(c)


#: The flags of a magnitude table, each with its attribute.
_MAGNITUDE_FLAGS = (("--step", "step"), ("--icat", "icat"), ("--magnitude-type", "magnitude_type"),
                    ("--top-k", "top_k"), ("--flex-point", "flex_point"), ("--p-small", "p_small"),
                    ("--p-large", "p_large"), ("--q", "q"), ("--percentage", "percentage"), ("--epsilon", "epsilon"),
                    ("--mu-c", "mu_c"), ("--sensitive-frequency", "sensitive_frequency"),
                    ("--scramble-keys", "scramble_keys"), ("--use-zero-rkeys", "use_zero_rkeys"))


def _numbers(text: str, flag: str) -> list[float]:
    from rumap.cli.flags import split_names

    out = []
    for part in split_names(text, flag):
        try:
            out.append(float(part))
        except ValueError:
            raise InputError(f"{flag}: {part!r} is not a number") from None
    return out


def _magnitude(args: argparse.Namespace) -> Any:
    """The magnitude parameters of the flags (:func:`rumap.tables.cellkey_nums.magnitude_params`)."""
    from rumap.tables.cellkey_nums import magnitude_params

    if (args.flex_point is None) == (args.percentage is None):
        raise InputError("a magnitude table needs --flex-point FP (the flex multiplier) or --percentage P (the "
                         "simple one), one of them")
    flex = [flag for flag, name in (("--p-small", "p_small"), ("--p-large", "p_large"), ("--q", "q"))
            if getattr(args, name) is not None]
    if args.percentage is not None and flex:
        raise InputError(f"{flex[0]} shapes the flex function: give it with --flex-point, not --percentage")
    if args.mu_c is not None and args.sensitive_frequency is None:
        raise InputError("--mu-c protects the sensitive cells: give --sensitive-frequency N too")
    options = {"top_k": args.top_k, "multiplier": "flex" if args.flex_point is not None else "simple",
               "fp": args.flex_point, "p": args.percentage, "mu_c": 0.0 if args.mu_c is None else args.mu_c,
               "same_key": not args.scramble_keys, "use_zero_rkeys": args.use_zero_rkeys,
               **({"epsilon": _numbers(args.epsilon, "--epsilon")} if args.epsilon is not None else {}),
               **{name: getattr(args, name) for name in ("p_small", "p_large", "q") if getattr(args, name) is not None}}
    try:
        return magnitude_params(args.magnitude_type or "top_contr", **options)
    except InputError as exc:
        text = str(exc)
        for name, flag in (("top_k", "--top-k"), ("fp", "--flex-point"), ("p_small", "--p-small"),
                           ("p_large", "--p-large"), ("q", "--q"), ("p", "--percentage"), ("mu_c", "--mu-c"),
                           ("epsilon", "--epsilon")):
            if text.startswith(name + " "):
                raise InputError(flag + text[len(name):]) from None
        raise InputError(text) from None


def _ptable(args: argparse.Namespace) -> PTable:
    from rumap.tables.ptable import create_ptable, read_ptable

    built = args.max_perturbation is not None or args.variance is not None
    magnitude = args.value_column is not None
    if not magnitude:
        given = [flag for flag, name in _MAGNITUDE_FLAGS if getattr(args, name) not in (None, False)]
        if given:
            raise InputError(f"{given[0]} applies to a magnitude table: give --value-column V")
    elif args.js:
        raise InputError("--js applies to frequency tables (no --value-column)")
    if args.ptable is not None:
        if magnitude and (args.step is not None or args.icat is not None):
            raise InputError("--ptable reads the perturbation table: give it without --step and --icat")
        if built or args.js:
            raise InputError("--ptable reads the perturbation table: give it without --max-perturbation, "
                             "--variance and --js")
        from rumap.io.data import read_table

        return read_ptable(read_table(args.ptable), f"--ptable {args.ptable}")
    if args.max_perturbation is None or args.variance is None:
        raise InputError("give --max-perturbation D and --variance V (or --ptable FILE)")
    try:
        if magnitude:
            return create_ptable(args.max_perturbation, args.variance, table="nums",
                                 step=1 if args.step is None else args.step,
                                 icat=None if args.icat is None else [int(v) for v in _numbers(args.icat, "--icat")])
        return create_ptable(args.max_perturbation, args.variance, args.js)
    except InputError as exc:
        text = str(exc)
        for name, flag in (("D * step ", "--max-perturbation x --step "), ("D ", "--max-perturbation "),
                           ("V ", "--variance "), ("js ", "--js "), ("step ", "--step "), ("icat ", "--icat ")):
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


def _magnitude_table(args: argparse.Namespace, dims: list[str], ptable: PTable, params: Any) -> CellKeyTable:
    """The magnitude table of ``--value-column``, in memory."""
    from rumap.cli.flags import check_flag
    from rumap.cli.table_microdata import _hierarchies
    from rumap.io.data import read_table
    from rumap.tables.cellkey_nums import cellkey_magnitude_table
    from rumap.tables.ndtable import build_table

    if args.engine == "scale":
        raise InputError("--value-column: the scale engine builds frequency tables only; a magnitude table is "
                         "built in memory (--engine memory)")
    if args.sensitive_frequency is not None:
        check_flag("--sensitive-frequency", "threshold", args.sensitive_frequency)
    frame = read_table(args.microdata)
    _check_columns(args, frame.columns)
    if args.value_column not in frame.columns:
        raise InputError(f"--value-column: no column {args.value_column!r} in {args.microdata}")
    hierarchies = _hierarchies(args.hierarchy or [], dims, frame)
    sensitive = None
    if args.sensitive_frequency is not None:
        counts = build_table(frame[dims], dims, hierarchies).frequencies
        sensitive = counts <= args.sensitive_frequency
    try:
        return cellkey_magnitude_table(frame, dims, args.value_column, ptable, params, hierarchies,
                                       record_key=args.record_key, seed=args.seed, weight=args.weight,
                                       sensitive=sensitive)
    except InputError as exc:
        raise InputError(str(exc).replace("value_column", "--value-column", 1)) from None


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
    params = _magnitude(args) if args.value_column is not None else None  # checked before the ptable is built
    ptable = _ptable(args)
    dims = split_names(args.dims, "--dims")
    if params is not None:
        result = _magnitude_table(args, dims, ptable, params)
    elif scale_engine(args, args.microdata):
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
