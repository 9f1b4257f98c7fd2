"""Command-line interface: ``python -m rumap SUBCOMMAND ...`` with JSON output.

Each subcommand lives in a module of this package with two functions,
``add_parser(subparsers)`` and ``run(args) -> int``, registered in
:data:`SUBCOMMANDS`, with its one-line help in :data:`SUMMARIES`. Only the
module of the command being run is imported: ``python -m rumap --help`` lists
the commands from :data:`SUMMARIES` alone. Bad input exits with code 2 and one
line on stderr.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
from collections.abc import Sequence
from typing import Any

from rumap._validation import InstanceOf, assumes_valid, validate_params
from rumap.errors import InputError
from rumap.result import json_safe

__all__ = ["main", "SUBCOMMANDS", "SUMMARIES", "OneLineParser", "print_json"]

#: Subcommand name -> module under rumap.cli that implements it.
SUBCOMMANDS: dict[str, str] = {
    "analytic": "rumap.cli.analytic",
    "table": "rumap.cli.table",
    "simulate": "rumap.cli.simulate",
    "microaggregate": "rumap.cli.microaggregate",
    "risk": "rumap.cli.risk",
    "protect": "rumap.cli.protect",
    "query": "rumap.cli.query",
    "release": "rumap.cli.release",
    "synthesize": "rumap.cli.synthesize",
}

#: Subcommand name -> its one-line help (the module's ``HELP``), for the list of commands without importing them.
#: A subcommand missing here is listed by importing its module. ``tests/cli/test_startup.py`` checks both agree.
SUMMARIES: dict[str, str] = {
    "analytic": "analytic R-U map of additive noise for the snooper's knowledge states",
    "table": "tables: sensitivity rules, the dominance rule's flaw, LP bounds and risk of suppressed cells",
    "simulate": "empirical R-U map: simulate masking of a data file and the snooper's attacks",
    "microaggregate": "microaggregate numeric columns (groups of at least k records) and report the information loss",
    "risk": "disclosure risk: record linkage, interval disclosure, identity (population uniques)",
    "protect": "protect categorical key variables: global recoding, local suppression, PRAM, granularity, "
               "targeted swapping",
    "query": "database queries: answers with a guarantee (camouflage) and an auditor of query sequences",
    "release": "apply a release plan (or one masking step) to a data file: the protected file and a report",
    "synthesize": "synthetic data: fit a generator (sequential CART, Gaussian copula, MST with differential privacy) "
                  "on a data file and write synthetic records",
}


class UsageError(Exception):
    """An argument the parser rejects."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2.

    Parameters
    ----------
    *args, **kwargs
        As for :class:`argparse.ArgumentParser`.
    """

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        # int() and float() read any Unicode digit ("١٢" is 12): a number on the command line is ASCII
        if action.type in (int, float) and isinstance(arg_string, str) and not arg_string.isascii():
            flag = "/".join(action.option_strings) or action.dest
            raise UsageError(f"{self.prog}: argument {flag}: {arg_string!r} is not a number written in ASCII digits")
        return super()._get_value(action, arg_string)


@assumes_valid
def print_json(obj: Any) -> None:
    """Print ``obj`` as JSON, with non-finite numbers as null.

    Parameters
    ----------
    obj : object
        Anything :func:`rumap.result.json_safe` converts.
    """
    print(json.dumps(json_safe(obj), indent=2, allow_nan=False))


def build_parser(command: str | None = None, every: bool = False) -> OneLineParser:
    """The argument parser; only the module of ``command`` is imported.

    Without a command the other subcommands are listed by their line of :data:`SUMMARIES`
    (``python -m rumap --help``); ``every=True`` imports every module and builds every parser.
    """
    parser = OneLineParser(prog="python -m rumap", description="R-U confidentiality maps.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for name, module_name in SUBCOMMANDS.items():
        if command is not None and name != command:
            subparsers.add_parser(name, help=f"see: python -m rumap {name} --help")
            continue
        if command is None and not every and name in SUMMARIES:
            subparsers.add_parser(name, help=SUMMARIES[name])
            continue
        sub = importlib.import_module(module_name).add_parser(subparsers)
        sub.set_defaults(_run=functools.partial(_run_command, module_name))
    return parser


def _run_command(module_name: str, args: argparse.Namespace) -> int | None:
    """Run the subcommand of ``module_name``: its ``run`` as the module holds it at the call."""
    return importlib.import_module(module_name).run(args)


#: The registries a subcommand's parser reads (its flags and choices), by module and name.
_PARSER_REGISTRIES = (("rumap.maps.methods", "METHODS"), ("rumap.maps.utility", "UTILITIES"),
                      ("rumap.release.registry", "CATEGORICAL_METHODS"), ("rumap.release.registry", "STEP_METHODS"),
                      ("rumap.risk.measures", "DATASET_RISK_MEASURES"))
_PARSERS: dict[tuple[Any, ...], OneLineParser] = {}


def _registries_state() -> tuple[Any, ...]:
    """What the loaded registries hold now: each entry's name and record, so that a change rebuilds a parser."""
    state = []
    for module_name, name in _PARSER_REGISTRIES:
        registry = getattr(sys.modules.get(module_name), name, None)
        state.append(None if registry is None else tuple((key, id(registry[key])) for key in registry))
    return tuple(state)


def _parser(command: str | None, every: bool) -> OneLineParser:
    """:func:`build_parser`, built once per command and state of the registries (argparse's construction looks up
    its message catalogues on disk for every argument, so building is most of a short command's time)."""
    key = (command, every, _registries_state())
    if key not in _PARSERS:
        if len(_PARSERS) > 64:
            _PARSERS.clear()
        _PARSERS[key] = build_parser(command, every)
    return _PARSERS[key]


@validate_params({"argv": [None, InstanceOf((list, tuple), "a list of arguments")]}, example=lambda: {"argv": ["analytic", "--n", "20", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "record"]})
def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0 on success, 2 on bad input (one line on stderr).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    # a command named after an option (``--x analytic ...``) is parsed by its full parser, as it always was
    parser = _parser(command, every=command is None and any(arg in SUBCOMMANDS for arg in argv))
    try:
        args = parser.parse_args(argv)
        return int(args._run(args) or 0)
    except (UsageError, InputError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
