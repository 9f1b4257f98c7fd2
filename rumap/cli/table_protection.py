"""``python -m rumap table suppress`` and ``table round``: protect a complete 2-D table.

- ``suppress``: secondary cell suppression (Fischetti-Salazar MILP, HiGHS) of
  the primary cells given as ``--primary ROW:COL`` or marked by a sensitivity
  rule on a contributions file whose cell column names table cells ``ROW:COL``;
  with ``--microdata`` instead of ``--table``, an n-D hierarchical table built
  from microdata (:mod:`rumap.cli.table_microdata`);
- ``round``: additive controlled rounding to base b (MILP).
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING

from rumap._validation import PARAMETERS, parse_number
from rumap.cli.flags import (
    RULE_NAMES,
    WRITER_SUFFIXES,
    add_overwrite_flag,
    add_rule_flags,
    add_work_limit,
    budget_from_args,
    print_frame,
    rule_parameters,
)
from rumap.cli.table_microdata import TABLE_METHOD_NAMES, _native_output_silenced
from rumap.errors import InputError

if TYPE_CHECKING:
    from rumap.tables.published import PublishedTable

#: The costs of secondary suppression, the keys of :data:`rumap.tables.secondary.COSTS` (the parser's choices,
#: without importing the LP's module; ``tests/cli/test_startup.py`` checks they agree).
COST_NAMES = ("value", "cells", "unity")

#: Between the row and the column label of a cell on the command line and in contributions files.
CELL_SEPARATOR = ":"


def parse_cell(text: str, table: PublishedTable, what: str = "--primary") -> tuple[str, str]:
    """The (row, column) labels of ``ROW:COL`` in ``table`` (labels may hold ``:``; the split that names a cell wins).

    Parameters
    ----------
    text : str
        ``ROW:COL``; totals are ``Total``.
    table : PublishedTable
    what : str
        Where the text came from, for messages.

    Returns
    -------
    tuple of str
    """
    text = str(text)
    if CELL_SEPARATOR not in text:
        raise InputError(f"{what} must be ROW:COL, got {text!r}")
    from rumap.tables.published import TOTAL_LABEL

    rows = {*table.row_labels, TOTAL_LABEL}
    columns = {*table.column_labels, TOTAL_LABEL}
    for i, ch in enumerate(text):
        if ch == CELL_SEPARATOR and text[:i] in rows and text[i + 1:] in columns:
            return text[:i], text[i + 1:]
    row, _, column = text.partition(CELL_SEPARATOR)
    shown = text if len(text) <= 80 else text[:77] + "..."
    raise InputError(f"{what} {shown!r} names no cell of the table (rows {sorted(rows)}, columns {sorted(columns)})"
                     if len(rows) + len(columns) <= 40 else f"{what} {shown!r} names no cell of the table")


def _primaries_from_rule(args: argparse.Namespace, table: PublishedTable) -> tuple[list[tuple[str, str]],
                                                                                 dict[tuple[str, str], float]]:
    from rumap.tables.rules import apply_rule
    from rumap.tables.table_files import read_contributions

    contributions = read_contributions(args.contributions, args.cell_column, args.value_column or "value")
    result = apply_rule(contributions, rule=args.rule, **rule_parameters(args))
    counts = Counter(str(c) for c in contributions.cells)
    frequencies = {parse_cell(cell, table, "contributions cell"): float(n) for cell, n in counts.items()}
    return [parse_cell(cell, table, "contributions cell") for cell in result.sensitive_cells], frequencies


def run_suppress(args: argparse.Namespace) -> int:
    """Run ``table suppress``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    if (args.table is None) == (args.microdata is None):
        raise InputError("give --table FILE (a complete 2-D table) or --microdata FILE --dims A,B[,C...], not both")
    if args.microdata is not None:
        from rumap.cli.table_microdata import run_microdata

        return run_microdata(args)
    for flag, value in (("--dims", args.dims), ("--hierarchy", args.hierarchy), ("--method", args.method),
                        ("--out", args.out), ("--no-singletons", args.no_singletons or None),
                        ("--overwrite", args.overwrite or None)):
        if value is not None:
            raise InputError(f"{flag} goes with --microdata, not --table")
    from rumap.tables.secondary import suppress_secondary
    from rumap.tables.table_files import read_published_table

    table = read_published_table(args.table)
    budget = budget_from_args(args)
    if args.contributions is None and args.rule is not None:
        raise InputError("--rule needs --contributions")
    if args.contributions is not None and args.rule is None:
        raise InputError("--contributions needs --rule")
    if args.contributions is None and not args.primary:
        raise InputError("give the primary cells: --primary ROW:COL, or --contributions FILE --rule RULE")
    primary = [parse_cell(text, table) for text in args.primary or []]
    frequencies = None
    if args.contributions is not None:
        ruled, frequencies = _primaries_from_rule(args, table)
        primary = list(dict.fromkeys([*primary, *ruled]))
    with _native_output_silenced():
        result = suppress_secondary(table, primary, protection=args.protection, cost=args.cost,
                                    time_limit=args.time_limit, budget=budget, frequencies=frequencies,
                                    external=args.external)
    if args.json:
        from rumap.cli import print_json

        print_json(result.to_dict())
        return 0
    print_frame(result.to_frame())
    print(f"{len(result.primary)} primary, {len(result.secondary)} secondary cells suppressed; cost "
          f"{result.cost:.6g} ({result.config['cost']}); method {result.method}, "
          + ("proven optimal" if result.optimal else f"gap {100 * result.gap:.3g}%"))
    print("every primary's audit interval clears its protection levels" if result.all_protected else
          "some primaries are not protected: " + ", ".join(
              f"{r}:{c}" for (r, c), ok in zip(result.primary, result.protected, strict=True) if not ok))
    return 0


