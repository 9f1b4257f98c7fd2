"""Progress of long work on stderr: the command's stages and a running count.

On a terminal the count is one line rewritten in place; with ``--progress``
(for a log or another program) the stages are printed too, and the count once
per tenth of the work. Without either nothing is printed, so stderr keeps its
one line for an error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable


def add_progress_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--progress``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A subcommand's parser.
    """
    parser.add_argument("--progress", action="store_true",
                        help="report the stages and progress of long work on stderr (also when it is not a terminal)")


class Progress:
    """The progress printer of one command.

    Parameters
    ----------
    requested : bool
        ``--progress`` was given: stages, and the count by tenths off a terminal.
    """

    def __init__(self, requested: bool) -> None:
        self.requested = requested
        self.terminal = sys.stderr.isatty()
        self.start = time.perf_counter()

    def stage(self, message: str) -> None:
        """Print one stage line with the seconds since the command started (only with ``--progress``).

        Parameters
        ----------
        message : str
        """
        if self.requested:
            print(f"[{time.perf_counter() - self.start:7.1f} s] {message}", file=sys.stderr, flush=True)

    def counter(self, what: str) -> Callable[[int, int], None] | None:
        """A ``progress(done, total)`` callback for ``what``, or None when nothing is to be printed.

        Parameters
        ----------
        what : str
            The work counted, e.g. ``"records grouped"``.
        """
        if self.terminal:
            def on_terminal(done: int, total: int) -> None:
                end = "\n" if done >= total else ""
                print(f"\r{what}: {done}/{total} ({done / total:.0%})", end=end, file=sys.stderr, flush=True)
            return on_terminal
        if not self.requested:
            return None
        printed = [-1]

        def by_tenths(done: int, total: int) -> None:
            tenth = 10 * done // total if total else 10
            if tenth > printed[0]:
                printed[0] = tenth
                self.stage(f"{what}: {done}/{total} ({done / total:.0%})" if total else f"{what}: done")
        return by_tenths
