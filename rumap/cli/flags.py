"""The command line's flags for the parameters of masking methods, and how a grid flag is parsed.

The flags of the masking methods' grids and options are in their records (:mod:`rumap.maps.methods`);
``GRID_FLAGS`` and ``METHOD_FLAGS`` are read from them.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rumap._validation import Boolean, InstanceOf, assumes_valid, check_scalar, validate_params
from rumap._validation.text import check_flag, split_names, variable_number
from rumap.budget import DEFAULT_BUDGET, WORK_LIMIT_FLAG, WorkBudget
from rumap.errors import InputError
from rumap.maps.method_records import Flag, grid_values

__all__ = ["GRID_FLAGS", "METHOD_FLAGS", "FAMILY_FLAGS", "recommendation_line", "print_map", "check_applies", "check_needs", "variable_number", "parse_grid", "add_work_limit", "budget_from_args", "check_flag",  # noqa: F822 (read from the records on first use)
           "split_names", "WRITER_SUFFIXES", "TARGET_FORMS", "RULE_NAMES", "RULE_FLAGS", "add_rule_flags", "rule_parameters", "print_frame",
           "add_overwrite_flag", "check_output_flags", "add_record_flag", "add_method_flag"]

def __getattr__(name: str) -> dict:
    """``GRID_FLAGS`` and ``METHOD_FLAGS``, read from the masking methods' records when first asked for.

    ``GRID_FLAGS``: the flag of each grid parameter (:attr:`rumap.maps.methods.MaskingMethod.grids`).
    ``METHOD_FLAGS``: the flags of options that belong to one masking method only: option -> (flag, method).
    """
    if name not in ("GRID_FLAGS", "METHOD_FLAGS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rumap.maps.methods import METHODS

    if name == "GRID_FLAGS":
        return {g.name: g.flag.flag for m in METHODS.values() for g in m.grids}
    return {o.name: (o.flag.flag, method) for method, m in METHODS.items() for o in m.options if o.flag is not None}


#: Flags of ``simulate`` that belong to one family of methods: attribute -> (flag, family).
FAMILY_FLAGS = {
    "column": ("--column", "numeric"),
    "columns": ("--columns", "numeric"),
    "target_column": ("--target-column", "numeric"),
    "target": ("--target", "numeric"),
    "knowledge": ("--knowledge", "numeric"),
    "rational": ("--rational", "numeric"),
    "risk_measure": ("--risk-measure", "numeric"),
    "quantiles": ("--quantiles", "numeric"),
    "subsample": ("--subsample", "numeric"),
    "subsamples": ("--subsamples", "numeric"),
    "keys": ("--keys", "categorical"),
    "weight": ("--weight", "categorical"),
    "band_variable": ("--band-variable", "categorical"),
    "risk": ("--risk", "categorical"),
    "risk_threshold": ("--risk-threshold", "categorical"),
    "anonymity_k": ("--anonymity-k", "categorical"),
    "pair": ("--pair", "categorical"),
    "merge": ("--merge", "categorical"),
}


def _given(value: object) -> bool:
    return value is not None and value is not False and value != [] and value != ()


@assumes_valid
def check_applies(args: argparse.Namespace, scope: dict[str, tuple[str, tuple[str, ...]]], method: str) -> None:
    """Refuse the first flag given that does not apply to ``method``: one table, not a check per flag.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags.
    scope : dict
        ``{attribute: (flag, methods it applies to)}``; attributes not in it
        apply to every method.
    method : str
        The chosen method (``--method``).

    Raises
    ------
    InputError
        ``"--target applies to --method noise, microaggregation or rankswap, not pram"``.

    Examples
    --------
    >>> import argparse
    >>> scope = {"theta": ("--theta", ("pram",))}
    >>> check_applies(argparse.Namespace(theta=None), scope, "noise")
    >>> check_applies(argparse.Namespace(theta="0:1:3"), scope, "noise")
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: --theta applies to --method pram, not noise
    """
    for attr, (flag, methods) in scope.items():
        if method not in methods and _given(getattr(args, attr, None)):
            names = ", ".join(methods[:-1]) + (" or " if len(methods) > 1 else "") + methods[-1]
            raise InputError(f"{flag} applies to --method {names}, not {method}")


@assumes_valid
def check_needs(options: Sequence[Any], given: Mapping[str, object], flags: Mapping[str, str] | None = None) -> None:
    """Refuse a method option's flag given without one of the flags it needs (``--unequal-factor`` alone does nothing).

    An option needs those its flag's ``needs`` names or, in a toggle group (``toggle``), one of the group's
    options that turn it on (a flag that needs no other): unequal noise's factor and column need its threshold.

    Parameters
    ----------
    options : sequence of MethodOption
        The method's options (:attr:`rumap.maps.methods.MaskingMethod.options`).
    given : mapping
        Option name -> the value its flag was given (None, False or absent: not given).
    flags : mapping, optional
        Option name -> its flag on this command (default: the option's own flag).

    Raises
    ------
    InputError
        Naming the flag and the flags it needs.

    Examples
    --------
    >>> from rumap.maps.methods import METHODS
    >>> check_needs(METHODS["noise"].options, {"unequal_factor": 3.0})
    Traceback (most recent call last):
    ...
    rumap.errors.InputError: --unequal-factor does nothing without --unequal-above or --unequal-below: give one of them or drop --unequal-factor
    >>> check_needs(METHODS["noise"].options, {"unequal_factor": 3.0, "unequal_above": 10.0})
    """
    own = {o.name: o.flag.flag for o in options if o.flag is not None}
    flags = {**own, **(flags or {})}

    def switch(option: Any) -> bool:
        return option.flag is not None and not option.flag.needs

    for option in options:
        if option.name not in flags or not _given(given.get(option.name)):
            continue
        if option.flag is not None and option.flag.needs:
            needs = [o for o in options if o.name in option.flag.needs]
        elif option.toggle and not switch(option):
            needs = [o for o in options if o.toggle == option.toggle and switch(o)]
        else:
            continue
        if needs and not any(_given(given.get(o.name)) for o in needs):
            flag = flags[option.name]
            wanted = " or ".join(flags[o.name] for o in needs)
            raise InputError(f"{flag} does nothing without {wanted}: give one of them or drop {flag}")


@validate_params({"text": InstanceOf(str, "text such as 0:1:11"), "name": InstanceOf(str), "integer": Boolean()},
                 example=lambda: {"text": "0:1:11"})
def parse_grid(text: str, name: str = "lambda2", integer: bool = False, budget: WorkBudget | None = None
               ) -> np.ndarray:
    """Parse the value of a grid flag, written ``START:STOP:NUM`` (or ``START:STOP`` for integers).

    ``START:STOP:NUM`` gives ``NUM`` evenly spaced values from START to STOP
    inclusive. With ``integer=True``, ``START:STOP`` gives every integer from
    START to STOP and ``START:STOP:STEP`` every STEP-th one.

    Parameters
    ----------
    text : str
        The flag's value.
    name : str
        The parameter, named ``--name`` (underscores as hyphens) in messages.
    integer : bool
        Whether the grid is of integers.
    budget : WorkBudget, optional
        Its grid limit is checked before the grid is built (default
        :data:`rumap.budget.DEFAULT_BUDGET`).

    Returns
    -------
    ndarray

    Raises
    ------
    InputError
        If the text is not of that form.

    Examples
    --------
    >>> from rumap.cli.flags import parse_grid
    >>> parse_grid("0:1:5").tolist(), parse_grid("2:10:4", "k", integer=True).tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [2, 6, 10])
    """
    parts = str(text).split(":")
    form = "START:STOP or START:STOP:STEP" if integer else "START:STOP:NUM"
    if len(parts) not in ((2, 3) if integer else (3,)):
        raise InputError(f"--{name.replace('_', '-')} must be {form}, got {text!r}")
    try:
        if not str(text).isascii():  # int() and float() read any Unicode digit
            raise ValueError(text)
        if integer:
            start, stop = int(parts[0]), int(parts[1])
            step = int(parts[2]) if len(parts) == 3 else 1
        else:
            start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise InputError(f"--{name.replace('_', '-')} must be {form} in ASCII digits, got {text!r}") from None
    budget = DEFAULT_BUDGET if budget is None else budget
    if integer:
        if step < 1 or stop < start:
            raise InputError(f"--{name.replace('_', '-')} must have START <= STOP and STEP >= 1, got {text!r}")
        budget.check_grid((stop - start) // step + 1, name)  # before the grid is built
        return grid_values(start, stop, integer=True, step=step)
    if not (np.isfinite(start) and np.isfinite(stop)):
        raise InputError(f"--{name.replace('_', '-')} must have finite START and STOP, got {text!r}")
    check_scalar("grid_num", num)
    if stop < start:
        raise InputError(f"--{name.replace('_', '-')} must have START <= STOP, got {text!r}")
    budget.check_grid(num, name)
    return grid_values(start, stop, num)


@assumes_valid
def add_work_limit(parser: argparse.ArgumentParser) -> None:
    """Add ``--work-limit STEPS``, which raises the work budget of :mod:`rumap.budget` for this run.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument(WORK_LIMIT_FLAG, type=float, metavar="STEPS",
                        help=f"raise the work limit (default {DEFAULT_BUDGET.work:.3g} steps; the grid and result "
                             "limits scale with it)")


