"""``python -m rumap simulate --method ckm``: the R-U map of the cell key method over the variance V.

The table is built from ``--data`` over ``--dims`` (``--hierarchy`` as in
``table ckm``); for each V of ``--variance`` (``0.5,1,2,3`` or
``START:STOP:NUM``) it is perturbed with the perturbation table of
``--max-perturbation D``, V and ``--js``. R (``--table-risk``): the share of
original counts 1 and 2 an intruder recovers exactly, from the published
value, by differencing two tables, or either; U (``--table-utility``): from
the mean absolute (or relative) deviation of cells and totals
(:func:`rumap.maps.cellkey_map.ckm_map`). ``--max-risk`` adds the
recommended V. Record keys come from ``--record-key`` (the map is then
exact) or are drawn ``--replicates`` times from ``--seed``.
"""

from __future__ import annotations

import argparse

from rumap.errors import InputError

#: The methods of ``simulate --method`` whose maps are of a perturbed table (rumap.maps.cellkey_map).
TABLE_MAP_METHOD_NAMES = ("ckm",)
#: The choices of ``--table-risk`` and ``--table-utility`` (rumap.maps.cellkey_map.CKM_RISKS, CKM_UTILITIES).
TABLE_RISK_NAMES = ("either", "direct", "differencing")
TABLE_UTILITY_NAMES = ("absolute", "relative")


def add_ckm_flags(p: argparse.ArgumentParser) -> None:
    """Add the flags of ``--method ckm`` to ``simulate``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The ``simulate`` parser.
    """
    g = p.add_argument_group("the cell key method (--method ckm)")
    if "--dims" not in p._option_string_actions:  # shared with the maps of differential privacy
        g.add_argument("--dims", metavar="A,B[,...]", help="the table's dimensions (1 to 5 columns)")
    if "--hierarchy" not in p._option_string_actions:
        g.add_argument("--hierarchy", action="append", metavar="A=FILE", help="hierarchy of dimension A, as for "
                                                                              "'table ckm' (repeatable)")
    g.add_argument("--variance", metavar="V1,V2,...", help="the variances V of the map (or START:STOP:NUM)")
    g.add_argument("--max-perturbation", type=int, metavar="D", help="largest absolute perturbation D")
    g.add_argument("--js", type=int, default=0, metavar="J", help="counts 1..J are never published (default 0)")
    g.add_argument("--record-key", metavar="COLUMN", help="column of record keys (the map is then exact)")
    g.add_argument("--table-risk", choices=list(TABLE_RISK_NAMES), default="either",
                   help="R: counts 1 and 2 recovered from the published value (direct), by differencing two tables "
                        "that differ by one category, or either (default)")
    g.add_argument("--table-utility", choices=list(TABLE_UTILITY_NAMES), default="absolute",
                   help="U: 1/(1 + mean absolute deviation) (absolute, default) or 1 - mean absolute relative "
                        "deviation (relative) of cells and totals")


def _variances(text: str | None) -> list[float]:
    from rumap.cli.flags import check_flag, parse_grid

    if text is None:
        raise InputError("--method ckm needs --variance V1,V2,... (the grid of the perturbation's variance)")
    if ":" in text:
        return [float(v) for v in parse_grid(text, "variance")]
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise InputError(f"--variance: {part.strip()!r} is not a number") from None
        values.append(float(check_flag("--variance", "lambda2", value)))
    return values


def run_ckm_map(args: argparse.Namespace) -> int:
    """Run ``simulate --method ckm``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    from rumap.cli.flags import check_flag, split_names
    from rumap.cli.table_microdata import _hierarchies
    from rumap.io.data import read_table
    from rumap.maps.cellkey_map import ckm_map
    from rumap.maps.recommend import recommend

    if args.dims is None:
        raise InputError("--method ckm needs --dims A,B[,...] (the table's dimensions)")
    if args.max_perturbation is None:
        raise InputError("--method ckm needs --max-perturbation D")
    check_flag("--max-perturbation", "ckm_max_perturbation", args.max_perturbation)
    check_flag("--js", "ckm_js", args.js)
    for name in ("replicates", "seed"):
        check_flag(f"--{name}", name, getattr(args, name))
    if args.decision is not None and args.max_risk is None:
        raise InputError("--decision needs --max-risk")
    variances = _variances(args.variance)
    dims = split_names(args.dims, "--dims")
    frame = read_table(args.data)
    if args.record_key is not None and args.record_key not in frame.columns:
        raise InputError(f"--record-key: no column {args.record_key!r} in {args.data}")
    hierarchies = _hierarchies(args.hierarchy or [], dims, frame)
    try:
        m = ckm_map(frame, dims, variances, max_perturbation=args.max_perturbation, js=args.js,
                    hierarchies=hierarchies, record_key=args.record_key, replicates=args.replicates, seed=args.seed,
                    risk=args.table_risk, utility=args.table_utility)
    except InputError as exc:
        text = str(exc)
        raise InputError(text.replace("variances: ", "--variance: ", 1) if text.startswith("variances: ")
                         else text) from None
    choice = None if args.max_risk is None else recommend([m], args.max_risk, args.decision or "upper")
    from rumap.cli.flags import print_map

    return print_map(args, m, {"config": {"method": "ckm", "parameter": "variance", "data": args.data, **m.config},
                               "n": int(frame.shape[0])},
                     f"the cell key method on {' x '.join(dims)} (n = {frame.shape[0]}, D = {args.max_perturbation}, "
                     f"js = {args.js}); R: {m.risk_label}; U: {m.utility_label}", choice)
