"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` (what ``make run`` calls).

It sets the server up to keep uploads in memory (:mod:`dashboard.uploads`)
before the server starts, then runs ``streamlit run app.py`` in this process.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dashboard.uploads import keep_uploads_in_memory

APP = Path(__file__).resolve().parent.parent / "app.py"


def main(argv: list[str] | None = None) -> None:
    """Run the dashboard with the given ``streamlit run`` options (e.g. ``--server.port 8502``)."""
    from streamlit.web import cli

    keep_uploads_in_memory()
    args = sys.argv[1:] if argv is None else argv
    cli.main(["run", str(APP), *args], prog_name="streamlit")


if __name__ == "__main__":
    main()
