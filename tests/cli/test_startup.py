"""``python -m rumap --help`` lists the commands without importing them (rumap/cli/__init__.py)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from cli_helpers import ROOT

from rumap.cli import SUBCOMMANDS, SUMMARIES, build_parser

HEAVY = ("pandas", "scipy", "numba", "plotly")


def test_help_imports_neither_pandas_nor_scipy():
    # in a fresh interpreter, as ``python -m rumap --help`` starts
    code = ("import sys\nfrom rumap.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
            f"print('\\x1e' + __import__('json').dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    help_text, loaded = proc.stdout.split("\x1e")
    assert json.loads(loaded) == []
    for name in SUBCOMMANDS:
        assert name in help_text


def test_the_list_of_commands_is_the_one_every_parser_makes():
    assert build_parser().format_help() == build_parser(every=True).format_help()


def test_every_subcommand_has_its_modules_help_line():
    assert set(SUMMARIES) == set(SUBCOMMANDS)
    for name, module in SUBCOMMANDS.items():
        assert SUMMARIES[name] == importlib.import_module(module).HELP, name
