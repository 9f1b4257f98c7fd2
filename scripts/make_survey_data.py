"""Make data/survey.csv: a synthetic household survey with sampling weights (no real person).

A stand-in for a labour-force or census sample file, the kind mu-Argus and
sdcMicro protect on categorical key variables: households (``hh``) of 1-7
persons sampled by region (stratum) with design weights ``weight`` (the
number of population persons a record stands for, about 1 in 200, varying
by region and with a non-response adjustment), and the keys ``age_band``
(5-year bands), ``sex``, ``region`` (12, of unequal size), ``marital``,
``occupation`` (10 groups, 1% missing) and ``hh_size``, plus a sensitive
``health`` variable. Members of a household share region and household
size, spouses have close ages and children are younger, so key combinations
are as uneven as in real files. Fixed seed.

Run: ``python scripts/make_survey_data.py`` (writes data/survey.csv).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 2004
HOUSEHOLDS = 900
REGIONS = 12
OCCUPATIONS = ["managers", "professionals", "technicians", "clerks", "services", "agriculture", "crafts",
               "operators", "elementary", "armed forces"]


def _band(age: np.ndarray) -> np.ndarray:
    low = (age // 5) * 5
    return np.array([f"{a}-{a + 4}" if a < 85 else "85+" for a in low])


def make_survey(households: int = HOUSEHOLDS, seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region_share = rng.dirichlet(np.full(REGIONS, 1.2))
    population = (region_share * 2_000_000).round()
    rows = []
    for h in range(households):
        region = rng.choice(REGIONS, p=region_share)
        size = int(min(rng.geometric(0.38), 7))
        head_age = int(rng.integers(18, 90))
        ages = [head_age]
        if size >= 2:
            ages.append(int(np.clip(head_age + rng.integers(-6, 7), 18, 95)))
        while len(ages) < size:
            ages.append(int(np.clip(head_age - rng.integers(18, 40), 0, 60)))
        for i, age in enumerate(ages):
            adult = age >= 16
            marital = ("married" if size >= 2 and i < 2 else
                       rng.choice(["single", "divorced", "widowed"], p=[0.6, 0.25, 0.15]) if adult else "single")
            occupation = (rng.choice(OCCUPATIONS, p=[.08, .16, .14, .1, .17, .04, .11, .08, .115, .005])
                          if 16 <= age < 67 and rng.random() < 0.75 else "none")
            rows.append({"hh": h + 1, "region": f"R{region + 1:02d}", "hh_size": size, "age": age,
                         "sex": rng.choice(["female", "male"]) if i != 1 else ("female" if rows[-1]["sex"] == "male"
                                                                              else "male"),
                         "marital": marital, "occupation": occupation,
                         "health": rng.choice(["good", "fair", "poor", "chronic"], p=[.6, .25, .1, .05])})
    frame = pd.DataFrame(rows)
    frame["age_band"] = _band(frame["age"].to_numpy())
    sampled = frame.groupby("region")["hh"].nunique()
    # design weight: region population / sampled persons in the region, times a household non-response factor
    persons = frame.groupby("region").size()
    base = (pd.Series(population, index=[f"R{r + 1:02d}" for r in range(REGIONS)]) / persons).reindex(frame["region"])
    factor = rng.uniform(0.85, 1.25, size=frame["hh"].max() + 1)[frame["hh"].to_numpy()]
    frame["weight"] = np.maximum(1.0, (base.to_numpy() * factor).round(1))
    missing = rng.random(len(frame)) < 0.01
    frame.loc[missing, "occupation"] = np.nan
    assert sampled.min() > 0
    return frame[["hh", "region", "hh_size", "age", "age_band", "sex", "marital", "occupation", "health", "weight"]]


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "data" / "survey.csv"
    make_survey().to_csv(out, index=False)
    print(f"wrote {out}")