@assumes_valid
def add_overwrite_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite``: replace an output file that exists (without it, the command refuses before any work).

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an output file that exists (default: refuse it); an input is never replaced")


def _flag_paths(args: argparse.Namespace, flag: str) -> list[tuple[str, str]]:
    value = getattr(args, flag.lstrip("-").replace("-", "_"), None)
    values = value if isinstance(value, list) else [value]
    return [(flag, str(v)) for v in values if v is not None]


@assumes_valid
def check_output_flags(args: argparse.Namespace, outputs: tuple[str, ...], inputs: tuple[str, ...],
                       more_inputs: tuple[tuple[str, str], ...] = ()) -> None:
    """Refuse, before any work, the output flags' files that are inputs or exist without ``--overwrite``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags (``--overwrite`` among them).
    outputs, inputs : tuple of str
        The flags that name the files written and read (``"--out"``, ``"--data"``).
    more_inputs : tuple of (flag, path)
        Files read that a flag names inside its value (``--hierarchy A=FILE``).
    """
    from rumap.io.outputs import check_outputs

    check_outputs([pair for flag in outputs for pair in _flag_paths(args, flag)],
                  [*(pair for flag in inputs for pair in _flag_paths(args, flag)), *more_inputs],
                  bool(getattr(args, "overwrite", False)))


