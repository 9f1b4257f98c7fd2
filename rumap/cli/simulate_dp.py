"""``python -m rumap simulate --method dp-table|mst --dims A,B --epsilon 0.1,0.3,1,3,10``: DP maps over epsilon.

The count table of ``--dims`` (with ``--hierarchy`` as in ``table dp``) is
released ``--replicates`` times at each epsilon (:func:`rumap.maps.dp_tables.dp_table_map`):
R is the share of its small cells (1 to ``--small`` records) whose true count
rounding the published value recovers, U one minus the mean relative error of
its non-empty finest cells (``--utility total``: of the grand total); the JSON's
``config`` holds every other measure per epsilon (the unit cells' share, the
attacker's interval of a small cell, the relative errors). ``--max-risk`` adds
the recommendation, as for every map. ``--beside-suppression 1:5`` adds the
same table protected by cell suppression over the threshold rule's n, on the
same R and U (:func:`rumap.maps.dp_tables.suppression_threshold_map`), as a
second curve.

``--method mst`` synthesizes the categorical columns of ``--dims`` with MST
``--replicates`` times at each epsilon (:func:`rumap.maps.mst.mst_map`): R is
the share of the original's unique combinations a synthetic record reproduces,
U one minus the mean total variation distance of the 2-way tables.
"""

from __future__ import annotations

import argparse
from typing import Any

from rumap.errors import InputError

#: The methods of ``simulate`` with differential privacy: a table released with noise, MST's synthetic records.
DP_TABLE_METHOD_NAMES = ("dp-table", "mst")

#: ``--utility`` of ``--method dp-table``: the keys of :data:`rumap.maps.dp_tables.DP_TABLE_UTILITIES`.
DP_TABLE_UTILITY_NAMES = ("cells", "total")

#: Flags of ``simulate`` that only these methods take: attribute -> (flag, methods).
DP_TABLE_FLAGS = {"dims": ("--dims", DP_TABLE_METHOD_NAMES), "epsilon": ("--epsilon", DP_TABLE_METHOD_NAMES),
                  "delta": ("--delta", DP_TABLE_METHOD_NAMES), "hierarchy": ("--hierarchy", ("dp-table",)),
                  "mechanism": ("--mechanism", ("dp-table",)), "small": ("--small", ("dp-table",)),
                  "beside_suppression": ("--beside-suppression", ("dp-table",))}


def add_dp_table_flags(p: argparse.ArgumentParser) -> None:
    """Add the flags of ``--method dp-table`` to ``simulate``.

    Parameters
    ----------
    p : argparse.ArgumentParser
    """
    from rumap.cli.table_dp import MECHANISM_NAMES

    group = p.add_argument_group("differential privacy (--method dp-table or mst; rumap[dp])")
    group.add_argument("--dims", metavar="A,B[,C...]",
                       help="dp-table: the count table's dimensions (1 to 5 columns of --data); mst: the categorical "
                            "columns synthesized (two or more)")
    group.add_argument("--hierarchy", action="append", metavar="A=FILE", help="hierarchy of A, as for 'table dp'")
    group.add_argument("--epsilon", metavar="E1,E2,...",
                       help="the privacy losses of the map: a list (0.1,0.3,1,3,10) or START:STOP:NUM")
    group.add_argument("--mechanism", choices=list(MECHANISM_NAMES), help="the noise (default laplace)")
    group.add_argument("--delta", type=float, metavar="D", help="Gaussian: the delta of (epsilon, delta)")
    group.add_argument("--small", type=int, metavar="N", help="cells of 1 to N records are small (default 3)")
    group.add_argument("--beside-suppression", metavar="START:STOP",
                       help="add the map of the same table protected by cell suppression over the threshold rule's "
                            "n (START to STOP), on the same R and U: a second curve on the one plane")


def _epsilons(text: str) -> list[float]:
    from rumap._validation import parse_number
    from rumap.cli.flags import parse_grid

    if ":" in text:
        return parse_grid(text, "epsilon").tolist()
    try:
        return [parse_number(part) for part in text.split(",")]
    except ValueError:
        raise InputError(f"--epsilon must be a list of numbers (0.1,0.3,1) or START:STOP:NUM, got {text!r}") from None


