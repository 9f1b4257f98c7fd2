"""``python -m rumap query``: answer queries on a confidential field with camouflage, or audit a sequence of them.

Sub-subcommands:

- ``answer``: confidentiality via camouflage (Gopal & Goes, as Mas's
  *Statistical Data Protection Techniques* describes it): every query
  answered as a point answer and a guarantee from k vectors hiding the field;
- ``audit``: an auditor of SUM, MEAN and COUNT queries (Malvestuto &
  Moscarini, as Mas describes it) that refuses any answer disclosing a value
  exactly or within its protection interval, and names the earlier queries
  responsible.

Queries are ``KIND:RECORDS`` with records numbered from 1: ``SUM:1,2,3``,
``MEAN:4-9``, ``MAX:*``, ``COUNT>=100:1-9``; given with ``--query`` (repeated)
or ``--queries FILE`` (a JSON list of strings, or one query per line).
"""

from __future__ import annotations

import argparse
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rumap._validation import PARAMETERS, SEED
from rumap.cli.flags import add_work_limit, budget_from_args, check_flag, print_frame
from rumap.errors import InputError

HELP = "database queries: answers with a guarantee (camouflage) and an auditor of query sequences"
MAX_QUERY_BYTES = 1_000_000


def _read_queries_file(path: str) -> list[str]:
    file = Path(path)
    try:
        info = file.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"--queries {path}: is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"--queries {path}: not a regular file")
        if info.st_size > MAX_QUERY_BYTES:
            raise InputError(f"--queries {path}: over {MAX_QUERY_BYTES // 1000} kB")
        content = file.read_bytes()[:MAX_QUERY_BYTES]
    except FileNotFoundError:
        raise InputError(f"--queries {path}: no such file") from None
    except OSError as exc:
        raise InputError(f"--queries {path}: cannot read the file ({exc.strerror})") from None
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"--queries {path}: not a UTF-8 text file") from None
    from rumap.databases.queries import queries_from_text

    return queries_from_text(text)


def _inputs(args: argparse.Namespace) -> tuple[np.ndarray, list[str]]:
    if not args.query and args.queries is None:
        raise InputError("give queries with --query (repeated) or --queries FILE")
    from rumap.io.data import numeric_column, read_table

    frame = read_table(args.data)
    values = numeric_column(frame, args.value, source=str(args.data))
    if args.records is not None:
        check_flag("--records", "records", args.records)
        values = values[: args.records]
    queries = _read_queries_file(args.queries) if args.queries is not None else []
    return values, queries + list(args.query or [])


def _run_answer(args: argparse.Namespace) -> int:
    from rumap.databases.camouflage import answer_queries, camouflage_vectors

    protection = check_flag("--protection", "camouflage_width", args.protection)
    values, queries = _inputs(args)
    k = check_flag("--camouflage-k", "camouflage_k", args.camouflage_k)
    seed = SEED.check("--seed", args.seed)
    vectors = camouflage_vectors(values, protection=protection, k=k, seed=seed)
    answers = answer_queries(vectors, queries, budget=budget_from_args(args))
    if args.json:
        from rumap.cli import print_json

        out = answers.to_dict()
        if args.show_vectors:
            out["vectors"] = vectors.to_dict()
        print_json(out)
        return 0
    print_frame(answers.to_frame().drop(columns="exact"))
    print(f"camouflage: k = {vectors.k} vectors, protection {protection:g}% of each value, seed {args.seed}; "
          "the exact answer lies in answer +- guarantee")
    if args.show_vectors:
        print_frame(vectors.to_frame())
    return 0


