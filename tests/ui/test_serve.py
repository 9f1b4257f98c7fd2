"""The server start (``python -m dashboard.serve``): the pages' modules are imported before the first visitor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dashboard.serve import ROOT, app_scripts, page_imports


def test_page_imports_reads_top_level_imports_and_package_modules(tmp_path):
    script = tmp_path / "page.py"
    script.write_text("from __future__ import annotations\nimport json, csv as c\nfrom dashboard import state, words\n"
                      "from rumap.specs import AnalyticSpec\nfrom . import sibling\n"
                      "if True:\n    import decimal\ndef f():\n    import fractions\n")
    assert page_imports([script]) == ["csv", "dashboard", "dashboard.state", "dashboard.words", "json",
                                      "rumap.specs"]


def test_every_page_dependency_is_found():
    found = set(page_imports(app_scripts()))
    assert {"dashboard.state", "dashboard.widgets", "rumap.specs", "rumap.present.examples", "streamlit"} <= found
    assert all(not name.startswith("pages") for name in found)


def test_the_start_imports_every_page_module_draws_a_figure_freezes_them_and_installs_the_server_changes():
    code = ("import gc, sys\nfrom dashboard.serve import import_pages_modules, draw_a_figure, page_imports, "
            "prepare, app_scripts\n"
            "assert import_pages_modules() == []\nassert draw_a_figure() > 1000\nprepare()\n"
            "assert gc.get_freeze_count() > 100_000, gc.get_freeze_count()\n"
            "names = page_imports(app_scripts())\n"
            "missing = [n for n in names if n not in sys.modules]\nassert not missing, missing\n"
            "assert 'plotly.graph_objs' in sys.modules\n"
            "from streamlit.web.server.starlette import starlette_app, starlette_server\n"
            "from dashboard.middleware import MIDDLEWARE\n"
            "assert starlette_server._bind_socket.rumap_no_delay\n"
            "assert tuple(m.cls for m in starlette_app.create_streamlit_middleware())[:2] == MIDDLEWARE\n"
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(ROOT), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")