@validate_params({"args": InstanceOf(argparse.Namespace)}, example=lambda: {"args": argparse.Namespace(work_limit=1e10)})
def budget_from_args(args: argparse.Namespace) -> WorkBudget:
    """The work budget of a command: the default, or raised by ``--work-limit``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    WorkBudget

    Examples
    --------
    >>> import argparse
    >>> budget_from_args(argparse.Namespace(work_limit=None)).work
    2000000000.0
    """
    limit = getattr(args, "work_limit", None)
    if limit is None:
        return DEFAULT_BUDGET
    try:
        return DEFAULT_BUDGET.raised(limit)
    except InputError as exc:
        raise InputError(str(exc).replace("work_limit", WORK_LIMIT_FLAG, 1)) from None


#: The suffixes ``--out`` writes, the keys of :data:`rumap.io.data.WRITERS` (the parsers' help, without importing
#: pandas; ``tests/cli/test_startup.py`` checks they agree).
WRITER_SUFFIXES = (".csv", ".tsv", ".parquet", ".xlsx", ".dta", ".sav")

#: The forms of a snooper's target, as :data:`rumap.maps.attacks.TARGET_FORMS` says them (the parsers' help, without
#: importing the attacks' module; ``tests/cli/test_startup.py`` checks they agree).
TARGET_FORMS = "max, min, pXX (e.g. p99, p01, p10, p99.5) or row:I (I the 1-based row number)"