def _optional_number(text: str, flag: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{flag} must be a number or 'none', got {text[:40]!r}") from None
    if not PARAMETERS["known_bound"].contains(value):
        raise InputError(f"{flag} must be a finite number or 'none', got {text[:40]!r}")
    return value


def _run_audit(args: argparse.Namespace) -> int:
    protection = check_flag("--protection", "audit_protection", args.protection)
    lower = _optional_number(args.lower, "--lower")
    upper = None if args.upper is None else _optional_number(args.upper, "--upper")
    if (args.dominance_n is None) != (args.dominance_k is None):
        raise InputError("--dominance-n and --dominance-k go together (the (n, k) dominance rule)")
    if args.dominance_n is not None:
        check_flag("--dominance-n", "dominance_n", args.dominance_n)
        check_flag("--dominance-k", "dominance_k", args.dominance_k)
    check_flag("--threshold", "threshold", args.threshold)
    values, queries = _inputs(args)
    from rumap.databases.audit import audit_queries

    log = audit_queries(values, queries, protection=protection, lower=lower, upper=upper, threshold=args.threshold,
                        dominance_n=args.dominance_n, dominance_k=args.dominance_k, budget=budget_from_args(args))
    if args.json:
        from rumap.cli import print_json

        print_json(log.to_dict())
        return 0
    print_frame(log.to_frame()[["number", "query", "answered", "answer", "explanation"]])
    print(f"{log.answered} of {len(log.decisions)} queries answered")
    return 0


#: query sub-subcommand -> its runner.
RUNNERS: dict[str, Callable[[argparse.Namespace], int]] = {"answer": _run_answer, "audit": _run_audit}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, metavar="FILE", help="the database (CSV, Excel, ...), one record a row")
    p.add_argument("--value", required=True, metavar="COLUMN", help="the confidential numeric column")
    p.add_argument("--query", action="append", metavar="QUERY",
                   help="a query KIND:RECORDS, e.g. SUM:1,2,3 or MEAN:4-9 (records from 1; repeat the flag)")
    p.add_argument("--queries", metavar="FILE", help="queries from a file: a JSON list of strings or one a line")
    p.add_argument("--records", type=int, metavar="N", help="the database is the first N rows (default: all)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``query`` subcommand and its flags.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The main parser's subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    from rumap.cli import OneLineParser

    p = subparsers.add_parser("query", help=HELP, description=HELP)
    commands = p.add_subparsers(dest="query_command", metavar="QUERY_COMMAND", parser_class=OneLineParser)
    commands.required = True
    a = commands.add_parser("answer", help="answers with a guarantee, by confidentiality via camouflage",
                            description="Answer SUM, MEAN, MIN, MAX and COUNT queries from k camouflage vectors: "
                                        "the exact answer lies in answer +- guarantee.")
    _common(a)
    a.add_argument("--protection", type=float, default=10.0, metavar="P",
                   help="protection width, percent of each value (default 10)")
    a.add_argument("--camouflage-k", type=int, default=3, metavar="K",
                   help="number of camouflage vectors, the data being the last (3 to 50, default 3)")
    a.add_argument("--seed", type=int, default=0, help="random seed of the vectors (default 0)")
    a.add_argument("--show-vectors", action="store_true", help="also print the k vectors and each record's bounds")
    add_work_limit(a)

    u = commands.add_parser("audit", help="audit a sequence of SUM, MEAN and COUNT queries",
                            description="Answer the queries in order, refusing any whose answer would disclose a "
                                        "value exactly or within its protection interval.")
    _common(u)
    u.add_argument("--protection", type=float, default=10.0, metavar="P",
                   help="protection interval, percent of each value; 0 refuses exact disclosure only (default 10)")
    u.add_argument("--lower", default="0", metavar="L", help="known lower bound of every value, or none (default 0)")
    u.add_argument("--upper", metavar="U", help="known upper bound of every value (default none)")
    u.add_argument("--threshold", type=int, default=1, metavar="N",
                   help="threshold rule: a query set of fewer records is sensitive (default 1: no rule)")
    u.add_argument("--dominance-n", type=int, metavar="N", help="(n, k) dominance rule: n")
    u.add_argument("--dominance-k", type=float, metavar="K", help="(n, k) dominance rule: k, a fraction in (0, 1]")
    add_work_limit(u)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the chosen ``query`` command (``answer`` or ``audit``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags of ``query``.

    Returns
    -------
    int
        The exit code: 0 on success (bad input raises :class:`~rumap.errors.InputError`, exit 2).
    """
    return RUNNERS[args.query_command](args)
