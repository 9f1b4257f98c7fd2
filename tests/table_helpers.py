"""The paper's Table 1 and Table 2 as test data (tests/data), and one completion of Table 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
TABLE1 = DATA / "paper_table1_suppressed.csv"
TABLE2 = DATA / "paper_table2_redesign.csv"

# one completion of Table 1 (x1 = 100, x2 = 1437, x3 = 306, x4 = 945) consistent with every published total
TABLE1_COMPLETE = np.array([
    [80, 253, 54, 0, 0],
    [641, 3694, 2062, 746, 0],
    [592, 100, 329, 1437, 1440],
    [57, 306, 946, 945, 2027],
    [78, 0, 890, 1719, 1743],
], dtype=float)

