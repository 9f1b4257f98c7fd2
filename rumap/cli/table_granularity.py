"""``python -m rumap table granularity``: the index of granularity of every hyper-row of a table.

After Mas, *Statistical Data Protection Techniques* (EUSTAT).
"""

from __future__ import annotations

import argparse

from rumap._validation import assumes_valid
from rumap.cli.flags import add_work_limit, budget_from_args, check_flag

__all__ = ["add_granularity_parser", "run_granularity"]


@assumes_valid
def run_granularity(args: argparse.Namespace) -> int:
    """Run ``table granularity``.

    Parameters
    ----------
    args : argparse.Namespace
        ``table``, ``threshold``, ``count_column``, ``json``, ``work_limit``.

    Returns
    -------
    int
        0 (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    import pandas as pd

    from rumap.io.data import read_table
    from rumap.tables.granularity import granularity

    threshold = check_flag("--threshold", "granularity_threshold", args.threshold)
    result = granularity(read_table(args.table), threshold=threshold, count=args.count_column,
                         budget=budget_from_args(args))
    if args.json:
        from rumap.cli import print_json

        print_json(result.to_dict())
        return 0
    with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 120):
        print(result.to_frame().to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"table {'safe' if result.safe else 'unsafe'}: {result.unsafe_rows} hyper-row(s) with an index of "
          f"granularity >= {threshold:g}% (largest {result.max_index:.4g}%)")
    return 0


@assumes_valid
def add_granularity_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``granularity`` to the ``table`` sub-subcommands.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The ``table`` subcommand's sub-subcommands.

    Returns
    -------
    argparse.ArgumentParser
    """
    g = commands.add_parser("granularity", help="index of granularity of every hyper-row (unit cells / cells x 100)",
                            description="Index of granularity of each hyper-row: unit cells over cells with a value "
                                        "x 100; the table is unsafe when a hyper-row reaches the threshold. The "
                                        "table is long (one column per variable and a count column) or 2-D (row "
                                        "labels, then one column per category; totals left out).")
    g.add_argument("--table", required=True, metavar="FILE", help="the frequency table (CSV, Excel, ...)")
    g.add_argument("--threshold", type=float, default=50.0, metavar="T",
                   help="index (percent) at which a hyper-row is unsafe (default 50)")
    g.add_argument("--count-column", default="count", metavar="NAME",
                   help="the frequency column of a long table (default count)")
    g.add_argument("--json", action="store_true", help="print one JSON object")
    add_work_limit(g)
    return g
