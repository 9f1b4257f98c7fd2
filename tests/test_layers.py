"""The direction of imports: core -> present -> command line / dashboard, with nothing back.

Every module's imports are read with :mod:`ast` (each ``import`` and ``from ... import``, at any depth,
relative ones resolved), so that a new import against the direction fails here, whether it runs at import
time or inside a function.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Which layers each layer may not import.
FORBIDDEN = {
    "core": {"present", "cli", "dashboard", "streamlit", "tests"},
    "present": {"cli", "dashboard", "streamlit", "tests"},
    "cli": {"dashboard", "streamlit", "tests"},
    "dashboard": {"cli", "tests"},
}


def _layer(module: str) -> str | None:
    """The layer of a dotted module name (None for a third-party module other than streamlit)."""
    parts = module.split(".")
    if parts[0] in ("dashboard", "pages", "app"):
        return "dashboard"
    if parts[0] == "streamlit":
        return "streamlit"
    if parts[0] in ("tests", "conftest", "pytest", "hypothesis") or parts[0].endswith("_helpers"):
        return "tests"
    if parts[0] != "rumap":
        return None
    if len(parts) > 1 and parts[1] in ("cli", "__main__"):  # ``python -m rumap`` is the command line's entry
        return "cli"
    if len(parts) > 1 and parts[1] == "present":
        return "present"
    return "core"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, str | None, int]]:
    """(module, imported name or None, line) of every import in the file at ``path``."""
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found += [(target, alias.name, node.lineno) for alias in node.names]
    return found


def _sources() -> list[Path]:
    files = [*ROOT.glob("rumap/**/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/**/*.py"), ROOT / "app.py"]
    return sorted(files)


def violations(path: Path) -> list[str]:
    """The imports of one file against the direction, each as ``file:line: what``."""
    layer = _layer(_module_name(path))
    out = []
    for target, name, line in imports(path):
        where = f"{path.relative_to(ROOT)}:{line}"
        to = _layer(target)
        if to in FORBIDDEN[layer]:
            out.append(f"{where}: the {layer} layer imports {target} ({to})")
        if layer == "dashboard" and to in ("core", "present"):
            private = [p for p in target.split(".") if p.startswith("_")]
            if private or (name or "").startswith("_"):
                out.append(f"{where}: the dashboard imports the private {target}{'.' + name if name else ''}")
    return out


def test_every_module_imports_along_the_layers():
    files = _sources()
    assert len(files) > 100 and {_layer(_module_name(p)) for p in files} == set(FORBIDDEN)
    found = [v for path in files for v in violations(path)]
    assert found == []


@pytest.mark.parametrize(("layer", "source", "expected"), [
    ("present", "from rumap.cli.flags import GRID_FLAGS\n", "the present layer imports rumap.cli.flags (cli)"),
    ("core", "def f():\n    from rumap.present import figures\n", "the core layer imports rumap.present (present)"),
    ("core", "from ..cli import main\n", "the core layer imports rumap.cli (cli)"),
    ("core", "import streamlit as st\n", "the core layer imports streamlit (streamlit)"),
    ("present", "from tests.conftest import x\n", "the present layer imports tests.conftest (tests)"),
    ("dashboard", "from rumap._validation import PARAMETERS\n", "the dashboard imports the private rumap._validation.PARAMETERS"),
    ("dashboard", "from rumap.specs import _small\n", "the dashboard imports the private rumap.specs._small"),
    ("dashboard", "import rumap.cli\n", "the dashboard layer imports rumap.cli (cli)"),
])
def test_an_import_against_the_direction_is_found(tmp_path, monkeypatch, layer, source, expected):
    # the check itself: a file placed in each layer with one wrong import is reported
    folder = {"core": "rumap/maps", "present": "rumap/present", "dashboard": "dashboard"}[layer]
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / folder / "wrong.py"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    (found,) = violations(path)
    assert found.endswith(expected) and found.startswith(f"{folder}/wrong.py:")


def test_an_import_along_the_direction_is_allowed(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / "dashboard" / "fine.py"
    path.parent.mkdir(parents=True)
    path.write_text("import streamlit as st\nfrom rumap.present.figures import map_figure\nfrom rumap import specs\n")
    assert violations(path) == []
