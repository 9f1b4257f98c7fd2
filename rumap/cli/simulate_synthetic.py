"""``python -m rumap simulate --method cart|copula``: the R-U map of a synthetic-data generator (rumap.maps.synthetic).

::

    python -m rumap simulate --data FILE --method cart --minbucket 5,20,80,320 [--columns A,B,...]
        [--risk dcr_share|nndr|membership_advantage|repu|disco|linkage] [--utility pmse|common]
        [--keys A,B] [--target T] [--holdout-share F] [--copies M] [--replicates R] [--seed S]
        [--max-risk R [--decision upper|mean]] [--json]

The JSON has the form of the other maps': ``curves`` (one), ``config``, ``n``
and, with ``--max-risk``, ``recommendation``.
"""

from __future__ import annotations

import argparse

from rumap.cli.flags import budget_from_args, check_flag, parse_grid, split_names
from rumap.cli.synthesize import mapped_generators
from rumap.errors import InputError


def _values(text: str, parameter: str, integer: bool, args: argparse.Namespace) -> list:
    """``A,B,...`` (the values) or ``START:STOP:NUM`` (``START:STOP[:STEP]`` for an integer)."""
    if ":" in text:
        return parse_grid(text, parameter, integer=integer, budget=budget_from_args(args)).tolist()
    kind = int if integer else float
    try:
        return [kind(part) for part in split_names(text, f"--{parameter}")]
    except ValueError:
        raise InputError(f"--{parameter} must be numbers A,B,... or a grid START:STOP, got {text!r}") from None


def run_synthetic(args: argparse.Namespace) -> int:
    """Print the generator's R-U map (a table, or one JSON object).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``simulate`` with ``--method`` a generator.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """

    from rumap.io.data import read_table
    from rumap.maps.recommend import recommend
    from rumap.maps.synthetic import synthetic_map

    record = mapped_generators()[args.method]
    parameter = record.parameter
    text = getattr(args, parameter)
    if text is None:
        raise InputError(f"--method {args.method} needs --{parameter} (the grid of {parameter})")
    values = _values(text, parameter, record.integer, args)
    for value in values:
        check_flag(f"--{parameter}", parameter, value)
    risk = args.risk or "dcr_share"
    utility = args.utility or "pmse"
    from rumap.maps.synthetic import SYNTHETIC_RISKS, SYNTHETIC_UTILITIES

    if risk not in SYNTHETIC_RISKS:
        raise InputError(f"--risk must be one of {', '.join(SYNTHETIC_RISKS)} with --method {args.method}, got {risk!r}")
    if utility not in SYNTHETIC_UTILITIES:
        raise InputError(f"--utility must be one of {', '.join(SYNTHETIC_UTILITIES)} with --method {args.method}, "
                         f"got {utility!r}")
    if args.target is not None and len(args.target) > 1:
        raise InputError("--target names one column (the target of --risk disco)")
    target = args.target[0] if args.target else None
    holdout = 0.5 if args.holdout_share is None else check_flag("--holdout-share", "holdout_share", args.holdout_share)
    copies = 1 if args.copies is None else check_flag("--copies", "copies", args.copies)
    for flag, entry in (("--replicates", "replicates"), ("--seed", "seed")):
        check_flag(flag, entry, getattr(args, flag[2:]))
    frame = read_table(args.data)
    columns = split_names(args.columns, "--columns") if args.columns else None
    keys = split_names(args.keys, "--keys") if args.keys else None
    try:
        m = synthetic_map(frame, args.method, values, risk, utility, args.replicates, holdout, copies, keys, target,
                          columns, args.seed, args.data)
    except InputError as exc:
        message = str(exc)
        for name, flag in (("keys", "--keys"), ("target", "--target")):
            message = message.replace(f"needs {name}", f"needs {flag}")
        raise InputError(message) from None
    n = int(frame.shape[0])
    config = {**m.config, "data": args.data}
    choice = None if args.max_risk is None else recommend([m], args.max_risk, args.decision or "upper", n_records=n)
    from rumap.cli.flags import print_map

    return print_map(args, m, {"config": config, "n": n},
                     f"{args.method} synthesis of {args.data} (n = {n}, holdout {holdout:g}); R: {m.risk_label}; "
                     f"U: {m.utility_label}", choice)
