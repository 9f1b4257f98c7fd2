"""The Release page on a file on the server: the plan applied chunk by chunk into a file the user names there.

The original, a Parquet file inside the allowed folder, is read ``chunk`` records at a time by
:func:`rumap.release.stream.release_in_chunks` (what ``python -m rumap release --chunk-size`` runs); each
released chunk is written before the next is read, so memory grows with the chunk, not with the file. The
released file is written inside the same folder, under the name the user gives
(:func:`dashboard.server_files.resolve_output`: never the original, never through a link, an existing file
only when the user allows it). It is written under a hidden temporary name beside it and renamed when
complete, so a failed or interrupted release leaves no file, and replaces nothing. Nothing else is written.

What the page shows for an upload and not here: the risk and utility after each step, each step beside its
map and the report, which compare the released records with the original ones in memory, and the download of
the protected file, which stays on the server (:data:`NOT_SHOWN`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path, PurePath

import streamlit as st

from dashboard.markdown import plain
from dashboard.progress import ThrottledProgress
from dashboard.provenance import show_source
from dashboard.server_files import ServerFile, allowed_folder, file_cached, resolve_output
from dashboard.widgets import number, remembered
from rumap.errors import InputError
from rumap.present.reproduce import to_command
from rumap.release.apply import unreached
from rumap.release.plan import ReleasePlan
from rumap.release.spec import ReleaseSpec
from rumap.release.stream import StreamedRelease, check_streamed, file_digest, release_in_chunks
from rumap.scale import scan

__all__ = ["NOT_SHOWN", "ServerRelease", "default_out", "release_file", "show"]

PAGE = "release"
#: Session-state key: the last release written in this session, with what it was made from.
RESULT = "rumap_release_server_result"
#: Records per chunk unless the user says otherwise.
DEFAULT_CHUNK = 100_000
#: What the page shows for an upload and not for a file on the server, and why.
NOT_SHOWN = ("Not shown for a file on the server: the risk and utility after each step, each step beside its map, "
             "and the report (HTML, JSON). They compare the released records with the original ones held in "
             "memory, and a file on the server, of any size, is never held whole; `release --chunk-size` leaves "
             "them out too. The released file is not offered for download either: it is written on the server, where it "
             "stays.")


@dataclass(frozen=True)
class ServerRelease:
    """A release written on the server: where, what :func:`release_in_chunks` reported, and the files' digests."""

    out: str
    written: int
    done: StreamedRelease
    chunk_size: int
    sha_in: str
    sha_out: str
    seconds: float


def default_out(file: ServerFile) -> str:
    """The released file's name offered: the original's, with ``_protected``, in its folder.

    Parameters
    ----------
    file : ServerFile

    Returns
    -------
    str
    """
    given = PurePath(file.name)
    return str(given.with_name(f"{given.stem}_protected.parquet"))


def release_file(file: ServerFile, plan: ReleasePlan, out: Path, chunk_size: int, progress=None) -> ServerRelease:
    """Release ``file`` with ``plan`` into ``out``, by way of a hidden temporary file beside it.

    ``out`` has been checked by the page (:func:`_output`), whose box says whether an existing file is replaced;
    :func:`release_in_chunks` renames the temporary into place only once every chunk is written.

    Parameters
    ----------
    file : ServerFile
        The original (Parquet).
    plan : ReleasePlan
    out : Path
        The released file (:func:`dashboard.server_files.resolve_output`).
    chunk_size : int
        Records per chunk.
    progress : callable(records), optional
        Called after each chunk written.

    Returns
    -------
    ServerRelease
    """
    start = time.perf_counter()
    done = release_in_chunks(file.path, plan, out, chunk_size, source=file.name, progress=progress, overwrite=True)
    return ServerRelease(str(out), out.stat().st_mtime_ns, done, chunk_size, file_digest(file.path),
                         file_digest(out), time.perf_counter() - start)


def _kept(key: tuple) -> ServerRelease | None:
    kept = st.session_state.get(RESULT)
    return kept[1] if kept is not None and kept[0] == key else None


