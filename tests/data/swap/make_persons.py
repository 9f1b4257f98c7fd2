"""Writes persons.csv: 300 synthetic households (625 persons) in 2 regions x 3 districts each, for
tests/masking/test_targeted_swap.py and make_recordswap.R. Run from this folder: python make_persons.py"""

import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
H = 300
size = rng.integers(1, 4, H)
reg = rng.integers(0, 2, H)
dis = reg * 10 + rng.integers(0, 3, H)
hid = np.repeat(np.arange(H), size)
n = hid.size
pd.DataFrame({"hid": hid, "region": np.array(["R0", "R1"])[reg[hid]], "district": dis[hid].astype(str),
              "hsize": size[hid], "sex": rng.choice(["f", "m"], n), "age": rng.integers(0, 9, n),
              "inc": rng.normal(size=n).round(3)}).to_csv("persons.csv", index=False)
