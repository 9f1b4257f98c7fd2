"""``python -m rumap analytic``: analytic R-U maps for additive noise (Duncan et al. 2001, Eq 1-10)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import numpy as np

from rumap.cli.flags import add_work_limit, budget_from_args, parse_grid
from rumap.errors import InputError

if TYPE_CHECKING:
    from rumap.specs import AnalyticSpec

# The parser's help and choices, the keys of rumap.maps.analytic.STATES and rumap.maps.families.FAMILIES, so that
# ``analytic --help`` starts without pandas or scipy; ``tests/cli/test_startup.py`` checks they agree. The maps'
# modules are imported when the command runs.
STATE_NAMES = ("mean-target", "population", "sample", "record", "percentile", "maximum", "minimum")
FAMILY_NAMES = ("normal", "logistic", "laplace", "uniform", "lognormal", "gamma", "t")

HELP = "analytic R-U map of additive noise for the snooper's knowledge states"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``analytic`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    p = subparsers.add_parser("analytic", help=HELP, description=HELP)
    p.add_argument("--n", type=int, help="number of records (from --data when given)")
    p.add_argument("--sigma2", type=float, help="variance of the data (from --data when given)")
    p.add_argument("--mu", type=float, help="mean of the data (default 0, or from --data)")
    p.add_argument("--tau", metavar="VALUE", help="target value for state mean-target (Eq 1): a number, or "
                   "maximum, minimum or mean of --data")
    p.add_argument("--p", type=float, default=0.99, help="percentile for state percentile (default 0.99)")
    p.add_argument("--family", default="normal", choices=list(FAMILY_NAMES),
                   help="distribution family of the data for state percentile (default normal: Eq 8)")
    p.add_argument("--shape", type=float, help="shape parameter of --family (lognormal s, gamma a, t df)")
    p.add_argument("--data", help="data file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
    p.add_argument("--column", help="numeric column of --data")
    p.add_argument("--lambda2", required=True, metavar="START:STOP:NUM", help="grid of noise variances")
    p.add_argument("--state", action="append", required=True, metavar="NAME",
                   help=f"knowledge state, repeatable: {', '.join(STATE_NAMES)}")
    p.add_argument("--max-risk", type=float, help="maximum tolerable risk R_max: adds each state's optimum and the "
                                                  "recommendation (the exact optimum safe for every state shown)")
    add_work_limit(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


#: A curve of the JSON output: output key -> key of :meth:`rumap.result.RUMap.to_dict`.
CURVE_KEYS = {"state": "knowledge", "lambda2": "values", "risk": "risk", "utility": "utility",
              "efficiency": "efficiency"}


def spec_from_args(args: argparse.Namespace) -> tuple[AnalyticSpec, np.ndarray | None]:
    """The specification the command line describes, and the data column it reads (if any).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``analytic``.

    Returns
    -------
    spec : AnalyticSpec
    column : ndarray or None
        The values of ``--column`` of ``--data``, to run the spec on.
    """
    from rumap.io.data import numeric_column, read_table
    from rumap.maps.analytic import STATES
    from rumap.maps.setting import AnalyticSetting
    from rumap.specs import DATA_STATISTICS, AnalyticSpec, DataSource

    for state in args.state:
        if state not in STATES:
            raise InputError(f"unknown --state {state!r}; choose from {', '.join(STATES)}")
    tau, tau_statistic = _tau(args.tau)
    overrides = {"n": args.n, "sigma2": args.sigma2, "mu": args.mu, "tau": tau, "p": args.p,
                 "family": args.family, "shape": args.shape}
    column, source, from_data = None, None, []
    if args.data is not None or args.column is not None:
        if args.data is None or args.column is None:
            raise InputError("--data and --column go together")
        column = numeric_column(read_table(args.data), args.column, source=args.data)
        if tau_statistic is not None:
            overrides["tau"] = DATA_STATISTICS[tau_statistic](column)
            from_data.append(("tau", tau_statistic))
        from_data += [(name, statistic) for name, statistic in (("sigma2", "variance"), ("mu", "mean"))
                      if overrides[name] is None]
        inputs = AnalyticSetting.from_data(column, **overrides).inputs()
        source = DataSource.of("upload", args.data, (args.column,), column)
    elif tau_statistic is not None:
        raise InputError(f"--tau {tau_statistic} needs --data and --column")
    elif args.n is None or args.sigma2 is None:
        raise InputError("--n and --sigma2 are required unless --data and --column are given")
    else:
        inputs = {k: v for k, v in overrides.items() if v is not None}
    grid = parse_grid(args.lambda2, "lambda2", budget=budget_from_args(args))
    spec = AnalyticSpec(**inputs, states=tuple(args.state), lambda2_start=float(grid[0]),
                        lambda2_stop=float(grid[-1]), lambda2_num=grid.size, max_risk=args.max_risk, data=source,
                        from_data=tuple(from_data))
    return spec, column


#: The statistics of --data that --tau may name.
TAU_STATISTICS = ("maximum", "minimum", "mean")


def _tau(text: str | None) -> tuple[float | None, str | None]:
    """``--tau``: a number, or the name of a statistic of the data."""
    if text is None:
        return None, None
    if text in TAU_STATISTICS:
        return None, text
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"--tau must be a number or one of {', '.join(TAU_STATISTICS)}, got {text!r}") from None
    return value, None


def run(args: argparse.Namespace) -> int:
    """Compute the analytic maps the flags describe and print them (a table, or one JSON object).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``analytic``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    import pandas as pd

    from rumap.cli.json_output import curve_dict, optimum_json
    from rumap.maps.optimum import envelope
    from rumap.present.statements import describe_optimum

    spec, column = spec_from_args(args)
    analysis = spec.run(column, budget=budget_from_args(args))
    maps, states = analysis.maps, list(spec.states)
    optima = {o.state: o for o in analysis.optima}
    if args.json:
        from rumap.cli import print_json

        rational = envelope(maps)
        print_json({
            "curves": [curve_dict(m, CURVE_KEYS) for m in maps],
            "optimum": {s: optimum_json(o) for s, o in optima.items()},
            "crossings": [c.to_dict() for c in analysis.crossings],
            "envelope": {"lambda2": rational.values, "risk": rational.risk,
                         "best_state": rational.config["best_state"]},
            "config": {**spec.setting(column).config(), "states": states, "lambda2": args.lambda2,
                       "max_risk": args.max_risk},
            **({"recommendation": analysis.recommendation().to_dict()} if args.max_risk is not None else {}),
        })
        return 0
    table = pd.DataFrame({"lambda2": maps[0].values, "U": maps[0].utility, "efficiency": maps[0].efficiency})
    for m in maps:
        table[f"R[{m.knowledge}]"] = m.risk
    with pd.option_context("display.max_rows", None, "display.width", 200):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    for state, opt in optima.items():
        print(f"optimum for {state} (R_max = {args.max_risk:g}): " + (
            f"lambda2 = {opt.lambda2:.6g}, R = {opt.risk:.6g}, U = {opt.utility:.6g}, "
            f"efficiency = {opt.efficiency:.4f}" if opt.reachable else "unreachable"))
        print(f"  {describe_optimum(opt)}")
    if args.max_risk is not None:
        chosen = analysis.recommendation()
        print(f"recommendation (R_max = {args.max_risk:g}): " + (
            f"lambda2 = {chosen.value:.6g} (exact), R = {chosen.risk:.6g}, U = {chosen.utility:.6g}, efficiency = "
            f"{chosen.efficiency:.4f}; decided by {chosen.binding['knowledge']}" if chosen.feasible
            else f"none: {chosen.reason}"))
    for c in analysis.crossings:
        print(f"crossing: {c.states[0]} and {c.states[1]} at lambda2 = {c.lambda2:.6g} (R = {c.risk:.6g})")
    if np.isinf(maps[0].utility).any():
        print("note: infinite values are shown as inf")
    return 0
