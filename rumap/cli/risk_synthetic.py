"""``python -m rumap risk synthetic``: the measures of a release against its original (:mod:`rumap.risk.synthetic`)."""

from __future__ import annotations

import argparse

from rumap.cli.flags import split_names
from rumap.errors import InputError


def run(args: argparse.Namespace) -> int:
    """Print every measure of :func:`rumap.risk.synthetic.synthetic_measures` that the flags allow.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``risk synthetic``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    from rumap.io.data import read_table
    from rumap.risk.synthetic import synthetic_measures

    if args.target is not None and args.keys is None:
        raise InputError("--target needs --keys")
    original, release = read_table(args.original), read_table(args.release)
    holdout = read_table(args.holdout) if args.holdout else None
    names = {flag: split_names(text, flag) if text else None
             for flag, text in (("--columns", args.columns), ("--keys", args.keys))}
    for flag, listed in names.items():
        for frame, path in ((original, args.original), (release, args.release), (holdout, args.holdout)):
            for name in (listed or []) if frame is not None else []:
                if name not in frame.columns:
                    raise InputError(f"{flag}: {path} has no column {name!r}; columns are "
                                     f"{', '.join(map(str, frame.columns))}")
    if args.target is not None:
        for frame, path in ((original, args.original), (release, args.release)):
            if args.target not in frame.columns:
                raise InputError(f"--target: {path} has no column {args.target!r}")
    if names["--columns"] is None:
        for frame, path in ((release, args.release), (holdout, args.holdout)):
            absent = [str(c) for c in original.columns if frame is not None and c not in frame.columns]
            if absent:
                raise InputError(f"{path}: no column {absent[0]!r} (the original has it); choose --columns")
    result = synthetic_measures(original, release, holdout, names["--columns"], names["--keys"], args.target)
    payload = result.to_dict()
    if args.json:
        from rumap.cli import print_json

        print_json(payload)
        return 0
    for name, value in payload.items():
        print(f"{name}: {'null (' + _needs(name) + ')' if value is None else f'{value:.6g}'}")
    return 0


def _needs(name: str) -> str:
    return {"dcr_share": "needs --holdout", "membership_advantage": "needs --holdout", "repu": "needs --keys",
            "disco": "needs --keys and --target"}.get(name, "does not apply to these files")
