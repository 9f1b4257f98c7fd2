"""An uploaded file never reaches a file on the server: a 2 MB upload through the real server, under strace.

The server starts as ``make run`` starts it, under ``strace -f -y``, which logs
every write of every thread with the path of the file descriptor written to
(an unlinked temporary file shows as ``/tmp/... (deleted)``). Every row of the
uploaded CSV carries a marker, so any 64 bytes of the file contain it. The test
fails if a write to anything but a socket, pipe or terminal carries the
marker; it also checks that strace saw the upload arrive on a socket, so a
tracer that saw nothing cannot pass.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import nav_link, start_streamlit, stop_streamlit

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("upload_privacy")]

MARKER = "Qz7upl"
TIMEOUT_MS = 120_000
#: A logged syscall's file descriptor with strace -y: ``write(12</tmp/tmpab12 (deleted)>, "...", 65536)``.
FD_PATH = re.compile(r"^\d+\s+(\w+)\(\d+<([^>]*)>")
NOT_A_FILE = ("socket:", "pipe:", "anon_inode:", "/dev/null", "/dev/pts", "/dev/tty", "TCP:", "UDP:", "UNIX")


ROWS = 2 * 1024 * 1024 // 15


def marked_calls(log: str) -> tuple[bool, list[str]]:
    """From a strace log: whether a read from a socket carried :data:`MARKER`, and the writes to files that did."""
    seen_on_socket = False
    to_files = []
    for line in log.splitlines():
        match = FD_PATH.match(line)
        if match is None or MARKER not in line:
            continue
        call, target = match.groups()
        if call.startswith(("read", "recv")):
            seen_on_socket |= target.startswith(("socket:", "TCP:"))
        elif not target.startswith(NOT_A_FILE):
            to_files.append(line[:200])
    return seen_on_socket, to_files


def marked_csv(rows: int, seed: int) -> bytes:
    """A CSV of ``rows`` incomes, each row tagged with :data:`MARKER`."""
    values = np.round(np.exp(np.random.default_rng(seed).normal(9.7, 0.6, size=rows)), 2)
    return ("income,tag\n" + "".join(f"{v},{MARKER}\n" for v in values)).encode()


def strace_wrapper(log: Path, string_size: int) -> list[str]:
    """The server's command prefix: strace of every thread's reads and writes, each with its descriptor's path.

    With ``--seccomp-bpf`` only the traced calls stop the server (a kernel filter lets the others through):
    the log is the same, the server runs nearly at full speed.
    """
    if shutil.which("strace") is None:
        pytest.fail("strace is missing: `make test` installs it (apt-get install strace)")
    return ["strace", "--seccomp-bpf", "-f", "-y", "-s", str(string_size), "-o", str(log), "-e",
            "trace=write,pwrite64,writev,pwritev,pwritev2,sendfile,copy_file_range,splice,read,recvfrom,recvmsg"]


def test_a_2mb_upload_is_never_written_to_a_file(tmp_path, chromium):
    log = tmp_path / "strace.log"
    wrapper = strace_wrapper(log, 96)
    content = marked_csv(ROWS, 7)
    assert len(content) >= 2 * 1024 * 1024
    proc, url = start_streamlit("app.py", timeout=120, wrapper=wrapper)
    context = None
    try:
        context = chromium.browser.new_context()
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        nav_link(page, "Data").click()
        page.get_by_text("Upload a file", exact=True).click()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": content}])
        page.get_by_text(f"Using income (n = {ROWS})").wait_for()  # the upload, not the bundled data
    finally:
        if context is not None:
            context.close()
        stop_streamlit(proc)

    seen_on_socket, to_files = marked_calls(log.read_text(errors="replace"))
    assert seen_on_socket, "strace did not see the upload arrive: the check would prove nothing"
    assert not to_files, "uploaded bytes were written to a file:\n" + "\n".join(to_files[:5])
