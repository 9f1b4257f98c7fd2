"""The Release page keeps uploaded data off the disk: upload, Apply, release and download under strace.

As :mod:`test_upload_privacy`: the server runs under ``strace -f -y`` and every
row of the upload carries a marker, which passes unchanged into the protected
file (its text column is not masked). The protected file and the report are made
in memory and leave by the download (gzip-compressed, so the marker is not seen
leaving): no write to a file may carry the marker, and strace must see the upload
arrive on a socket, so a tracer that saw nothing cannot pass.
"""

from __future__ import annotations

import pytest
from browser_helpers import nav_link, start_streamlit, stop_streamlit, wait_idle
from test_upload_privacy import MARKER, marked_calls, marked_csv, strace_wrapper

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("upload_privacy")]

TIMEOUT_MS = 180_000
ROWS = 3000


def test_release_of_an_upload_is_never_written_to_a_file(tmp_path, chromium):
    log = tmp_path / "strace.log"
    wrapper = strace_wrapper(log, 65536)
    content = marked_csv(ROWS, 3)
    proc, url = start_streamlit("app.py", timeout=120, wrapper=wrapper)
    context = None
    try:
        context = chromium.browser.new_context(accept_downloads=True)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        wait_idle(page, TIMEOUT_MS)
        nav_link(page, "Data").click()
        page.get_by_text("Upload a file", exact=True).click()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "tagged.csv", "mimeType": "text/csv", "buffer": content}])
        page.get_by_text(f"Using income (n = {ROWS})").wait_for()
        nav_link(page, "Empirical map").click()
        wait_idle(page, TIMEOUT_MS)
        page.get_by_role("button", name="Run simulation").click()
        wait_idle(page, TIMEOUT_MS)
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
        if context is not None:
            context.close()
        stop_streamlit(proc)

    released = (tmp_path / "tagged_protected.csv").read_text().splitlines()
    assert released[0] == "income,tag" and len(released) == ROWS + 1 and released[1].endswith(f",{MARKER}")
    assert MARKER not in (tmp_path / "release_report.html").read_text()  # the report carries no data value
    seen_on_socket, to_files = marked_calls(log.read_text(errors="replace"))
    assert seen_on_socket, "strace did not see the upload arrive: the check would prove nothing"
    assert not to_files, "uploaded or released bytes were written to a file:\n" + "\n".join(to_files[:5])