def run_round(args: argparse.Namespace) -> int:
    """Run ``table round``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    from rumap.tables.controlled_rounding import controlled_round
    from rumap.tables.table_files import read_published_table

    table = read_published_table(args.table)
    budget = budget_from_args(args)
    with _native_output_silenced():
        result = controlled_round(table, args.base, time_limit=args.time_limit, budget=budget)
    if args.json:
        from rumap.cli import print_json

        print_json(result.to_dict())
        return 0
    print(result.table().to_text_frame().to_string())
    print()
    print_frame(result.to_frame())
    print(f"base {result.base:g}: total absolute deviation {result.total_absolute_deviation:.6g}, largest "
          f"{result.max_absolute_deviation:.6g}; " + ("proven optimal" if result.optimal else
                                                     f"gap {100 * result.gap:.3g}%"))
    return 0


def _time_limit(text: str) -> float:
    try:
        value = parse_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds in ASCII digits, got {text!r}") from None
    if not PARAMETERS["time_limit"].contains(value):
        raise argparse.ArgumentTypeError(f"must be {PARAMETERS['time_limit'].describe()} seconds, got {text!r}")
    return value


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``suppress`` and ``round`` to the ``table`` sub-subcommands.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        The ``table`` subcommand's sub-subcommands.
    """
    s = commands.add_parser(
        "suppress", help="secondary cell suppression at least cost (MILP)",
        description="Protect the primary cells of a complete 2-D table with its totals (format of 'table bounds', "
                    "no x) by suppressing further cells at least cost, so that the attacker's LP interval of "
                    "every primary clears P% of its value both ways. Cells are ROW:COL, totals 'Total'. Or build "
                    "a table of up to 5 dimensions, flat or hierarchical, from --microdata, mark its primaries by "
                    "--rule and protect every level at once; --dims repeated builds linked tables from the one file, "
                    "protected together.")
    s.add_argument("--table", metavar="FILE", help="the complete table (CSV, Excel, ...)")
    s.add_argument("--microdata", metavar="FILE",
                   help="microdata to build the table from, with every subtotal and total (with --dims and --rule)")
    s.add_argument("--dims", action="append", metavar="A,B[,C...]",
                   help="the table's dimensions (1 to 5 columns of --microdata); repeat it for linked tables from "
                        "the one file, protected together (a shared cell suppressed in all or none)")
    s.add_argument("--hierarchy", action="append", metavar="A=FILE",
                   help="hierarchy of dimension A: a tau-Argus .hrc file or a parent,child CSV (by its name), "
                        "A=hrc:FILE or A=parent_child:FILE (the format named), or A=prefixes:1,3 (A's codes cut to "
                        "each length, top level first) (repeatable)")
    s.add_argument("--method", choices=list(TABLE_METHOD_NAMES),
                   help="with --microdata: optimal (cutting planes, proven gap) or heuristic (HiTaS' pass over the "
                        "subtables); default optimal up to 5,000 non-empty cells, heuristic above")
    s.add_argument("--no-singletons", action="store_true",
                   help="with --microdata and --value-column: drop tau-Argus's singleton rules (in a line holding a "
                        "one-record primary, never only two primaries, or its total and two primaries, suppressed); "
                        "they never apply to a table of counts")
    s.add_argument("--out", metavar="FILE",
                   help=f"with --microdata: write the protected table ({', '.join(WRITER_SUFFIXES)}), suppressed "
                        "cells empty; linked tables: one file each, FILE-1.EXT, FILE-2.EXT, ... in --dims order")
    add_overwrite_flag(s)
    s.add_argument("--primary", action="append", metavar="ROW:COL", help="a primary cell (repeat the flag)")
    s.add_argument("--protection", type=float, default=10.0, metavar="P",
                   help="protection level, percent of each primary's value in both directions (default 10)")
    s.add_argument("--cost", choices=list(COST_NAMES), default="value",
                   help="cost of a suppression: the cell's value, its contributors (with --contributions; else 1) "
                        "or 1 per cell (default value)")
    s.add_argument("--external", type=float, metavar="PERCENT",
                   help="the attacker knows every cell within PERCENT %% of its value (default: only >= 0)")
    s.add_argument("--contributions", metavar="FILE",
                   help="contributions file whose cell column names table cells ROW:COL; --rule marks primaries")
    s.add_argument("--rule", choices=list(RULE_NAMES), help="sensitivity rule marking primaries (with --contributions)")
    add_rule_flags(s, cell_help="column naming the cell ROW:COL (default cell)",
                   value_help="the contribution: of --contributions (default value), or of --microdata (default: "
                              "none, the table counts records)")
    s.add_argument("--time-limit", type=_time_limit, default=30.0, metavar="SECONDS",
                   help="nominal time for the MILP (default 30), turned into a solve limit (master rounds, "
                        "branch-and-bound nodes) that decides when it stops, so the pattern is the same on any "
                        "machine; then the best pattern found, its gap and stopped_on 'solve_limit'")
    add_work_limit(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")

    r = commands.add_parser(
        "round", help="controlled rounding to base b, additive (MILP)",
        description="Round every cell of a complete 2-D table with its totals to a multiple of B next to it, so "
                    "that the rounded table still adds up, at least total absolute deviation.")
    r.add_argument("--table", required=True, metavar="FILE", help="the complete table (CSV, Excel, ...)")
    r.add_argument("--base", type=float, required=True, metavar="B", help="the rounding base, > 0")
    r.add_argument("--time-limit", type=_time_limit, default=30.0, metavar="SECONDS",
                   help="time for the MILP (default 30)")
    add_work_limit(r)
    r.add_argument("--json", action="store_true", help="print one JSON object")
