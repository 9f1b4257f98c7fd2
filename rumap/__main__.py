"""``python -m rumap``: the command-line interface."""

import signal
import sys

from rumap.cli import main


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM ends the run as an error does: its outputs' temporaries are removed, nothing is renamed into place."""
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _stopped)
    sys.exit(main())
