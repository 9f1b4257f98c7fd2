"""``python -m rumap protect swap``: targeted record swapping of households across a geographic hierarchy.

``--similar`` lists the similarity sets tried in order, separated by commas,
the variables of one set joined by ``+`` (``--similar hsize+ageband,hsize``).
The summary gives the households and records swapped per level of the
hierarchy and the households at risk left unswapped, with the risk of the
keys within the finest areas before and after.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rumap._validation.text import similar_sets, split_names
from rumap.cli.flags import WRITER_SUFFIXES, add_method_flag, add_overwrite_flag, add_work_limit, check_flag
from rumap.errors import InputError
from rumap.release.swap_step import SWAP_STEP


def add_swap_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``swap`` to the ``protect`` methods.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``protect`` subcommand's methods.

    Returns
    -------
    argparse.ArgumentParser
        The ``swap`` parser (``protect`` sets what runs it).
    """
    sw = sub.add_parser("swap", help="targeted record swapping of households across a geographic hierarchy",
                        description="Swap the geography of every household holding a record whose keys fewer than "
                                    "K records share in its area at some level of --hierarchy, and of random "
                                    "others up to --swaprate of the households, with a household of another area "
                                    "that agrees on the --similar variables (the lowest level tried first).")
    sw.add_argument("--data", required=True, help="microdata file, one person per row")
    own = (*SWAP_STEP.flags, *SWAP_STEP.text_flags)  # the flags of the release step, from its record
    add_method_flag(sw, own, "--hierarchy", required=True)
    sw.add_argument("--keys", required=True, metavar="A,B,...", help="key variables of the risk")
    add_method_flag(sw, own, "--household", required=True)
    add_method_flag(sw, own, "--similar", required=True)
    add_method_flag(sw, own, "--carry-along")
    add_method_flag(sw, own, "--k", default=3)
    add_method_flag(sw, own, "--swaprate", default=0.05)
    sw.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sw.add_argument("--out", metavar="FILE", help=f"write the swapped file ({', '.join(WRITER_SUFFIXES)})")
    add_overwrite_flag(sw)
    add_work_limit(sw)
    sw.add_argument("--json", action="store_true", help="print one JSON object")
    sw.set_defaults(weight=None)
    return sw


def run_swap(args: argparse.Namespace, read: Callable[[argparse.Namespace], Any], finish: Callable[..., int]) -> int:
    """``protect swap``: targeted record swapping.

    Parameters
    ----------
    args : argparse.Namespace
    read : callable
        ``read(args)``: the file of ``--data`` as the other protections read it.
    finish : callable
        ``finish(args, frame, protected, keys, summary, lines)``, as the other protections finish.

    Returns
    -------
    int
    """
    from rumap.masking.targeted_swap import targeted_swap

    check_flag("--k", "k", args.k)
    check_flag("--swaprate", "swaprate", args.swaprate)
    check_flag("--seed", "seed", args.seed)
    hierarchy = split_names(args.hierarchy, "--hierarchy")
    keys = split_names(args.keys, "--keys")
    carry = split_names(args.carry_along, "--carry-along") if args.carry_along else []
    sets = similar_sets(args.similar)
    frame = read(args)
    flags = {}
    for flag, cols in (("--keys", keys), ("--household", [args.household]), ("--hierarchy", hierarchy),
                       ("--similar", [c for s in sets for c in s]), ("--carry-along", carry)):
        for c in cols:
            if c not in frame.columns:
                raise InputError(f"{flag}: no column {c!r} in {args.data}")
            flags[c] = flag
    try:
        result = targeted_swap(frame, hierarchy, keys, args.household, sets, carry_along=carry, k=args.k,
                               swaprate=args.swaprate, seed=args.seed)
    except InputError as exc:
        text = str(exc)
        prefix = "household variable "
        if text.startswith(prefix):
            column = text[len(prefix):].split(":", 1)[0].strip("'")
            text = f"{flags.get(column, '--hierarchy')} {text[len(prefix):]}"
        raise InputError(text) from None
    summary = {"method": "swap", **result.to_dict()}
    lines = [f"targeted swapping of {args.data}: {result.swapped_households} of {result.households} households "
             f"swapped ({100 * summary['swapped_share']:.2f}%), {summary['records_swapped']} records"]
    for level, counts in summary["levels"].items():
        lines.append(f"  {level}: {counts['households']} households, {counts['records']} records swapped; "
                     f"{counts['households_at_risk']} households at risk")
    if result.unswapped_at_risk:
        lines.append(f"{result.unswapped_at_risk} households at risk left unswapped: {summary['unswapped_reason']}")
    return finish(args, frame, result.data, [hierarchy[-1], *keys], summary, lines)
