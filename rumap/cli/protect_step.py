"""``python -m rumap protect NAME`` of a protection of keys that has no subcommand of its own, from its record.

A step method of the registry (:data:`rumap.release.registry.STEP_METHODS`)
that protects categorical keys of microdata is a ``protect`` subcommand: the
flags its record declares (``flags``, ``text_flags``), ``--keys``, ``--seed``
for a method that draws random numbers, and those every protection has
(``--data``, ``--weight``, ``--out``, ``--json``). It applies the step in
memory, as ``release --method NAME`` does, and prints what the step did with
the risk before and after. The protections with their own subcommand
(``recode``, ``suppress``, ``pram``, ``granularity``, ``swap``) keep it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rumap._validation import assumes_valid
from rumap.cli.flags import (
    WRITER_SUFFIXES,
    add_overwrite_flag,
    add_record_flag,
    add_work_limit,
    budget_from_args,
    split_names,
)
from rumap.errors import InputError
from rumap.release.registry import STEP_METHODS

if TYPE_CHECKING:
    from rumap.release.methods import StepMethod

__all__ = ["add_step_parsers"]


def _protections() -> dict[str, StepMethod]:
    """The step methods that protect keys of microdata, by name."""
    return {name: record for name, record in STEP_METHODS.items()
            if record.target == "keys" and record.stage == "microdata"}


@assumes_valid
def add_step_parsers(sub: argparse._SubParsersAction, read: Callable[[argparse.Namespace], Any],
                     finish: Callable[..., int]) -> None:
    """Add ``protect NAME`` for each protection of keys without a subcommand yet, from its record.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``protect`` subcommand's methods.
    read : callable
        ``read(args)``: the file of ``--data`` as the other protections read it.
    finish : callable
        ``finish(args, frame, protected, keys, summary, lines)``, as the other protections finish.
    """
    for name, record in _protections().items():
        if name in sub.choices:
            continue
        p = sub.add_parser(name, help=record.description, description=record.description)
        p.add_argument("--data", required=True, help="microdata file (CSV, TSV, Excel, Parquet, Stata, SPSS, SAS)")
        p.add_argument("--keys", required=True, metavar="A,B,...", help="categorical key variables")
        p.add_argument("--weight", metavar="W", help="sampling weight column (for the risk before and after)")
        if record.random:
            p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        for flag in (*record.flags, *record.text_flags):
            add_record_flag(p, name, flag)
        p.add_argument("--out", metavar="FILE", help=f"write the protected file ({', '.join(WRITER_SUFFIXES)})")
        add_overwrite_flag(p)
        add_work_limit(p)
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(_protect_run=lambda args, name=name: _run(name, args, read, finish))


def _run(name: str, args: argparse.Namespace, read: Callable[[argparse.Namespace], Any],
         finish: Callable[..., int]) -> int:
    """Apply the step ``name`` to ``--data`` with its flags, then finish as every protection does."""
    from rumap.release.plan import Step
    from rumap.release.step_apply import apply_step

    record = STEP_METHODS[name]
    keys = split_names(args.keys, "--keys")
    parameters = {flag.dest: getattr(args, flag.dest) for flag in record.flags
                  if getattr(args, flag.dest) not in (None, False)}
    given = {flag.flag: getattr(args, flag.dest) for flag in record.text_flags
             if getattr(args, flag.dest) not in (None, [])}
    if given and record.read_flags is not None:
        parameters.update(record.read_flags(given))
    flags = {flag.dest: flag.flag for flag in record.flags}
    try:
        step = Step(name, parameters, keys=keys, seed=getattr(args, "seed", None))
    except InputError as exc:  # a parameter's message names the flag that gave it
        message = str(exc)
        for parameter, flag in flags.items():
            message = message.replace(f"parameter {parameter} ", f"{flag} ", 1)
        raise InputError(message) from None
    frame = read(args)
    protected, outcome = apply_step(frame, step, source=args.data, budget=budget_from_args(args))
    summary = {"method": name, "keys": keys, "parameters": dict(step.parameters), **outcome.summary}
    lines = [f"{record.description} of {', '.join(keys)} in {args.data}"]
    return finish(args, frame, protected, keys, summary, lines)
