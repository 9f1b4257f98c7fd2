"""``python -m rumap protect granularity``: Mas's elimination of granularity from a microdata file.

Prints the moves (each merge or suppression in order), the largest index of
granularity of each table of 2 and 3 keys before and after, the values
suppressed and the categories merged, and the risk before and after;
``--out`` writes the protected file.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rumap._validation import assumes_valid
from rumap.cli.flags import budget_from_args, check_flag, split_names
from rumap.errors import InputError

__all__ = ["run_granularity"]


def _hierarchies(args: argparse.Namespace, keys: list[str], frame: object) -> dict:
    from rumap.cli.table_microdata import _hierarchies as read_hierarchies

    try:
        return read_hierarchies(args.hierarchy, keys, frame)
    except InputError as exc:
        raise InputError(str(exc).replace("is not one of --dims", "is not one of --keys")
                         .replace("must be DIM=", "must be A=")) from None


def _populations(texts: list[str], keys: list[str]) -> dict:
    """``--population A=FILE``: each file's first column the categories, its second their frequencies."""
    from rumap.io.data import read_table
    from rumap.tables.granularity_types import text_values

    out: dict = {}
    for text in texts:
        variable, sep, path = text.partition("=")
        if not sep or not path or variable not in keys:
            raise InputError(f"--population must be A=FILE with A one of --keys, got {text!r}")
        table = read_table(path)
        if table.shape[1] < 2:
            raise InputError(f"--population {variable}: {path} needs a column of categories and one of frequencies")
        categories = text_values(table.iloc[:, 0])
        if categories.isna().any():
            raise InputError(f"--population {variable}: {path} has a missing category")
        out[variable] = dict(zip(categories, table.iloc[:, 1].tolist(), strict=True))
    return out


@assumes_valid
def run_granularity(args: argparse.Namespace, read: Callable[[argparse.Namespace], Any],
                    finish: Callable[..., int]) -> int:
    """``protect granularity``.

    Parameters
    ----------
    args : argparse.Namespace
    read : callable
        ``read(args)``: the file of ``--data`` as the other protections read it.
    finish : callable
        ``finish(args, frame, protected, keys, summary, lines)``: ``--out``, the risk before and after and the
        output, as the other protections finish.

    Returns
    -------
    int
        0 (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.masking.granularity import eliminate_granularity

    level = check_flag("--level", "granularity_threshold", args.level)
    frequency = check_flag("--dispersed-frequency", "dispersed_frequency", args.dispersed_frequency)
    expected = check_flag("--odd-expected", "odd_expected", args.odd_expected)
    types = split_names(args.types, "--types")
    unknown = [t for t in types if t not in ("proportional", "odd", "dispersed")]
    if unknown:
        raise InputError(f"--types: {unknown[0]!r} is no type; give proportional, odd, dispersed")
    frame = read(args)
    keys = split_names(args.keys, "--keys")
    ordered = split_names(args.ordered, "--ordered") if args.ordered is not None else None
    if ordered is not None and any(v not in keys for v in ordered):
        raise InputError(f"--ordered: {next(v for v in ordered if v not in keys)!r} is not one of --keys")
    moves = "merge" if args.merge_only else "suppress" if args.suppress_only else "both"
    result = eliminate_granularity(frame, keys, level=level, types=types, moves=moves,
                                   hierarchy=_hierarchies(args, keys, frame) or None, ordered=ordered,
                                   population=_populations(args.population, keys) or None,
                                   dispersed_frequency=frequency, odd_expected=expected, source=args.data,
                                   budget=budget_from_args(args))
    summary = {"method": "granularity", **result.to_dict()}
    lines = [f"granularity of {args.data} at level {level:g} ({', '.join(result.rules.types)}): "
             f"{len(result.moves)} move(s)"]
    for i, move in enumerate(result.moves, 1):
        what = (f"merge {move['variable']}: {' + '.join(move['categories'])} -> {move['into']}"
                if move["move"] == "merge" else f"suppress {move['variable']} in {move['values']} record(s)")
        lines.append(f"  {i}. {what} (for {move['hyper_row']['table']}: {move['hyper_row']['fixed']}, index "
                     f"{move['hyper_row']['index']:.4g}, {'/'.join(move['hyper_row']['types'])}; {move['cost']:.4g} bits)")
    lines.append("largest index per table: " + ", ".join(
        f"{t} {result.index_before[t]:.4g} -> {result.index_after.get(t, 0.0):.4g}" for t in result.index_before))
    lines.append(f"suppressed {summary['suppressed']} key value(s); categories " + ", ".join(
        f"{v} {c['before']} -> {c['after']}" for v, c in result.categories.items()))
    if not result.reached:
        lines.append(f"level not reached: no allowed move changes {len(result.left)} hyper-row(s): "
                     + "; ".join(result.left[:5]))
    return finish(args, frame, result.data, keys, summary, lines)
