"""No page writes reproducing code by hand: every reproduce panel shows code generated from a specification.

The sources of ``app.py``, ``pages/`` and ``dashboard/`` are read with :mod:`ast`:
no string literal (an f-string's text included, docstrings apart) holds a
``python -m rumap`` command or a ``rumap`` import, and no module but the one
widget that shows generated code (``dashboard/widgets.py``) calls the panel
that takes code as text (``reproduce_code``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The one module that displays generated code.
WIDGET = Path("dashboard") / "widgets.py"

#: Text of reproducing code: a command line, or an import of rumap (a command named in running text, in
#: Markdown backticks, is prose).
CODE = re.compile(r"(?<!`)python -m rumap\b|\bimport rumap\b|\bfrom rumap(\.\w+)* import\b")


def _sources() -> list[Path]:
    return sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "dashboard").glob("*.py")])


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def handwritten_code(source: str, allow_panel: bool = False) -> list[str]:
    """Where ``source`` writes reproducing code by hand: ``line: text`` of each offending literal or call."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                and CODE.search(node.value)):
            found.append(f"{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.Call) and not allow_panel:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "reproduce_code":
                found.append(f"{node.lineno}: reproduce_code(...) with code written on the page")
    return found


def test_the_scan_finds_code_written_by_hand():
    assert handwritten_code('code = f"python -m rumap table rules --rule {rule}"')
    assert handwritten_code('st.code("from rumap.tables.rules import apply_rule\\nresult = apply_rule(c)")')
    assert handwritten_code('lines = ["import rumap", "x = 1"]')
    assert handwritten_code("reproduce_code(python, command, key='k')")
    assert handwritten_code("reproduce_code(python, command, key='k')", allow_panel=True) == []
    assert handwritten_code('"""Run with ``python -m rumap``."""\nreproduce(spec, key="k")') == []
    assert handwritten_code('st.caption("as `python -m rumap release` applies a plan")') == []


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_writes_reproducing_code_by_hand(path):
    relative = path.relative_to(ROOT)
    assert handwritten_code(path.read_text(encoding="utf-8"), allow_panel=relative == WIDGET) == []
