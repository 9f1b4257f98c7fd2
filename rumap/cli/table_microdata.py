"""``python -m rumap table suppress --microdata FILE --dims A,B[,C...]``: protect an n-D hierarchical table.

The table is built from the microdata with every subtotal of each
dimension's hierarchy (``--hierarchy A=FILE``: a tau-Argus ``.hrc`` file, or
a parent,child CSV) and the totals, coded ``Total``; ``--value-column`` makes
it a magnitude table, else it counts records. The rule marks the primaries on
each cell's contributions; secondary suppression runs over every equation at
every level (:func:`rumap.tables.table_suppression.suppress_table`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rumap.cli.flags import budget_from_args, print_frame, rule_parameters
from rumap.errors import InputError

#: The methods of ``--method`` (the keys of :data:`rumap.tables.table_suppression.METHODS` that exist).
TABLE_METHOD_NAMES = ("optimal", "heuristic")

#: Flags of the 2-D ``--table`` form that the microdata form does not take.
_TABLE_ONLY = {"primary": "--primary", "contributions": "--contributions", "external": "--external"}


def _hierarchies(texts: list[str], dims: list[str]) -> dict[str, Any]:
    from rumap.io.data import read_file_bytes
    from rumap.tables.hierarchy import read_hrc, read_parent_child

    out: dict[str, Any] = {}
    for text in texts:
        dim, sep, path = text.partition("=")
        dim = dim.strip()
        if not sep or not dim or not path:
            raise InputError(f"--hierarchy must be DIM=FILE, got {text!r}")
        if dim not in dims:
            raise InputError(f"--hierarchy {dim}: {dim!r} is not one of --dims {','.join(dims)}")
        if dim in out:
            raise InputError(f"--hierarchy {dim} is given twice")
        try:
            content = read_file_bytes(path, f"--hierarchy {dim}").decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(f"--hierarchy {dim}: {path} is not UTF-8 text") from None
        out[dim] = read_hrc(content) if Path(path).suffix.lower() == ".hrc" else read_parent_child(content)
    return out


def run_microdata(args: argparse.Namespace) -> int:
    """Run ``table suppress --microdata``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
    """
    for name, flag in _TABLE_ONLY.items():
        if getattr(args, name):
            raise InputError(f"{flag} goes with --table, not --microdata")
    if not args.dims:
        raise InputError("--microdata needs --dims A,B[,C...]")
    if args.rule is None:
        raise InputError("--microdata needs --rule to mark the primary cells")
    from rumap.cli.flags import split_names
    from rumap.cli.table_protection import _native_output_silenced
    from rumap.io.data import read_table
    from rumap.tables.ndtable import build_table
    from rumap.tables.table_suppression import suppress_table

    dims = split_names(args.dims, "--dims")
    budget = budget_from_args(args)
    frame = read_table(args.microdata)
    table = build_table(frame, dims, _hierarchies(args.hierarchy or [], dims), args.value_column, budget=budget)
    mask = table.primary_mask(args.rule, **rule_parameters(args))
    with _native_output_silenced():
        result = suppress_table(table, mask, protection=args.protection, cost=args.cost, method=args.method,
                                time_limit=args.time_limit, singletons=not args.no_singletons, budget=budget)
    if args.out is not None:
        from rumap.io.writers import write_table

        write_table(result.published(), args.out, "--out")
    if args.json:
        from rumap.cli import print_json

        out = result.to_dict()
        if args.out is not None:
            out["out"] = args.out
        print_json(out)
        return 0
    frame_out = result.to_frame()
    print_frame(frame_out[frame_out["status"] != "published"])
    counts = result.counts()
    print(f"{table.size} cells: {counts['primary']} primary, {counts['secondary']} secondary suppressed; cost "
          f"{result.cost:.6g} ({args.cost}); method {result.method}, "
          + ("proven optimal" if result.optimal else f"gap {100 * result.gap:.3g}%"))
    print("every primary's audit interval clears its protection levels" if result.all_protected
          else "some primaries are not protected")
    if args.out is not None:
        print(f"written: {args.out}")
    return 0
