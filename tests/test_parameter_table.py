"""Every bound of a parameter is one entry of ``PARAMETERS``, and every entry is read somewhere.

The source of the package, the dashboard and the pages is read with ``ast``
(nothing is imported), so these checks cost no import time. Boundary tests
pin the bounds chosen where several declarations of one concept disagreed.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

from rumap._validation import PARAMETERS, make_constraint
from rumap.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
#: The table and the modules that define its types.
TABLES = {ROOT / "rumap" / "_validation" / name for name in ("parameters.py", "base.py", "constraints.py")}

#: Calls whose string arguments name an entry of the table.
READERS = {"Grid", "NumberArray", "check_scalar", "check_array", "check_flag", "bounds", "number", "slider",
           "make_constraint"}
#: Keywords whose string value names an entry of the table.
READER_KEYWORDS = {"bound", "parameter", "entry"}
#: Constraint classes that hold a bound: built only in the table's module.
BOUND_TYPES = {"Interval", "Grid"}


#: Text that a module holding a bound declaration, or naming an entry, contains (modules without it are not parsed).
BOUND_TEXT = re.compile(r"Interval|Grid\)|min_value|max_value")
ENTRY_TEXT = re.compile(r"PARAMETERS|validate_params|check_flag|check_scalar|check_array|Grid\(|NumberArray\(|"
                        r"bound=|parameter=|entry=|number\(|slider\(|bounds\(")


def _sources() -> list[Path]:
    files = [*(ROOT / "rumap").rglob("*.py"), *(ROOT / "dashboard").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]
    return sorted([*files, ROOT / "app.py"])


@pytest.fixture(scope="module")
def scanned() -> dict[Path, tuple[list[str], set[str]]]:
    """Each module's bound declarations and the entries it names (one parse, one walk)."""
    out = {}
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        if BOUND_TEXT.search(text) or ENTRY_TEXT.search(text) or path.parent.name == "cli":
            out[path] = scan(ast.parse(text), path)
    return out


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _flag_value(node: ast.AST) -> bool:
    """``args.something``: a parsed command-line flag."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "args"


def scan(tree: ast.Module, path: Path) -> tuple[list[str], set[str]]:
    """Where a module declares a bound itself instead of reading the table, and the strings it passes where an
    entry of the table is named."""
    where = path.relative_to(ROOT).as_posix()
    front_end = where.startswith(("dashboard/", "pages/", "app.py"))
    declared: list[str] = []
    read: set[str] = set()

    def strings(node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            read.add(node.value)
        elif isinstance(node, (ast.List, ast.Tuple)):
            for item in node.elts:
                strings(item)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if _name(node.func) == "Interval":
                declared.append(f"{where}:{node.lineno}: Interval(...)")
            if _name(node.func) in READERS:
                for arg in node.args:
                    strings(arg)
            for keyword in node.keywords:
                if keyword.arg in READER_KEYWORDS:
                    strings(keyword.value)
                if front_end and keyword.arg in ("min_value", "max_value") and _number(keyword.value):
                    declared.append(f"{where}:{keyword.value.lineno}: {keyword.arg}={ast.unparse(keyword.value)}")
            if front_end and _name(node.func) == "slider":
                # slider(name, label, key, default, low, high): the range and step are the entry's
                ranged = [*node.args[4:], *(k.value for k in node.keywords if k.arg in ("low", "high", "step"))]
                declared += [f"{where}:{v.lineno}: slider(..., {ast.unparse(v)})" for v in ranged if _number(v)]
        elif isinstance(node, ast.ClassDef) and any(_name(base) in BOUND_TYPES for base in node.bases):
            declared.append(f"{where}:{node.lineno}: a subclass of {', '.join(sorted(BOUND_TYPES))}")
        elif isinstance(node, ast.Compare) and where.startswith("rumap/cli/"):
            operands = [node.left, *node.comparators]
            if any(_flag_value(o) for o in operands) and any(_number(o) for o in operands) \
                    and all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
                declared.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and not _is_the_table(node):
            for value in node.values:
                strings(value)
        elif isinstance(node, ast.Subscript) and _name(node.value) == "PARAMETERS":
            strings(node.slice)
    return declared, read


def _is_the_table(node: ast.Dict) -> bool:
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return len(keys) > 10 and keys <= set(PARAMETERS)


def test_no_bound_is_declared_outside_the_table(scanned):
    found = [line for path, (declared, _) in scanned.items() if path not in TABLES for line in declared]
    assert found == [], "declare the bound as an entry of rumap._validation.PARAMETERS and read it:\n" + "\n".join(found)


def test_the_scan_finds_each_kind_of_bound_declaration():
    source = ("X = Interval('int', 1, None)\nclass G(Grid): pass\nst.number_input('a', min_value=0, max_value=-1.5)\n"
              "if args.k < 2: pass\nif 0 < args.p <= 1: pass\nif args.k < other: pass\n"
              "slider('rule_percent', 'p', 'p', 10.0, 1.0, 100.0, 1.0)\nslider('k', 'k', 'k', 2, high=-3)\n"
              "slider('k', 'k', 'k', 2, high=top)\n")
    tree = ast.parse(source)
    assert sorted(line.split(": ", 1)[1] for line in scan(tree, ROOT / "pages" / "x.py")[0]) == [
        "Interval(...)", "a subclass of Grid, Interval", "max_value=-1.5", "min_value=0", "slider(..., -3)",
        "slider(..., 1.0)", "slider(..., 1.0)", "slider(..., 100.0)"]
    assert sorted(line.split(": ", 1)[1] for line in scan(tree, ROOT / "rumap" / "cli" / "x.py")[0]) == [
        "0 < args.p <= 1", "Interval(...)", "a subclass of Grid, Interval", "args.k < 2"]


def test_every_entry_is_read_somewhere(scanned):
    read = set().union(*(entries for _, entries in scanned.values()))
    assert sorted(set(PARAMETERS) - read) == []


def test_an_unread_entry_is_found():
    tree = ast.parse("PARAMETERS['k']\nf({'x': [None, 'theta']})\ncheck_flag('--n', 'n', 1)\n"
                     "GridParameter(bound='lambda2')\nf('tau')\n{'mu': 1}\n")
    assert scan(tree, ROOT / "rumap" / "x.py")[1] & set(PARAMETERS) == {"k", "theta", "n", "lambda2"}


# --- the bounds chosen where declarations of one concept disagreed ----------------------------------------------


def _refused(entry: str, value: float) -> bool:
    try:
        make_constraint(entry).check(entry, value)
    except InputError:
        return True
    return False


def test_a_solver_time_limit_is_at_most_a_day_for_every_solver():
    assert not _refused("time_limit", 86400.0) and _refused("time_limit", math.nextafter(86400.0, math.inf))
    assert _refused("time_limit", 0.0)  # every solver reads this entry: tests/test_validation.py


def _slider_fits(interval) -> bool:
    """Whether an entry's slider range has finite ends inside the entry's bounds and a step that fits."""
    low, high, step = interval.slider
    whole = interval.kind != "int" or all(float(v).is_integer() for v in interval.slider)
    return (all(math.isfinite(v) for v in interval.slider) and low < high and 0 < step <= high - low
            and interval.contains(low) and interval.contains(high) and whole)


def test_a_slider_range_lies_within_its_entry():
    sliders = [name for name, interval in PARAMETERS.items() if interval.slider is not None]
    assert sliders  # the Tables page's and the risk measures page's sliders read these
    assert [name for name in sliders if not _slider_fits(PARAMETERS[name])] == []


def test_a_slider_range_outside_its_entry_is_found():
    from rumap._validation import Interval

    assert _slider_fits(Interval("float", 0.0, 100.0, "right", slider=(0.5, 50.0, 0.5)))
    for bad in ((0.0, 50.0, 0.5), (1.0, 101.0, 1.0), (1.0, math.inf, 1.0), (5.0, 1.0, 1.0), (1.0, 2.0, 0.0)):
        assert not _slider_fits(Interval("float", 0.0, 100.0, "right", slider=bad)), bad
    assert not _slider_fits(Interval("int", 1, None, "left", slider=(1, 10, 0.5)))


def test_an_entry_read_under_several_names_names_the_one_given():
    from rumap.masking.noise import NoiseSpec
    from rumap.tables.rules import check_rule_parameters

    for name, value in (("truncate_below", 2e150), ("truncate_above", -2e150), ("unequal_above", math.nan),
                        ("unequal_below", math.inf)):
        with pytest.raises(InputError, match=f"^{name} must"):
            NoiseSpec(**{name: value})
    for name in ("p", "q"):
        with pytest.raises(InputError, match=f"^{name} must be a number in \\(0, 100\\]"):
            check_rule_parameters("pq", {"p": 10.0, "q": 50.0, name: 0.0})
