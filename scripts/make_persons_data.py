"""Make data/persons.csv: a synthetic sample of persons with categorical key variables.

A stand-in for a social survey file (the kind of file Mokken et al. 1992
assess: age, sex, marital status, region, household size, with a sensitive
income). 2,000 records, fixed seed. Age follows a population pyramid,
marital status depends on age, regions have unequal sizes and household size
depends on marital status, so the key's cell frequencies are as uneven as in
real data. No real person is represented.

Run: ``python scripts/make_persons_data.py`` (writes data/persons.csv).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 1992
N = 2000
REGIONS = 12


def make_persons(n: int = N, seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ages = np.arange(16, 96)
    weight = np.exp(-((ages - 42) / 28.0) ** 2) * np.where(ages > 75, np.exp(-(ages - 75) / 6.0), 1.0)
    age = rng.choice(ages, n, p=weight / weight.sum())
    sex = rng.choice(["female", "male"], n)
    p_married = np.clip((age - 18) / 20.0, 0, 0.65)
    p_widowed = np.clip((age - 60) / 60.0, 0, 0.4)
    p_divorced = np.where(age > 30, 0.1, 0.01)
    u = rng.random(n)
    marital = np.where(u < p_widowed, "widowed",
                       np.where(u < p_widowed + p_divorced, "divorced",
                                np.where(u < p_widowed + p_divorced + p_married, "married", "single")))
    region_size = rng.dirichlet(np.full(REGIONS, 1.5))
    region = rng.choice([f"R{r + 1:02d}" for r in range(REGIONS)], n, p=region_size)
    base = np.where(marital == "married", 2, 1)
    household = np.minimum(base + rng.poisson(np.where(marital == "married", 1.1, 0.4)), 8)
    income = np.round(rng.lognormal(np.log(24_000) + 0.015 * np.minimum(age - 16, 35), 0.55), -2)
    return pd.DataFrame({"age": age, "sex": sex, "marital": marital, "region": region,
                         "household": household, "income": income.astype(int)})


def main() -> None:
    path = Path(__file__).resolve().parent.parent / "data" / "persons.csv"
    make_persons().to_csv(path, index=False)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
