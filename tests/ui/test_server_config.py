"""The server settings in ``.streamlit/config.toml``, as Streamlit itself reads them from the project folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Privacy (no usage statistics, XSRF on, no traceback on the page), bounded uploads, and no file watching:
#: a served dashboard does not reload on source changes, and watching costs every new session a scan of
#: every imported module (about 0.1-0.5 s of the first page); no full garbage collection after each run
#: (it held the interpreter's lock for 75 ms or more while every session waited).
EXPECTED = {
    "browser.gatherUsageStats": False,
    "server.enableXsrfProtection": True,
    "server.maxUploadSize": 200,
    "server.fileWatcherType": "none",
    "server.runOnSave": False,
    "client.showErrorDetails": "none",
    "client.toolbarMode": "viewer",
    "runner.magicEnabled": False,
    "runner.postScriptGC": False,
}

READ = """
import json
from streamlit import config
config.get_config_options(force_reparse=True)
print(json.dumps({name: config.get_option(name) for name in %r}))
"""


def test_streamlit_reads_the_project_settings():
    out = subprocess.run([sys.executable, "-c", READ % list(EXPECTED)], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert json.loads(out.strip().splitlines()[-1]) == EXPECTED
