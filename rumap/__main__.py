"""``python -m rumap``: the command-line interface."""

import sys

from rumap.cli import main

if __name__ == "__main__":
    sys.exit(main())
