"""``python -m rumap table suppress --microdata FILE --dims A,B[,C...]``: protect an n-D hierarchical table.

The table is built from the microdata with every subtotal of each
dimension's hierarchy and the totals, coded ``Total``: ``--hierarchy A=FILE``
reads a tau-Argus ``.hrc`` file (when so named) or a parent,child CSV;
``A=hrc:FILE`` and ``A=parent_child:FILE`` name the file's format whatever
its name; ``A=prefixes:1,3`` cuts A's codes to each of the lengths of its
levels, top first (``N`` above ``N01``). ``--value-column`` makes it a
magnitude table, else it counts records. The rule marks the primaries on
each cell's contributions; secondary suppression runs over every equation at
every level (:func:`rumap.tables.table_suppression.suppress_table`).

``--dims`` given more than once (``--dims region,activity --dims region,size``)
makes linked tables from the one file: they are protected together
(:func:`rumap.tables.table_suppression.suppress_linked_tables`), so that a cell
they share (a region's total) is suppressed in all of them or in none, and each
primary is audited against every table's equations. Their JSON is
``{"tables": [{"dims", "cells", ...}], "cost", "gap", "method", "status", ...}``
and ``--out FILE.EXT`` writes one file per table, ``FILE-1.EXT``,
``FILE-2.EXT``, ... in the order of ``--dims``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rumap.cli.flags import budget_from_args, print_frame, rule_parameters
from rumap.errors import InputError

#: The methods of ``--method`` (the keys of
#: :data:`rumap.tables.table_suppression.TABLE_SUPPRESSION_METHODS` that exist).
TABLE_METHOD_NAMES = ("optimal", "heuristic")

#: Flags of the 2-D ``--table`` form that the microdata form does not take.
_TABLE_ONLY = {"primary": "--primary", "contributions": "--contributions", "external": "--external"}


@contextlib.contextmanager
def _native_output_silenced() -> Iterator[None]:
    """Silence what the MILP solver's native code may write to file descriptor 1 (it would spoil --json)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


#: The forms of ``--hierarchy A=KIND:...`` besides ``A=FILE``: code prefixes, or a file of a named format.
PREFIXES = "prefixes"


def _prefix_lengths(dim: str, text: str) -> list[int]:
    try:
        lengths = [int(part) for part in text.split(",")]
    except ValueError:
        lengths = []
    if not lengths:
        raise InputError(f"--hierarchy {dim}={PREFIXES}:{text}: give the code lengths of the levels, top first, "
                         "e.g. prefixes:1,3")
    return lengths


def _hierarchy_file(text: str) -> str | None:
    """The file a ``--hierarchy DIM=...`` value reads (None for ``DIM=prefixes:L1,L2``, which reads none)."""
    from rumap.specs.tables import HIERARCHY_FORMATS

    path = text.split("=", 1)[1]
    kind, colon, rest = path.partition(":")
    if colon and kind == PREFIXES:
        return None
    return rest if colon and kind in HIERARCHY_FORMATS else path


def _hierarchies(texts: list[str], dims: list[str], frame: Any) -> dict[str, Any]:
    from rumap.io.data import read_file_bytes
    from rumap.specs.tables import HIERARCHY_FORMATS, prefix_codes
    from rumap.tables.hierarchy import from_prefixes, read_hrc, read_parent_child

    out: dict[str, Any] = {}
    for text in texts:
        dim, sep, path = text.partition("=")
        dim = dim.strip()
        if not sep or not dim or not path:
            raise InputError(f"--hierarchy must be DIM=FILE, DIM=prefixes:L1,L2 or DIM=FORMAT:FILE, got {text!r}")
        if dim not in dims:
            raise InputError(f"--hierarchy {dim}: {dim!r} is not one of --dims {','.join(dims)}")
        if dim in out:
            raise InputError(f"--hierarchy {dim} is given twice")
        kind, colon, rest = path.partition(":")
        if colon and kind == PREFIXES:
            out[dim] = from_prefixes(prefix_codes(frame, dim), _prefix_lengths(dim, rest))
            continue
        if colon and kind in HIERARCHY_FORMATS:
            path = rest
        else:
            kind = HIERARCHY_FORMATS[0] if Path(path).suffix.lower() == ".hrc" else HIERARCHY_FORMATS[1]
        try:
            content = read_file_bytes(path, f"--hierarchy {dim}").decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(f"--hierarchy {dim}: {path} is not UTF-8 text") from None
        reader, parameter = (read_hrc, "text: ") if kind == HIERARCHY_FORMATS[0] else (read_parent_child, "source: ")
        try:
            out[dim] = reader(content)
        except InputError as exc:  # the reader's message names its parameter; here the flag and the file
            raise InputError(f"--hierarchy {dim}: {path}: {str(exc).removeprefix(parameter)}") from None
    return out


