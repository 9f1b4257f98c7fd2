"""``python -m rumap``: the command-line interface."""

import gc
import sys

from rumap.cli import main

if __name__ == "__main__":
    status = main()
    # The process ends here: what it loaded (numba's tables among them, about 110,000 objects) is frozen out of
    # the collector's walk at exit, which took about a fifth of a second. Only this process of ours is affected.
    gc.freeze()
    sys.exit(status)
