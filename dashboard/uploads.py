"""Uploads stay in memory: the server never spools an uploaded file to disk.

Streamlit's server parses an upload with Starlette's multipart parser, which
keeps each file in a :class:`tempfile.SpooledTemporaryFile` that rolls over to
an (unlinked) file in the temporary directory once it passes 1 MB. A
``max_size`` of 0 never rolls over, so the whole upload stays in the server's
memory (it is bounded by ``server.maxUploadSize``, checked while streaming).

:func:`keep_uploads_in_memory` is called by the launcher (``make run``, before
the server starts) and again by ``app.py`` (for ``streamlit run app.py``);
``tests/ui/test_upload_privacy.py`` uploads a file through the real server
under ``strace`` and fails if any of its bytes reach a file.
"""

from __future__ import annotations


def keep_uploads_in_memory() -> None:
    """Make the upload parser keep every file in memory, whatever its size.

    Examples
    --------
    >>> keep_uploads_in_memory()
    >>> from starlette.formparsers import MultiPartParser
    >>> MultiPartParser.spool_max_size
    0
    """
    from starlette.formparsers import MultiPartParser

    MultiPartParser.spool_max_size = 0  # SpooledTemporaryFile(max_size=0) never rolls over to disk