#: The names of the sensitivity rules, the keys of :data:`rumap.tables.rules.RULES` (the parsers' choices, without
#: importing the rules' module; ``tests/cli/test_startup.py`` checks they agree).
RULE_NAMES = ("threshold", "dominance", "p-percent", "pq")

#: The parameters of the sensitivity rules (:data:`rumap.tables.rules.RULES`): flag name -> (type, help).
RULE_FLAGS = {
    "n": (int, "dominance: number of largest contributions"),
    "k": (float, "dominance: fraction of the cell total, in (0, 1]"),
    "p": (float, "p-percent and pq: accuracy p in percent"),
    "q": (float, "pq: prior accuracy q in percent (p < q <= 100)"),
    "threshold": (int, "threshold: least number of contributors"),
}


@assumes_valid
def add_merge_flag(parser: argparse.ArgumentParser, what: str = "") -> None:
    """``--merge VAR:A,B=NEW`` (repeatable): global recoding of the file (:func:`merge_flags` reads it).

    Parameters
    ----------
    parser : argparse.ArgumentParser
    what : str
        Said after the help text (such as when the recoding applies).
    """
    parser.add_argument("--merge", action="append", default=None, metavar="VAR:A,B=NEW",
                        help=f"merge categories A and B of VAR into NEW (repeatable; A..B is a range of whole numbers){what}")


@assumes_valid
def merge_flags(texts: list[str] | None) -> dict[str, dict[str, str]]:
    """The recoding of repeated ``--merge VAR:A,B=NEW`` flags, for :func:`rumap.masking.categorical.recode`.

    Parameters
    ----------
    texts : list of str or None
        The flags' values (``None`` when the flag is not given).

    Returns
    -------
    dict

    Examples
    --------
    >>> merge_flags(["region:R01,R02=north", "sex:f=x"])
    {'region': {'R01': 'north', 'R02': 'north'}, 'sex': {'f': 'x'}}
    """
    from rumap.masking.categorical import parse_merges

    return parse_merges(texts or [], "--merge", form="be VAR:A,B=NEW")


@assumes_valid
def add_rule_flags(parser: argparse.ArgumentParser, cell_help: str = "column naming the cell (default cell)",
                   value_help: str | None = None) -> None:
    """Add the sensitivity rules' parameters and the contributions file's column names to a parser.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    cell_help : str
        Help of ``--cell-column``.
    value_help : str, optional
        Help of ``--value-column`` when its default is None (the caller then
        reads ``value`` for a contributions file itself).
    """
    for name, (kind, text) in RULE_FLAGS.items():
        parser.add_argument(f"--{name}", type=kind, help=text)
    parser.add_argument("--cell-column", default="cell", help=cell_help)
    if value_help is None:
        parser.add_argument("--value-column", default="value", help="column with the contribution (default value)")
    else:
        parser.add_argument("--value-column", default=None, help=value_help)


@assumes_valid
def rule_parameters(args: argparse.Namespace) -> dict[str, float | int]:
    """The rule parameters given on the command line (those not given are left to the rule's defaults).

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    dict
    """
    return {name: getattr(args, name) for name in RULE_FLAGS if getattr(args, name) is not None}


@assumes_valid
def print_frame(frame) -> None:
    """Print a result table in full, numbers to 6 significant digits.

    Parameters
    ----------
    frame : pandas.DataFrame
    """
    import pandas as pd

    with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 120):
        print(frame.to_string(index=False, float_format=lambda v: f"{v:.6g}"))


@assumes_valid
def recommendation_line(r: Any) -> str:
    """The recommendation in the table output: the value and its uncertainty, or why there is none.

    Parameters
    ----------
    r : rumap.maps.recommend.Recommendation

    Returns
    -------
    str
    """
    head = f"recommendation (R_max = {r.max_risk:g}, decision {r.decision}): "
    if not r.feasible:
        return head + "none: " + r.reason
    text = head + f"{r.parameter} = {r.value:g} (R = {r.risk:.4g}, upper {r.risk_upper:.4g}, U = {r.utility:.4g}"
    text += f", efficiency {r.efficiency:.1%})" if r.efficiency is not None else ")"
    if r.p_exceed is not None and r.value_interval is not None:
        text += (f"; P(risk above the bound) = {r.p_exceed:.3f}, smallest safe value in "
                 f"[{r.value_interval[0]:g}, {r.value_interval[1]:g}] (95%)")
    return text


