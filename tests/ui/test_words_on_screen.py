"""What the pages and the command line's help show speaks of papers and methods by name, never by internal labels."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
#: Labels of the project's reference files, which mean nothing to a reader.
INTERNAL = re.compile(r"\bseed\s*0\d\d\b|\bseeds?/|\(Mas[,)]|, Mas\)|\bthe seed(:|'s| says| describes)",
                      re.IGNORECASE)


def _shown_strings(path: Path) -> list[tuple[int, str]]:
    """String constants of a module that are not docstrings (what a page can put on screen)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


@pytest.mark.parametrize("path", sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"),
                                         *(ROOT / "dashboard").glob("*.py"), *(ROOT / "rumap" / "present").glob("*.py")]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_internal_label_on_screen(path):
    found = [(line, text) for line, text in _shown_strings(path) if INTERNAL.search(text)]
    assert not found, found


@pytest.mark.parametrize("command", [("query", "answer"), ("query", "audit"), ("table", "granularity"),
                                     ("protect", "suppress"), ("risk", "suda")])
def test_no_internal_label_in_the_command_line_help(command):
    proc = run_cli(*command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert not INTERNAL.search(proc.stdout), proc.stdout