def run_dp(args: argparse.Namespace) -> int:
    """Run ``simulate --method dp-table`` or ``mst``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    return {"dp-table": _run_dp_table, "mst": _run_mst}[args.method](args)


def _checked(args: argparse.Namespace, needs: str, *extra: tuple[str, str, object]) -> tuple[list[str], list[float]]:
    """The columns of ``--dims`` and the grid of ``--epsilon``, every shared flag checked against its entry."""
    from rumap.cli.flags import check_flag, split_names

    if args.dims is None or args.epsilon is None:
        raise InputError(f"--method {args.method} needs --dims A,B[,C...] ({needs}) and --epsilon E1,E2,...")
    for flag, entry, value in (("--replicates", "replicates", args.replicates), ("--seed", "seed", args.seed),
                               ("--delta", "risk_bound", args.delta), ("--max-risk", "max_risk", args.max_risk),
                               *extra):
        if value is not None:
            check_flag(flag, entry, value)
    if args.decision is not None and args.max_risk is None:
        raise InputError("--decision needs --max-risk (the bound it decides against)")
    epsilons = _epsilons(args.epsilon)
    for value in epsilons:
        check_flag("--epsilon", "privacy_loss", value)
    return split_names(args.dims, "--dims"), epsilons


def _report(args: argparse.Namespace, m: Any, n: int, head: str, shown: Any, beside: Any = None) -> int:
    """Print the map (and a second curve beside it) as curve JSON or a table, with ``--max-risk``'s recommendation."""
    from rumap.cli.json_output import SIMULATION_CURVE_KEYS, curve_dict
    from rumap.maps.recommend import recommend

    choice = None if args.max_risk is None else recommend([m], args.max_risk, args.decision or "upper")
    if args.json:
        from rumap.cli import print_json

        out = {"curves": [curve_dict(m, SIMULATION_CURVE_KEYS)], "n": n,
               "config": {**m.config, "method": args.method, "parameter": "epsilon", "values": m.values.tolist(),
                          "data": args.data}}
        if beside is not None:
            out["curves"].append(curve_dict(beside, SIMULATION_CURVE_KEYS))
            out["beside"] = beside.config
        if choice is not None:
            out["recommendation"] = choice.to_dict()
        print_json(out)
        return 0

    print(f"{head} (n = {n}, M = {args.replicates}, seed {args.seed}); R: {m.risk_label}; U: {m.utility_label}")
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if beside is not None:
        print("beside it, cell suppression (threshold rule, protection 10%) on the same R and U:")
        print(beside.to_frame().drop(columns=["method", "knowledge", "target"])
              .assign(suppressed=beside.config["suppressed"]).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if choice is not None:
        from rumap.cli.flags import recommendation_line

        print(recommendation_line(choice))
    return 0


def _run_mst(args: argparse.Namespace) -> int:
    """``simulate --method mst``: MST's synthetic records over epsilon (:func:`rumap.maps.mst.mst_map`)."""
    if args.utility is not None:
        raise InputError("--utility does not apply to --method mst (U is 1 - the mean TVD of the 2-way tables)")
    columns, epsilons = _checked(args, "the columns synthesized")
    from rumap.io.data import read_table
    from rumap.maps.mst import mst_map

    frame = read_table(args.data)
    try:
        m = mst_map(frame, columns, epsilons, delta=args.delta, replicates=args.replicates, seed=args.seed)
    except InputError as exc:  # the core names its parameter; here it is the flag
        message = str(exc)
        raise InputError(message.replace("columns: ", "--dims: ", 1) if message.startswith("columns: ")
                         else message) from None
    shown = m.to_frame().drop(columns=["method", "knowledge", "target"]).assign(mean_tvd=m.config["mean_tvd"])
    return _report(args, m, int(frame.shape[0]), f"MST synthetic records of {', '.join(columns)}; "
                   f"{int(m.config['uniques'])} unique combinations", shown)


def _run_dp_table(args: argparse.Namespace) -> int:
    """``simulate --method dp-table``: the map over epsilon, and cell suppression's beside it."""
    from rumap.cli.flags import budget_from_args, check_flag, parse_grid
    from rumap.cli.table_microdata import _hierarchies

    if args.utility is not None and args.utility not in DP_TABLE_UTILITY_NAMES:
        raise InputError(f"--utility must be one of {', '.join(DP_TABLE_UTILITY_NAMES)} with --method dp-table, "
                         f"got {args.utility!r}")
    dims, epsilons = _checked(args, "the table's dimensions", ("--small", "threshold", args.small))
    from rumap.io.data import read_table
    from rumap.maps.dp_tables import dp_table_map, suppression_threshold_map
    from rumap.tables.ndtable import build_table

    frame = read_table(args.data)
    table = build_table(frame, dims, _hierarchies(args.hierarchy or [], dims, frame), None,
                        budget=budget_from_args(args))
    small = 3 if args.small is None else args.small
    try:
        m = dp_table_map(table, epsilons, mechanism=args.mechanism or "laplace", delta=args.delta,
                         utility=args.utility or "cells", replicates=args.replicates, seed=args.seed, small=small)
    except InputError as exc:  # the core names its parameters; here they are flags
        message = str(exc)
        raise InputError(message.replace("rho: ", "--mechanism: ", 1) if message.startswith("rho: ")
                         else message.replace("delta: ", "--delta: ", 1)) from None
    beside = None
    if args.beside_suppression is not None:
        thresholds = parse_grid(args.beside_suppression, "beside_suppression", integer=True)
        for value in thresholds:
            check_flag("--beside-suppression", "threshold", int(value))
        beside = suppression_threshold_map(table, thresholds, utility=args.utility or "cells", small=small)
    shown = m.to_frame().drop(columns=["method", "knowledge", "target"])
    for key in ("unit_recovered", "interval_half_width", "total_relative_error"):
        shown[key] = m.config[key]
    return _report(args, m, int(frame.shape[0]), f"{m.target} noise on {' x '.join(dims)}", shown, beside)
