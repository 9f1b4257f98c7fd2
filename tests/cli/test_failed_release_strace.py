"""A failed release leaves no file behind: ``python -m rumap release --chunk-size`` under strace.

The Parquet file's third chunk holds a missing value the noise step refuses, so the run has written two
chunks when it fails. strace logs every file the process (all its threads) creates, writes, renames and
removes; the test finds every path it created in the output's folder, checks that chunks were written to one
of them (a tracer that saw nothing cannot pass), and that none of them is left, nothing was renamed into
place and the folder is as it was.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from cli_helpers import ROOT

#: ``openat(AT_FDCWD, "/path", O_WRONLY|O_CREAT|..., 0666) = 3`` (a file created or truncated).
CREATED = re.compile(r'^\d+\s+(?:openat|open|creat)\((?:AT_FDCWD(?:<[^>]*>)?, )?"([^"]+)", [^)]*O_CREAT[^)]*\)'
                     r'\s+=\s+\d+')
#: ``write(4</path>, ...) = 4096`` with strace -y (the descriptor's path), ``AT_FDCWD</cwd>`` too.
WRITTEN = re.compile(r"^\d+\s+(?:write|pwrite64|writev)\(\d+<([^>]+)>.*\)\s+=\s+[1-9]")
#: A rename's target: ``rename("/a", "/b") = 0`` or ``renameat2(AT_FDCWD, "/a", AT_FDCWD, "/b", ...) = 0``.
RENAMED = re.compile(r'^\d+\s+rename(?:at2?)?\(.*"([^"]+)"(?:, \w+)?\)\s+=\s+0')


def test_a_release_failing_in_a_later_chunk_leaves_no_file(tmp_path):
    if shutil.which("strace") is None:
        pytest.skip("strace is missing: `make test` installs it (apt-get install strace)")
    data, out, log = tmp_path / "data" / "bad.parquet", tmp_path / "out" / "released.parquet", tmp_path / "strace.log"
    data.parent.mkdir()
    out.parent.mkdir()
    income = np.arange(1.0, 13.0)
    income[9] = np.nan  # the third chunk of 4
    pd.DataFrame({"income": income, "id": range(12)}).to_parquet(data, index=False)
    original = data.read_bytes()
    command = ["strace", "--seccomp-bpf", "-f", "-y", "-o", str(log), "-e",
               "trace=open,openat,creat,write,pwrite64,writev,rename,renameat,renameat2,unlink,unlinkat",
               sys.executable, "-m", "rumap", "release", "--data", str(data), "--method", "noise", "--columns",
               "income", "--lambda2", "1", "--chunk-size", "4", "--out", str(out)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: --chunk-size: ")
    lines = log.read_text().splitlines()
    folder = str(out.parent)
    created = {m.group(1) for line in lines if (m := CREATED.match(line)) and m.group(1).startswith(folder)}
    written = {m.group(1) for line in lines if (m := WRITTEN.match(line)) and m.group(1).startswith(folder)}
    renamed = [m.group(1) for line in lines if (m := RENAMED.match(line)) and m.group(1).startswith(folder)]
    assert created and written <= created and written, "strace saw no chunk written in the output's folder"
    assert all(path.endswith(".parquet") and "/." in path for path in created)  # hidden temporaries only
    assert renamed == []
    assert list(out.parent.iterdir()) == [] and data.read_bytes() == original


def test_a_release_stopped_by_sigterm_leaves_no_file(tmp_path):
    """An operator's ``kill`` (SIGTERM) mid-way ends the run as an error does: its temporary is removed."""
    import signal
    import time

    data, out = tmp_path / "big.parquet", tmp_path / "out" / "released.parquet"
    out.parent.mkdir()
    pd.DataFrame({"income": np.random.default_rng(1).lognormal(size=400_000)}).to_parquet(data, index=False)
    proc = subprocess.Popen([sys.executable, "-m", "rumap", "release", "--data", str(data), "--method", "noise",
                             "--columns", "income", "--lambda2", "1", "--chunk-size", "200", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(out.parent.iterdir()) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # until the run has begun writing its temporary
    assert proc.poll() is None, "the release ended before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM, proc.stderr.read()
    assert list(out.parent.iterdir()) == []