@assumes_valid
def print_map(args: Any, m: Any, extra: dict, heading: str, choice: Any) -> int:
    """Print a map of ``simulate`` as its other methods do: ``--json`` (the curve, ``extra``'s keys, the
    recommendation), or ``heading``, the curve's table and the recommendation's line.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags (``json``).
    m : rumap.result.RUMap
    extra : dict
        The JSON's keys after ``curves`` (``config``, ``n``).
    heading : str
        The table's first line.
    choice : rumap.maps.recommend.Recommendation or None

    Returns
    -------
    int
        0.
    """
    if args.json:
        from rumap.cli import print_json
        from rumap.cli.json_output import SIMULATION_CURVE_KEYS, curve_dict

        out = {"curves": [curve_dict(m, SIMULATION_CURVE_KEYS)], **extra}
        if choice is not None:
            out["recommendation"] = choice.to_dict()
        print_json(out)
        return 0
    import pandas as pd

    print(heading)
    with pd.option_context("display.max_rows", None, "display.width", 250):
        print(m.to_frame().drop(columns=["method", "knowledge", "target"], errors="ignore")
              .to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if choice is not None:
        print(recommendation_line(choice))
    return 0


@assumes_valid
def add_record_flag(group: argparse._ArgumentGroup, method: str, flag: Flag) -> None:
    """Add a flag a method's record declares to ``group``, its help line saying which method it serves.

    A flag already in the parser (another method declares it too) is not added again: its help line gains this
    method's words.

    Parameters
    ----------
    group : argparse._ArgumentGroup
    method : str
        The method's name, for the help line.
    flag : rumap.maps.method_records.Flag
        A ``type`` of None makes a switch; ``repeat`` a flag given several times (a list).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_record_flag(parser, "pram", Flag("--theta", "kept with this probability"))
    >>> add_record_flag(parser, "other", Flag("--theta", "its own theta"))
    >>> parser._option_string_actions["--theta"].help
    'pram: kept with this probability; other: its own theta'
    """
    action = group._option_string_actions.get(flag.flag)
    if action is not None:
        action.help = f"{action.help}; {method}: {flag.help}"
    elif flag.type is None:
        group.add_argument(flag.flag, action="store_true", help=f"{method}: {flag.help}")
    else:
        group.add_argument(flag.flag, type=flag.type, metavar=flag.metavar, action="append" if flag.repeat else "store",
                           help=f"{method}: {flag.help}")


@assumes_valid
def add_method_flag(group: argparse._ActionsContainer, flags: Sequence[Flag], name: str, **settings: Any) -> None:
    """Add the flag ``name`` a method's record declares to that method's own subcommand (``protect pram --theta``).

    Its type, metavar and help are the record's; ``settings`` are the subcommand's own (``required``, ``default``,
    ``metavar``), and a default is said in the help.

    Parameters
    ----------
    group : argparse._ActionsContainer
    flags : sequence of rumap.maps.method_records.Flag
        The record's flags (``flags`` and ``text_flags`` of a step method).
    name : str
        The flag, such as ``"--theta"``.
    **settings
        Keyword arguments of ``add_argument``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_method_flag(parser, [Flag("--k", "the k of k-anonymity", int)], "--k", default=3)
    >>> parser.parse_args([]).k, parser._option_string_actions["--k"].help
    (3, 'the k of k-anonymity (default 3)')
    """
    flag = next(f for f in flags if f.flag == name)
    text = flag.help
    if settings.get("default") is not None and "(default" not in text:
        text = f"{text} (default {settings['default']:g})"
    if flag.type is None:
        group.add_argument(flag.flag, action="store_true", help=text, **settings)
    else:
        group.add_argument(flag.flag, **{"type": flag.type, "metavar": flag.metavar,
                                         "action": "append" if flag.repeat else "store", "help": text, **settings})
