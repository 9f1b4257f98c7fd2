"""``python -m rumap table dp --microdata FILE --dims A,B[,C...] (--epsilon E | --rho R)``: a DP table.

The table is built from the microdata as ``table suppress --microdata`` builds
it (the same ``--hierarchy`` forms); noise of the chosen mechanism is added to
its finest cells at the scale OpenDP's measurement needs for the privacy loss
asked for, every subtotal and ``Total`` is the sum of its noisy children, and a
count table is published as non-negative integers that still add up
(:func:`rumap.tables.dp.dp_table`). ``--seed`` draws the noise from numpy's
generator, the same numbers for the same seed; without it OpenDP's sampler
draws it. ``--value-column V --bounds L:U`` sums V, each record's value
clamped to ``[L, U]``.
"""

from __future__ import annotations

import argparse

from rumap.cli.flags import WRITER_SUFFIXES, add_overwrite_flag, add_work_limit, budget_from_args, print_frame
from rumap.errors import InputError

#: The mechanisms of ``--mechanism``, the keys of :data:`rumap.privacy.accounting.MECHANISMS`.
MECHANISM_NAMES = ("laplace", "discrete-laplace", "gaussian", "discrete-gaussian")


def parse_bounds(text: str) -> tuple[float, float]:
    """``L:U`` as two numbers, L < U.

    Parameters
    ----------
    text : str

    Returns
    -------
    tuple of float
    """
    from rumap._validation import parse_number

    low, sep, high = str(text).rpartition(":")
    try:
        bounds = (parse_number(low), parse_number(high))
    except ValueError:
        bounds = None
    if not sep or bounds is None or not bounds[0] < bounds[1]:
        raise InputError(f"--bounds must be L:U, two numbers with L < U, got {text!r}")
    return bounds


def run_dp(args: argparse.Namespace) -> int:
    """Run ``table dp``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    from rumap.cli.flags import check_flag, split_names
    from rumap.cli.table_microdata import _hierarchies, _hierarchy_file

    if (args.epsilon is None) == (args.rho is None):
        raise InputError("give the privacy loss: --epsilon E or --rho R (Gaussian), one of them")
    if (args.value_column is None) != (args.bounds is None):
        raise InputError("--value-column and --bounds L:U go together (a sum needs the bounds of one contribution)")
    for flag, parameter, value in (("--epsilon", "privacy_loss", args.epsilon), ("--rho", "privacy_loss", args.rho),
                                   ("--delta", "risk_bound", args.delta), ("--seed", "seed", args.seed),
                                   ("--small", "threshold", args.small)):
        if value is not None:
            check_flag(flag, parameter, value)
    bounds = parse_bounds(args.bounds) if args.bounds is not None else None
    dims = split_names(args.dims, "--dims")
    from rumap.io.data import read_table
    from rumap.io.outputs import check_outputs
    from rumap.tables.dp import dp_table

    if args.out is not None:
        check_outputs([("--out", args.out)],
                      [("--microdata", args.microdata), *(("--hierarchy", _hierarchy_file(text))
                                                          for text in args.hierarchy or [] if "=" in text)],
                      args.overwrite)
    frame = read_table(args.microdata)
    hierarchies = _hierarchies(args.hierarchy or [], dims, frame)
    try:
        result = dp_table(frame, dims, hierarchies, args.value_column, bounds, mechanism=args.mechanism,
                          epsilon=args.epsilon, rho=args.rho, delta=args.delta, seed=args.seed, small=args.small,
                          budget=budget_from_args(args))
    except InputError as exc:  # the core names its parameters; here they are flags
        message = str(exc)
        for parameter, flag in (("loss: ", "--mechanism: "), ("delta: ", "--delta: "), ("rho: ", "--rho: "),
                                ("sensitivity: ", "--mechanism: "), ("epsilon, rho: ", "--epsilon, --rho: ")):
            message = message.replace(parameter, flag, 1) if message.startswith(parameter) else message
        raise InputError(message) from None
    if args.out is not None:
        from rumap.io.writers import write_table

        write_table(result.published_frame(), args.out, "--out", args.overwrite)
    if args.json:
        from rumap.cli import print_json

        out = result.to_dict()
        if args.out is not None:
            out["out"] = args.out
        print_json(out)
        return 0
    print_frame(result.published_frame())
    p = result.privacy
    loss = (f"epsilon {p.epsilon:.6g}" if p.rho is None else
            f"rho {p.rho:.6g} (zCDP), so epsilon {p.epsilon:.6g} at delta {p.delta:.3g}")
    print(f"{result.table.size} cells, noise on the {int(result.finest.sum())} finest: {p.mechanism} of scale "
          f"{p.scale:.6g} (sensitivity {p.sensitivity:g}), {loss}; drawn by {result.sampler}")
    if args.out is not None:
        print(f"written: {args.out}")
    return 0


def add_dp_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``dp`` to the ``table`` sub-subcommands.

    Parameters
    ----------
    commands : argparse._SubParsersAction
    """
    d = commands.add_parser(
        "dp", help="a table released with differential privacy (noise through OpenDP's accounting)",
        description="Build a count (or sum) table of up to 5 dimensions with every subtotal from --microdata, add "
                    "noise to its finest cells at the scale OpenDP's measurement needs for --epsilon (or --rho), "
                    "and publish every subtotal as the sum of its noisy children; counts are made non-negative "
                    "integers that still add up. Needs 'rumap[dp]' (OpenDP).")
    d.add_argument("--microdata", required=True, metavar="FILE", help="microdata to build the table from")
    d.add_argument("--dims", required=True, metavar="A,B[,C...]", help="the table's dimensions (1 to 5 columns)")
    d.add_argument("--hierarchy", action="append", metavar="A=FILE",
                   help="hierarchy of dimension A, as for 'table suppress' (repeatable); give every code this way "
                        "when the codes themselves are confidential")
    d.add_argument("--value-column", metavar="V", help="sum V (each record's value clamped to --bounds); default: count")
    d.add_argument("--bounds", metavar="L:U", help="with --value-column: the declared range of one contribution (--bounds=-10:100 when L is negative)")
    d.add_argument("--epsilon", type=float, metavar="E", help="privacy loss epsilon of the release")
    d.add_argument("--rho", type=float, metavar="R", help="privacy loss rho (zero-concentrated DP; Gaussian)")
    d.add_argument("--delta", type=float, metavar="D",
                   help="Gaussian: the delta of (epsilon, delta) (default 1e-6)")
    d.add_argument("--mechanism", choices=list(MECHANISM_NAMES), default="laplace",
                   help="the noise (default laplace); the discrete ones for counts only")
    d.add_argument("--seed", type=int, metavar="S",
                   help="draw the noise from numpy's generator seeded S (the same table for the same seed); "
                        "default: OpenDP's sampler (not reproducible)")
    d.add_argument("--small", type=int, default=3, metavar="N",
                   help="cells of 1 to N records are small: the disclosure measures (default 3)")
    d.add_argument("--out", metavar="FILE", help=f"write the published table ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(d)
    add_work_limit(d)
    d.add_argument("--json", action="store_true", help="print one JSON object")
