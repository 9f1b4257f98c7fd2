"""One reader: no data file is read outside rumap/io (issue 42, item 3).

Every module of rumap/, dashboard/, pages/ and app.py is read with ``ast``; a call of a file reader (pandas',
Polars', Dask's, pyarrow's, pyreadstat's), an ``open()`` for reading, a path's ``read_bytes``/``read_text`` or an
import of a format's reader outside rumap/io fails, naming the module, the line and the call.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Attribute calls that read a file: pandas' readers, Polars' scans and readers, Dask's, pyarrow's, pyreadstat's.
READERS = {"read_csv", "read_table", "read_fwf", "read_excel", "ExcelFile", "read_parquet", "read_feather", "read_orc",
           "read_stata", "read_sas", "read_spss", "read_json", "read_hdf", "read_pickle", "read_ipc", "read_ndjson",
           "scan_csv", "scan_parquet", "scan_ipc", "scan_ndjson", "ParquetFile", "ParquetDataset", "read_schema",
           "read_metadata", "iter_batches", "read_sav", "read_dta", "read_sas7bdat", "read_xport", "read_por",
           "read_bytes", "read_text"}
#: Modules that only read files.
READER_MODULES = ("pyreadstat", "pyarrow.csv", "pyarrow.dataset")
#: Reads that are no data file's, and why.
NOT_DATA = {("rumap/cli/query.py", "read_bytes"): "a text of queries",
            ("dashboard/static_cache.py", "read_bytes"): "the dashboard's own assets",
            ("dashboard/serve.py", "read_text"): "the pages' source code",
            ("rumap/examples.py", "read_text"): "an example file the project writes itself"}


#: Text that a module with a read holds somewhere: only such modules are parsed.
_CANDIDATE = re.compile("|".join([*sorted(READERS), "open", "pyreadstat", "pyarrow"]))


def _modules(root: Path) -> list[Path]:
    files = [root / "app.py"]
    for folder in ("rumap", "dashboard", "pages"):
        files += sorted((root / folder).rglob("*.py"))
    return [f for f in files if f.is_file() and not f.relative_to(root).as_posix().startswith("rumap/io/")]


def _mode(call: ast.Call, position: int) -> str | None:
    """The ``mode`` argument of an ``open`` call, when it is a literal (``"r"`` when it is not given)."""
    node = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), ast.Constant("r"))
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _reads(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [f"{node.module}.{a.name}" for a in node.names])  # from pyarrow import csv: pyarrow.csv
            found += [(node.lineno, f"import {n}") for n in names if n.startswith(READER_MODULES)]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in READERS:
            found.append((node.lineno, func.attr))
        elif isinstance(func, ast.Name) and func.id in READERS - {"read_table"}:  # rumap's own read_table is io's
            found.append((node.lineno, func.id))
        elif isinstance(func, ast.Name) and func.id == "open":
            mode = _mode(node, 1)
            if mode is None or not set(mode) & set("wax"):
                found.append((node.lineno, "open"))
        elif (isinstance(func, ast.Attribute) and func.attr == "open"
              and not (isinstance(func.value, ast.Name) and func.value.id == "os")):
            mode = _mode(node, 0)
            if mode is None or not set(mode) & set("wax"):
                found.append((node.lineno, ".open"))
    return found


def reads_outside_io(root: Path) -> list[tuple[str, int, str]]:
    """Each read of a file outside rumap/io under ``root``: its module, line and call."""
    texts = {file: file.read_text(encoding="utf-8") for file in _modules(root)}
    return sorted((file.relative_to(root).as_posix(), line, call) for file, text in texts.items()
                  if _CANDIDATE.search(text) for line, call in _reads(ast.parse(text)))


def test_no_data_file_is_read_outside_rumap_io():
    found = reads_outside_io(ROOT)
    assert [f"{name}:{line}: {call}" for name, line, call in found if (name, call) not in NOT_DATA] == []
    assert set(NOT_DATA) <= {(name, call) for name, _, call in found}  # each exception is still needed


def test_the_scan_finds_each_kind_of_read(tmp_path):
    (tmp_path / "rumap" / "io").mkdir(parents=True)
    (tmp_path / "dashboard").mkdir()
    (tmp_path / "pages").mkdir()
    (tmp_path / "app.py").write_text("open('x.csv')\n")
    (tmp_path / "rumap" / "io" / "fine.py").write_text("import pandas as pd\npd.read_csv('x')\n")
    (tmp_path / "rumap" / "engine.py").write_text(
        "import pyreadstat\nimport polars as pl\nfrom pathlib import Path\npl.scan_csv('x')\n"
        "Path('x').open('rb')\nopen('y', 'w')\nPath('y').open('w')\nread_table('z')\nfrom pyarrow import csv\n")
    (tmp_path / "dashboard" / "page.py").write_text("import dask.dataframe as dd\ndd.read_parquet('x')\n"
                                                    "from pathlib import Path\nPath('x').read_bytes()\n")
    assert reads_outside_io(tmp_path) == [("app.py", 1, "open"), ("dashboard/page.py", 2, "read_parquet"),
                                          ("dashboard/page.py", 4, "read_bytes"),
                                          ("rumap/engine.py", 1, "import pyreadstat"),
                                          ("rumap/engine.py", 4, "scan_csv"), ("rumap/engine.py", 5, ".open"),
                                          ("rumap/engine.py", 9, "import pyarrow.csv")]
