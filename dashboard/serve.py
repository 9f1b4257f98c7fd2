"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` (what ``make run`` calls).

It sets the server up to keep uploads in memory (:mod:`dashboard.uploads`)
and imports every module the pages import and draws one small figure before the
server starts, then runs ``streamlit run app.py`` in this process. Without that,
the first visitor after a start would wait for the imports (about 1.5 s on two
cores) and the first visit to each page for that page's own. What is loaded then
is frozen out of the garbage collector's walks (:func:`prepare`).
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path

from dashboard.middleware import install as install_middleware
from dashboard.no_delay import install as install_no_delay
from dashboard.uploads import keep_uploads_in_memory

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"


def app_scripts() -> list[Path]:
    """The app's scripts: ``app.py``, then every page in ``pages/``.

    Returns
    -------
    list of Path

    Examples
    --------
    >>> app_scripts()[0].name, all(path.suffix == ".py" for path in app_scripts())
    ('app.py', True)
    """
    return [APP, *sorted((ROOT / "pages").glob("*.py"))]


def page_imports(files: Iterable[Path]) -> list[str]:
    """The modules that the given scripts import at their top level, read from their source (not run).

    ``from package import name`` counts ``package.name`` too when it is a module
    of the package (finding that out imports the package).

    Parameters
    ----------
    files : iterable of Path
        Python scripts (the app and its pages).

    Returns
    -------
    list of str
        Absolute module names, sorted, each once (``from __future__`` left out).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     script = Path(folder) / "page.py"
    ...     _ = script.write_text("import json\\nfrom rumap.specs import AnalyticSpec\\n"
    ...                           "from rumap import specs\\ndef f():\\n    import csv\\n")
    ...     page_imports([script])
    ['json', 'rumap', 'rumap.specs']
    """
    names: set[str] = set()
    for file in files:
        for node in ast.parse(Path(file).read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names
                             if _is_submodule(f"{node.module}.{alias.name}"))
    return sorted(names)


def _is_submodule(name: str) -> bool:
    """Whether ``name`` (``package.attribute``) is a module of its package (``from dashboard import state``)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # the parent is not a package, or does not import
        return False


def import_pages_modules() -> list[str]:
    """Import what ``app.py`` and every page import; returns the modules that failed to import.

    A module that fails is left for its page to report when it runs.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import_pages_modules()
    []
    """
    failed = []
    for name in page_imports(app_scripts()):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the page shows the error when it runs
            failed.append(name)
    return failed


def draw_a_figure() -> int:
    """Build and serialise one small map figure, so Plotly loads its validators now, not at the first map.

    Returns
    -------
    int
        The length of the figure's JSON.

    Examples
    --------
    >>> draw_a_figure() > 0
    True
    """
    import plotly.io

    from rumap.present.figures import analysis_figure
    from rumap.specs import AnalyticSpec

    figure = analysis_figure(AnalyticSpec(n=10, sigma2=1.0, states=("record",), lambda2_num=5, max_risk=1.0).run())
    return len(plotly.io.to_json(figure))


def prepare() -> None:
    """Set the server process up before it serves: uploads in memory, our middleware in front of Streamlit's
    (:mod:`dashboard.middleware`: its files from memory, page requests watched), connections without Nagle's
    delay (:mod:`dashboard.no_delay`), the pages' modules loaded, and frozen.

    Freezing (:func:`gc.freeze`) moves the objects loaded so far (about 160,000:
    modules, functions, Plotly's validators) out of the garbage collector's
    reach. A full collection then no longer walks them: it took about 75 ms,
    holding the interpreter's lock while every session waited.

    Examples
    --------
    >>> prepare()
    >>> import gc
    >>> gc.get_freeze_count() > 0
    True
    """
    keep_uploads_in_memory()
    install_middleware()
    install_no_delay()
    import_pages_modules()
    draw_a_figure()
    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None) -> None:
    """Run the dashboard with the given ``streamlit run`` options (e.g. ``--server.port 8502``)."""
    from streamlit.web import cli

    prepare()
    args = sys.argv[1:] if argv is None else argv
    cli.main(["run", str(APP), *args], prog_name="streamlit")


if __name__ == "__main__":
    main()
