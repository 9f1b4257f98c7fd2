"""An uploaded file never reaches a file on the server: a 2 MB upload through the real server, under strace.

The server starts as ``make run`` starts it, under ``strace -f -y``, which logs
every write of every thread with the path of the file descriptor written to
(an unlinked temporary file shows as ``/tmp/... (deleted)``). Every row of the
uploaded CSV carries a marker, so any 64 bytes of the file contain it. The test
fails if a write to anything but a socket, pipe or terminal carries the
marker; it also checks that strace saw the upload arrive on a socket, so a
tracer that saw nothing cannot pass.

The Release page's test (upload, Apply, release and download) runs on the same
traced server, in its own browser session; each test reads the log from where
it began, and the module's end checks the whole log of the server's life, its
stop included.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import nav_link, new_context, start_streamlit, stop_streamlit, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("upload_privacy")]

MARKER = "Qz7upl"
TIMEOUT_MS = 120_000
RELEASE_TIMEOUT_MS = 180_000
#: A logged syscall's file descriptor with strace -y: ``write(12</tmp/tmpab12 (deleted)>, "...", 65536)``.
FD_PATH = re.compile(r"^\d+\s+(\w+)\(\d+<([^>]*)>")
NOT_A_FILE = ("socket:", "pipe:", "anon_inode:", "/dev/null", "/dev/pts", "/dev/tty", "TCP:", "UDP:", "UNIX")


ROWS = 2 * 1024 * 1024 // 15
RELEASE_ROWS = 3000
#: Bytes of each call's data in the log: a released file or report written out would show the marker
#: after a header longer than a row, so the log keeps whole writes (strace -s).
STRING_SIZE = 65536


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
    """The server's command prefix: strace of every thread's writes and socket receives, each with its descriptor's path.

    With ``--seccomp-bpf`` only the traced calls stop the server (a kernel filter lets the others through):
    the log is the same, the server runs nearly at full speed. ``read`` is left out: the server receives
    its connections' bytes with ``recvfrom`` and ``recvmsg``, and ``read`` is mostly the start's reading of
    thousands of modules, each logged up to ``string_size`` bytes (with 64 kB, most of the log and of the
    test's time). A server that received the upload by ``read`` would fail the check that the upload was
    seen arriving, never pass one it should fail: every write is traced.
    """
    if shutil.which("strace") is None:
        pytest.fail("strace is missing: `make test` installs it (apt-get install strace)")
    return ["strace", "--seccomp-bpf", "-f", "-y", "-s", str(string_size), "-o", str(log), "-e",
            "trace=write,pwrite64,writev,pwritev,pwritev2,sendfile,copy_file_range,splice,recvfrom,recvmsg"]


@dataclass
class TracedServer:
    """A server of ``app.py`` under strace (:func:`strace_wrapper`): its URL and log."""

    url: str
    log: Path

    def marked_calls_from(self, offset: int) -> tuple[bool, list[str]]:
        """:func:`marked_calls` of the log written from byte ``offset`` on (strace writes it line by line)."""
        with self.log.open("rb") as file:
            file.seek(offset)
            return marked_calls(file.read().decode(errors="replace"))


@pytest.fixture(scope="module")
def traced_server(tmp_path_factory):
    """The module's server under strace, for its two tests; at its stop, its whole log is checked once more."""
    log = tmp_path_factory.mktemp("strace") / "strace.log"
    proc, url = start_streamlit("app.py", timeout=120, wrapper=strace_wrapper(log, STRING_SIZE))
    try:
        yield TracedServer(url, log)
    finally:
        stop_streamlit(proc)
    seen_on_socket, to_files = marked_calls(log.read_text(errors="replace"))
    assert seen_on_socket, "strace did not see the uploads arrive: the check would prove nothing"
    assert not to_files, "uploaded or released bytes were written to a file:\n" + "\n".join(to_files[:5])


def test_a_2mb_upload_is_never_written_to_a_file(traced_server, chromium):
    start = traced_server.log.stat().st_size
    content = marked_csv(ROWS, 7)
    assert len(content) >= 2 * 1024 * 1024
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(traced_server.url)
        nav_link(page, "Data").click()
        page.get_by_text("Upload a file", exact=True).click()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": content}])
        page.get_by_text(f"Using income (n = {ROWS})").wait_for()  # the upload, not the bundled data
    finally:
        context.close()

    seen_on_socket, to_files = traced_server.marked_calls_from(start)
    assert seen_on_socket, "strace did not see the upload arrive: the check would prove nothing"
    assert not to_files, "uploaded bytes were written to a file:\n" + "\n".join(to_files[:5])


def test_release_of_an_upload_is_never_written_to_a_file(traced_server, chromium, tmp_path):
    """Upload, Apply, release and download: the protected file and the report are made in memory.

    The marker passes unchanged into the protected file (its text column is not
    masked); both leave by the download (gzip-compressed, so the marker is not
    seen leaving): no write to a file may carry the marker.
    """
    start = traced_server.log.stat().st_size
    content = marked_csv(RELEASE_ROWS, 3)
    context = new_context(chromium, accept_downloads=True)
    try:
        page = context.new_page()
        page.set_default_timeout(RELEASE_TIMEOUT_MS)
        page.goto(traced_server.url)
        wait_idle(page, RELEASE_TIMEOUT_MS)
        nav_link(page, "Data").click()
        page.get_by_text("Upload a file", exact=True).click()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "tagged.csv", "mimeType": "text/csv", "buffer": content}])
        page.get_by_text(f"Using income (n = {RELEASE_ROWS})").wait_for()
        nav_link(page, "Empirical map").click()
        wait_idle(page, RELEASE_TIMEOUT_MS)
        page.get_by_role("button", name="Run simulation").click()
        wait_idle(page, RELEASE_TIMEOUT_MS)
        main = page.get_by_test_id("stMain")
        main.get_by_role("button", name="Apply", exact=True).click()
        main.get_by_text("Release plan: 1 step(s)").wait_for()
        nav_link(page, "Release").click()
        main.get_by_text("Risk and utility after each step").wait_for()
        with page.expect_download() as info:
            main.get_by_role("button", name="Protected file (csv)").click()
        info.value.save_as(tmp_path / "tagged_protected.csv")
        with page.expect_download() as info:
            main.get_by_role("button", name="Report (HTML)").click()
        info.value.save_as(tmp_path / "release_report.html")
    finally:
        context.close()

    released = (tmp_path / "tagged_protected.csv").read_text().splitlines()
    assert released[0] == "income,tag" and len(released) == RELEASE_ROWS + 1 and released[1].endswith(f",{MARKER}")
    assert MARKER not in (tmp_path / "release_report.html").read_text()  # the report carries no data value
    seen_on_socket, to_files = traced_server.marked_calls_from(start)
    assert seen_on_socket, "strace did not see the upload arrive: the check would prove nothing"
    assert not to_files, "uploaded or released bytes were written to a file:\n" + "\n".join(to_files[:5])
