"""``python -m rumap analytic``: analytic R-U maps for additive noise (Duncan et al. 2001, Eq 1-10)."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from rumap._validation import parse_grid
from rumap.errors import InputError
from rumap.io.data import numeric_column, read_table
from rumap.maps.analytic import STATES, AnalyticSetting, analytic_map
from rumap.maps.families import FAMILIES
from rumap.maps.optimum import crossings, envelope, max_tolerable_risk
from rumap.present.statements import describe_optimum

HELP = "analytic R-U map of additive noise for the snooper's knowledge states"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("analytic", help=HELP, description=HELP)
    p.add_argument("--n", type=int, help="number of records (from --data when given)")
    p.add_argument("--sigma2", type=float, help="variance of the data (from --data when given)")
    p.add_argument("--mu", type=float, help="mean of the data (default 0, or from --data)")
    p.add_argument("--tau", type=float, help="target value for state mean-target (Eq 1)")
    p.add_argument("--p", type=float, default=0.99, help="percentile for state percentile (default 0.99)")
    p.add_argument("--family", default="normal", choices=list(FAMILIES),
                   help="distribution family of the data for state percentile (default normal: Eq 8)")
    p.add_argument("--shape", type=float, help="shape parameter of --family (lognormal s, gamma a, t df)")
    p.add_argument("--data", help="data file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    p.add_argument("--column", help="numeric column of --data")
    p.add_argument("--lambda2", required=True, metavar="START:STOP:NUM", help="grid of noise variances")
    p.add_argument("--state", action="append", required=True, metavar="NAME",
                   help=f"knowledge state, repeatable: {', '.join(STATES)}")
    p.add_argument("--max-risk", type=float, help="maximum tolerable risk R_max")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def setting_from_args(args: argparse.Namespace) -> AnalyticSetting:
    """The analytic setting described by the command line."""
    overrides = {"n": args.n, "sigma2": args.sigma2, "mu": args.mu, "tau": args.tau, "p": args.p,
                 "family": args.family, "shape": args.shape}
    if args.data is not None or args.column is not None:
        if args.data is None or args.column is None:
            raise InputError("--data and --column go together")
        column = numeric_column(read_table(args.data), args.column, source=args.data)
        return AnalyticSetting.from_data(column, **overrides)
    if args.n is None or args.sigma2 is None:
        raise InputError("--n and --sigma2 are required unless --data and --column are given")
    return AnalyticSetting(**{k: v for k, v in overrides.items() if v is not None})


def run(args: argparse.Namespace) -> int:
    for state in args.state:
        if state not in STATES:
            raise InputError(f"unknown --state {state!r}; choose from {', '.join(STATES)}")
    states = list(dict.fromkeys(args.state))
    setting = setting_from_args(args)
    lam = parse_grid(args.lambda2, "lambda2")
    maps = analytic_map(states, lam, setting)
    optima = {s: max_tolerable_risk(s, setting, args.max_risk) for s in states} if args.max_risk is not None else {}
    cross = crossings(states, setting, (float(lam.min()), float(lam.max()))) if len(states) > 1 else []
    if args.json:
        from rumap.cli import print_json

        rational = envelope(maps)
        print_json({
            "curves": [{"state": m.knowledge, "lambda2": m.values, "risk": m.risk, "utility": m.utility,
                        "efficiency": m.efficiency} for m in maps],
            "optimum": {s: o.to_dict() for s, o in optima.items()},
            "crossings": [c.to_dict() for c in cross],
            "envelope": {"lambda2": rational.values, "risk": rational.risk,
                         "best_state": rational.config["best_state"]},
            "config": {**setting.config(), "states": states, "lambda2": args.lambda2, "max_risk": args.max_risk},
        })
        return 0
    table = pd.DataFrame({"lambda2": lam, "U": maps[0].utility, "efficiency": maps[0].efficiency})
    for m in maps:
        table[f"R[{m.knowledge}]"] = m.risk
    with pd.option_context("display.max_rows", None, "display.width", 200):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    for state, opt in optima.items():
        print(f"optimum for {state} (R_max = {args.max_risk:g}): " + (
            f"lambda2 = {opt.lambda2:.6g}, R = {opt.risk:.6g}, U = {opt.utility:.6g}, "
            f"efficiency = {opt.efficiency:.4f}" if opt.reachable else "unreachable"))
        print(f"  {describe_optimum(opt)}")
    for c in cross:
        print(f"crossing: {c.states[0]} and {c.states[1]} at lambda2 = {c.lambda2:.6g} (R = {c.risk:.6g})")
    if np.isinf(maps[0].utility).any():
        print("note: infinite values are shown as inf")
    return 0