def _written_here(target: Path) -> bool:
    """Whether ``target`` is the file this session's last release wrote, unchanged since."""
    kept = st.session_state.get(RESULT)
    return (kept is not None and kept[1].out == str(target) and target.is_file()
            and target.stat().st_mtime_ns == kept[1].written)


def _output(file: ServerFile, folder: Path) -> tuple[Path, str, int]:
    """The released file's path (checked), as typed, and the records per chunk."""
    text = remembered(st.text_input, f"released file: its path inside {folder} (Parquet)", "release_server_out",
                      default_out(file), help="written there once complete; nothing else is written")
    cols = st.columns(2, vertical_alignment="bottom")
    with cols[0]:
        chunk = int(number("record_chunk", "records per chunk", "release_server_chunk", DEFAULT_CHUNK,
                           help="memory grows with it; the released values do not change with it"))
    with cols[1]:
        replace = remembered(st.checkbox, "replace the file if it exists", "release_server_replace", False)
    target = resolve_output(folder, text, Path(file.path), replace=True)
    if target.exists() and not replace and not _written_here(target):
        raise InputError(f"{text.strip()}: the file exists; choose another name, or allow it to be replaced")
    return target, text.strip(), chunk


def _result(file: ServerFile, plan: ReleasePlan, done: ServerRelease, shown_out: str) -> None:
    st.subheader("Released")
    for line in unreached(plan.steps, done.done.summaries):  # the file is written, but not protected as asked
        st.warning(plain(line))
    cols = st.columns(4)
    cols[0].metric("records released", f"{done.done.rows:,}")
    cols[1].metric("columns", f"{done.done.columns:,}")
    cols[2].metric("chunks", f"{done.done.chunks:,}")
    cols[3].metric("passes over the file", f"{done.done.passes:,}")
    st.caption(f"Written to {plain(shown_out)} on the server, {done.chunk_size:,} records at a time, in "
               f"{done.seconds:.1f} s. SHA-256 of the original {done.sha_in}; of the released file {done.sha_out}.")
    st.info(NOT_SHOWN)
    st.download_button("Plan (JSON)", plan.to_json(), file_name="release_plan.json", mime="application/json",
                       key="release_server_plan", on_click="ignore")
    st.caption("The same file from the command line, with the downloaded plan:")
    spec = ReleaseSpec(plan, file.path, done.out, report=None, replicates=None, chunk_size=done.chunk_size)
    st.code(to_command(spec), language="bash", wrap_lines=True)


def show(file: ServerFile, plan: ReleasePlan) -> None:
    """The release of a file on the server: the output's name, the button, the progress bar and what was written.

    Parameters
    ----------
    file : ServerFile
        The original, inside the allowed folder.
    plan : ReleasePlan
        The session's plan.
    """
    folder = allowed_folder()
    if folder is None or Path(file.path).suffix.lower() != ".parquet":
        raise InputError(f"{file.name}: a file on the server is released chunk by chunk from Parquet; convert "
                         "it to Parquet first")
    check_streamed(plan)
    records = file_cached(file, PAGE, "records", {}, lambda: scan(file.path).count())
    show_source(f"Data: a file on the server, {plain(file.name)}, n = {records:,} (read chunk by chunk where it "
                "lies; nothing of it is copied).", None, uses_data=False)
    target, shown_out, chunk = _output(file, folder)
    key = (file.path, file.size, file.modified, plan.to_json(), str(target), chunk)
    if st.button(f"Release into {shown_out}", type="primary", key="release_server_run"):
        bar = st.progress(0.0, text=f"reading {plain(file.name)} (a noise step relative to the variances, or "
                                    "PRAM, first reads the whole file once)")
        shown = ThrottledProgress(bar)
        done = release_file(file, plan, target, chunk, progress=lambda rows: shown.update(
            rows / max(1, records), f"{rows:,} of {records:,} records written"))
        bar.progress(1.0, text=f"done: {done.done.rows:,} records written to {plain(shown_out)}")
        st.session_state[RESULT] = (key, done)
    done = _kept(key)
    if done is None:
        st.caption(f"The plan's {len(plan.steps)} step(s) are applied {chunk:,} records at a time; the released "
                   "file is written when complete.")
        return
    _result(file, plan, done, shown_out)