def _linked_out_paths(out: str, count: int) -> list[str]:
    """``FILE-1.EXT``, ``FILE-2.EXT``, ...: the files of ``--out FILE.EXT`` for ``count`` linked tables."""
    path = Path(out)
    return [str(path.with_name(f"{path.stem}-{i}{path.suffix}")) for i in range(1, count + 1)]


def _dims_lists(texts: list[str]) -> list[list[str]]:
    from rumap.cli.flags import split_names

    lists = [split_names(text, "--dims") for text in texts]
    seen: dict[frozenset, str] = {}
    for text, dims in zip(texts, lists, strict=True):
        key = frozenset(dims)
        if key in seen:
            raise InputError(f"--dims {text} and --dims {seen[key]} are the same table: give each table once")
        seen[key] = text
    return lists


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
    from rumap.io.data import read_table
    from rumap.io.outputs import check_outputs
    from rumap.tables.ndtable import build_table

    if args.out is not None:
        paths = _linked_out_paths(args.out, len(args.dims)) if len(args.dims) > 1 else [args.out]
        check_outputs([("--out", path) for path in paths],
                      [("--microdata", args.microdata), *(("--hierarchy", _hierarchy_file(text))
                                                          for text in args.hierarchy or [] if "=" in text)],
                      args.overwrite)
    dims_lists = _dims_lists(args.dims)
    every_dim = list(dict.fromkeys(d for dims in dims_lists for d in dims))
    budget = budget_from_args(args)
    frame = read_table(args.microdata)
    hierarchies = _hierarchies(args.hierarchy or [], every_dim, frame)
    tables = [build_table(frame, dims, {d: h for d, h in hierarchies.items() if d in dims}, args.value_column,
                          budget=budget) for dims in dims_lists]
    parameters = rule_parameters(args)
    masks = [table.primary_mask(args.rule, **parameters) for table in tables]
    options = {"protection": args.protection, "cost": args.cost, "method": args.method,
               "time_limit": args.time_limit, "singletons": False if args.no_singletons else None, "budget": budget}
    if len(tables) > 1:
        from rumap.tables.table_suppression import suppress_linked_tables

        with _native_output_silenced():
            linked = suppress_linked_tables(tables, masks, **options)
        return _report_linked(args, linked)
    from rumap.tables.table_suppression import suppress_table

    with _native_output_silenced():
        result = suppress_table(tables[0], masks[0], **options)
    if args.out is not None:
        from rumap.io.writers import write_table

        write_table(result.published(), args.out, "--out", args.overwrite)
    if args.json:
        from rumap.cli import print_json

        out = result.to_dict()
        if args.out is not None:
            out["out"] = args.out
        print_json(out)
        return 0
    frame_out = result.to_frame()
    print_frame(frame_out[frame_out["status"] != "published"])
    _print_summary(f"{tables[0].size} cells", result.counts(), result, args.cost)
    if args.out is not None:
        print(f"written: {args.out}")
    return 0


def _print_summary(what: str, counts: dict[str, int], result: Any, cost: str) -> None:
    print(f"{what}: {counts['primary']} primary, {counts['secondary']} secondary suppressed; cost "
          f"{result.cost:.6g} ({cost}); method {result.method}, "
          + ("proven optimal" if result.optimal else f"gap {100 * result.gap:.3g}%"
             + (", stopped on its solve limit (--time-limit)" if result.stopped_on == "solve_limit" else "")))
    print("every primary's audit interval clears its protection levels" if result.all_protected
          else "some primaries are not protected")


def _report_linked(args: argparse.Namespace, linked: Any) -> int:
    """Write, print or dump linked tables' protection (one file per table with ``--out``)."""
    paths = None if args.out is None else _linked_out_paths(args.out, len(linked.tables))
    if paths is not None:
        from rumap.io.writers import table_bytes, write_files

        write_files([("--out", path, table_bytes(t.published(), path, "--out"))  # every table or none
                     for t, path in zip(linked.tables, paths, strict=True)], args.overwrite)
    if args.json:
        from rumap.cli import print_json

        out = linked.to_dict()
        if paths is not None:
            for table, path in zip(out["tables"], paths, strict=True):
                table["out"] = path
            out["out"] = paths
        print_json(out)
        return 0
    for i, t in enumerate(linked.tables):
        frame_out = t.to_frame()
        hidden = frame_out[frame_out["status"] != "published"]
        print(f"table {i + 1}: {' x '.join(t.table.dims)}" + ("" if len(hidden) else ", no suppressed cells"))
        if len(hidden):
            print_frame(hidden)
        print()
    sizes = " + ".join(str(t.table.size) for t in linked.tables)
    _print_summary(f"{len(linked.tables)} linked tables, {sizes} cells", linked.counts(), linked, args.cost)
    if paths is not None:
        print(f"written: {', '.join(paths)}")
    return 0
