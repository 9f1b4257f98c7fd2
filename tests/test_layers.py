"""The direction of imports: core -> present -> command line / dashboard, with nothing back.

Every module's imports are read with :mod:`ast` (each ``import`` and ``from ... import``, at any depth,
relative ones resolved), so that a new import against the direction fails here, whether it runs at import
time, inside a function or only for type checking.

Inside rumap the subpackages are ordered (:data:`RANKS`): a module imports its own subpackage or a lower
one, never a higher one; no modules import each other, even through others (a cycle); and no subpackage
imports another's private name (a module or attribute that starts with ``_``).
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
    key = (ROOT, path)
    if key not in _IMPORTS:
        _IMPORTS[key] = _read_imports(path)
    return _IMPORTS[key]


#: The imports of each file read, by (root, path): the checks below read every module once.
_IMPORTS: dict[tuple[Path, Path], list[tuple[str, str | None, int]]] = {}


def _read_imports(path: Path) -> list[tuple[str, str | None, int]]:
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


#: The order of rumap's subpackages (and top-level modules): each imports its own rank or lower ones only.
RANKS = {
    # the foundation: errors, validation, results, digests, the work budget, numba, the fixtures of examples
    **dict.fromkeys(("", "errors", "_validation", "result", "fingerprint", "budget", "_compile", "examples"), 0),
    **dict.fromkeys(("io", "engine"), 1),  # reading files; the one chunk runner over what they give
    **dict.fromkeys(("masking", "risk", "tables", "databases", "privacy", "synthesis"), 2),  # the methods and measures
    "maps": 3,
    "scale": 4,
    "specs": 5,
    "release": 6,  # a release step is made from a map's specification (rumap.release.from_map)
    "present": 7,
    **dict.fromkeys(("cli", "__main__"), 8),  # the front ends
}

#: Cycles of modules that import each other still, each as its sorted modules (to shrink to nothing).
ALLOWED_CYCLES: list[list[str]] = [
]

#: Imports of another subpackage's private name still made, as ``importer: name`` (to shrink to nothing).
ALLOWED_PRIVATE: list[str] = []

#: Imports of a higher subpackage still made, as ``importer: module`` (to shrink to nothing).
ALLOWED_UPWARD: list[str] = [
]


def _subpackage(module: str) -> str:
    """The unit of :data:`RANKS` a module of rumap belongs to (its subpackage or top-level module)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(ROOT.glob("rumap/**/*.py"))}


def _imported(target: str, name: str | None, modules: dict[str, Path]) -> str:
    """The module of rumap an import loads: ``target.name`` if that is a module, else the deepest module of ``target``."""
    if name and f"{target}.{name}" in modules:
        return f"{target}.{name}"
    while target not in modules and "." in target:
        target = target.rpartition(".")[0]
    return target


def module_graph() -> dict[str, set[str]]:
    """Each module of rumap and the modules of rumap it imports, at any depth."""
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        found = {_imported(target, name, modules) for target, name, _ in imports(path)
                 if target.split(".")[0] == "rumap"}
        graph[module] = found & modules.keys() - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def private_crossings(path: Path) -> list[str]:
    """The private names of another subpackage that a module of rumap imports, as ``importer: name``."""
    module = _module_name(path)
    out = []
    for target, name, _ in imports(path):
        parts = [*target.split("."), *([name] if name else [])]
        if parts[0] != "rumap" or len(parts) < 2 or _subpackage(".".join(parts)) == _subpackage(module):
            continue
        if any(p.startswith("_") and not p.startswith("__") for p in parts[2:]):
            out.append(f"{module}: {'.'.join(parts)}")
    return out


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """The imports of a higher subpackage, as ``importer: module``."""
    return sorted(f"{module}: {target}" for module, targets in graph.items() for target in targets
                  if RANKS[_subpackage(target)] > RANKS[_subpackage(module)])


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


def test_every_subpackage_of_rumap_has_a_rank():
    assert {_subpackage(module) for module in _modules()} <= RANKS.keys()


def test_no_module_imports_a_higher_subpackage():
    assert upward_imports(module_graph()) == sorted(ALLOWED_UPWARD)


def test_no_modules_import_each_other():
    assert cycles(module_graph()) == sorted(ALLOWED_CYCLES)


def test_no_subpackage_imports_another_ones_private_names():
    found = sorted({c for path in _modules().values() for c in private_crossings(path)})
    assert found == sorted(ALLOWED_PRIVATE)


def test_a_cycle_is_found_through_any_import():
    # an import inside a function, a submodule imported by name, and one only for type checking all count
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"f2"}, "f2": set()}
    assert cycles(graph) == [["a", "b", "c"], ["d", "e"]]


@pytest.mark.parametrize(("where", "source", "expected"), [
    ("rumap/maps/x.py", "def f():\n    from rumap.release.y import z\n", "rumap.maps.x: rumap.release.y"),
    ("rumap/maps/x.py", "from rumap.release import y\n", "rumap.maps.x: rumap.release.y"),
    ("rumap/io/x.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rumap.tables.y import T\n",
     "rumap.io.x: rumap.tables.y"),
    ("rumap/maps/x.py", "from ..specs import y\n", "rumap.maps.x: rumap.specs"),
])
def test_an_import_of_a_higher_subpackage_is_found(tmp_path, monkeypatch, where, source, expected):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    for folder in ("rumap/maps", "rumap/io", "rumap/release", "rumap/specs", "rumap/tables"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "rumap" / "__init__.py").write_text("")
    for name in ("rumap/release/y.py", "rumap/tables/y.py"):
        (tmp_path / name).write_text("")
    (tmp_path / where).write_text(source)
    assert upward_imports(module_graph()) == [expected]


@pytest.mark.parametrize(("source", "expected"), [
    ("from rumap.risk._paired import as_frame\n", ["rumap.maps.x: rumap.risk._paired.as_frame"]),
    ("def f():\n    from rumap.masking.ranks import _stable_order\n", ["rumap.maps.x: rumap.masking.ranks._stable_order"]),
    ("from rumap.maps.simulation import _simulate\n", []),  # its own subpackage
    ("from rumap._validation import check_scalar\n", []),  # the foundation's private module, shared by all
    ("from rumap import __version__\n", []),
])
def test_a_private_name_of_another_subpackage_is_found(tmp_path, monkeypatch, source, expected):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / "rumap" / "maps" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    assert private_crossings(path) == expected
