"""``python -m rumap table``: sensitivity rules and a posteriori disclosure risk of tables.

Sub-subcommands:

- ``bounds``: LP bounds and risk 1/log2 m of the suppressed cells of a 2-D table
  (Domingo-Ferrer, Oganian & Torra, Section 4.1);
- ``rules``: threshold, (n,k)-dominance, p% or pq rule on each cell of a
  magnitude table given by its contributions;
- ``dominance-flaw``: Lemma 1 and Constructions 1-2 of Domingo-Ferrer & Torra
  (2004) for given n, k and number of contributions N;
- ``suppress`` and ``round``: secondary cell suppression and controlled
  rounding of a complete table (:mod:`rumap.cli.table_protection`);
- ``dp``: a table released with differential privacy (:mod:`rumap.cli.table_dp`).
- ``ckm``: a frequency table perturbed by the cell key method
  (:mod:`rumap.cli.table_ckm`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rumap.cli.flags import RULE_NAMES, add_rule_flags, print_frame, rule_parameters
from rumap.cli.table_ckm import add_ckm_parser, run_ckm
from rumap.cli.table_dp import add_dp_parser, run_dp
from rumap.cli.table_granularity import add_granularity_parser, run_granularity
from rumap.cli.table_protection import add_parsers as add_protection_parsers
from rumap.cli.table_protection import run_round, run_suppress
from rumap.errors import InputError

HELP = "tables: sensitivity rules, the dominance rule's flaw, LP bounds and risk of suppressed cells"


def _run_bounds(args: argparse.Namespace) -> int:
    from rumap.tables.bounds import suppression_bounds
    from rumap.tables.insider import insider_bounds
    from rumap.tables.table_files import read_published_table

    table = read_published_table(args.table)
    insider_args = (args.insider_row, args.insider_column, args.contribution)
    if any(a is not None for a in insider_args) and not all(a is not None for a in insider_args):
        raise InputError("--insider-row, --insider-column and --contribution go together")
    bounds = suppression_bounds(table, resolution=args.resolution)
    insider = (insider_bounds(table, args.insider_row, args.insider_column, args.contribution,
                              resolution=args.resolution) if args.contribution is not None else None)
    if args.json:
        from rumap.cli import print_json

        out = bounds.to_dict()
        if insider is not None:
            out["insider"] = {"row": insider.row, "column": insider.column, "contribution": insider.contribution,
                              "cells": insider.insider.to_dict()["cells"], "others": insider.view.to_dict()}
        print_json(out)
        return 0
    if not bounds.labels:
        print("no suppressed cells")
        return 0
    print_frame(bounds.to_frame())
    print(f"largest risk {bounds.max_risk:.6g}, mean risk {bounds.mean_risk:.6g}")
    if insider is not None:
        print(f"insider of row {insider.row!r}, column {insider.column!r} contributing {insider.contribution:g}:")
        print_frame(insider.insider.to_frame())
        v = insider.view
        print(f"the other contributors to that cell total {v.insider_min:g} .. {v.insider_max:g} "
              f"(risk {v.insider_risk:.6g}; an outsider: 0 .. {v.outsider_max:g}, risk {v.outsider_risk:.6g})")
    return 0


def _run_rules(args: argparse.Namespace) -> int:
    from rumap.tables.rules import apply_rule
    from rumap.tables.table_files import read_contributions

    contributions = read_contributions(args.contributions, args.cell_column, args.value_column)
    result = apply_rule(contributions, rule=args.rule, **rule_parameters(args))
    if args.json:
        from rumap.cli import print_json

        print_json(result.to_dict())
        return 0
    print_frame(result.to_frame())
    sensitive = result.sensitive_cells
    print(f"{len(sensitive)} of {len(result.cells)} cells sensitive" + (f": {', '.join(sensitive)}" if sensitive
                                                                         else ""))
    return 0


def _run_dominance_flaw(args: argparse.Namespace) -> int:
    from rumap.tables.dominance import dominance_flaw

    flaw = dominance_flaw(args.n, args.k, args.cells)
    if args.json:
        from rumap.cli import print_json

        print_json(flaw.to_dict())
        return 0
    print(f"Lemma 1: r = {flaw.r:.6g} solves (r^{flaw.n} - 1)/(r^{flaw.cells} - 1) = {flaw.k:g}")
    print_frame(flaw.to_frame())
    print(f"non-sensitive cell (Construction 1): tail of the {flaw.cells - flaw.n - 1} smallest = "
          f"{flaw.nonsensitive_tail:.6g}, coalition's bound on the largest = {flaw.nonsensitive_bound:.6g}")
    print(f"sensitive cell (Construction 2): tail = {flaw.sensitive_tail:.6g}, "
          f"coalition's bound on the largest = {flaw.sensitive_bound:.6g}")
    print("Theorem 1 " + ("holds: the cell the rule lets through gives the closer bound" if flaw.theorem_holds
                          else f"does not hold yet for N = {flaw.cells}: take more contributions"))
    return 0


#: table sub-subcommand -> its runner.
RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "bounds": _run_bounds,
    "rules": _run_rules,
    "dominance-flaw": _run_dominance_flaw,
    "granularity": run_granularity,
    "suppress": run_suppress,
    "round": run_round,
    "dp": run_dp,
    "ckm": run_ckm,
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``table`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    from rumap.cli import OneLineParser

    p = subparsers.add_parser("table", help=HELP, description=HELP)
    commands = p.add_subparsers(dest="table_command", metavar="TABLE_COMMAND", parser_class=OneLineParser)
    commands.required = True

    b = commands.add_parser("bounds", help="LP bounds and risk 1/log2 m of suppressed cells",
                            description="Bounds of the suppressed cells (written x) of a 2-D table with its totals "
                                        "(first column: row labels; last row and last column: totals).")
    b.add_argument("--table", required=True, metavar="FILE", help="the published table (CSV, Excel, ...)")
    b.add_argument("--resolution", type=float, default=1.0,
                   help="step between possible cell values (default 1: integer cells)")
    b.add_argument("--insider-row", metavar="ROW", help="an insider's suppressed cell: its row label")
    b.add_argument("--insider-column", metavar="COLUMN", help="the insider's cell: its column label")
    b.add_argument("--contribution", type=float, help="the insider's own contribution to that cell")
    b.add_argument("--json", action="store_true", help="print one JSON object")

    r = commands.add_parser("rules", help="sensitivity rules on each cell of a magnitude table",
                            description="Apply a sensitivity rule to each cell. The contributions file has one row "
                                        "per respondent: column 'cell' (the cell it falls in) and column 'value' "
                                        "(its non-negative contribution).")
    r.add_argument("--contributions", required=True, metavar="FILE", help="contributions file (columns cell,value)")
    r.add_argument("--rule", required=True, choices=list(RULE_NAMES), help="the sensitivity rule")
    add_rule_flags(r)
    r.add_argument("--json", action="store_true", help="print one JSON object")

    d = commands.add_parser("dominance-flaw", help="Lemma 1 and Constructions 1-2 of the dominance rule's flaw",
                            description="Domingo-Ferrer & Torra (2004): a non-sensitive and a sensitive cell of N "
                                        "contributions whose coalition bounds favour the non-sensitive one.")
    d.add_argument("--n", type=int, required=True, help="the dominance rule's n")
    d.add_argument("--k", type=float, required=True, help="the dominance rule's k, n/N < k < 1")
    d.add_argument("--cells", type=int, required=True, metavar="NUM", help="number N of contributions per cell")
    d.add_argument("--json", action="store_true", help="print one JSON object")
    add_granularity_parser(commands)
    add_protection_parsers(commands)
    add_dp_parser(commands)
    add_ckm_parser(commands)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the chosen ``table`` command (``bounds``, ``rules`` or ``dominance-flaw``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``table``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    return RUNNERS[args.table_command](args)
