"""Census-like microdata files for the out-of-core benchmarks: households, weights, skewed and dependent keys.

Each household has a region, a size (1 to 8, about 2.4 on average) and a
sampling weight (every member of a household shares it, as in a household
sample). Each person has an age (a skewed pyramid), a sex, a marital status
and an education level that depend on the age, an occupation that depends on
age and education (Zipf-skewed over 60 codes), a country of birth (95% the
country itself, the rest Zipf-skewed over 120 codes), a citizenship that
follows the country of birth, and, for 12 keys, a tenure, a number of cars
and an industry. About 1% of the marital status, education and occupation
values are missing (at random), the rest complete. The same seed gives the
same file, written chunk by chunk (``--chunk`` records), so memory does not
grow with ``--n``.

Run::

    python benchmarks/census_data.py --n 10000000 --keys 8 --seed 1 --out census_1e7.parquet

The key columns are small integers (with missing values where stated);
``KEYS[:k]`` are the first k keys. The extra columns are ``household``,
``weight`` and ``income`` (a sensitive variable for l-diversity, in 20 bands).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

#: The key variables, in the order ``--keys K`` takes them.
KEYS = ("region", "age", "sex", "marital", "education", "occupation", "birthplace", "household_size",
        "citizenship", "tenure", "cars", "industry")
#: Keys with about 1% of their values missing.
MISSING_KEYS = ("marital", "education", "occupation")
MISSING_SHARE = 0.01


def _zipf(rng: np.random.Generator, size: int, categories: int, exponent: float) -> np.ndarray:
    p = 1.0 / np.arange(1, categories + 1) ** exponent
    return rng.choice(categories, size=size, p=p / p.sum())


def _households(rng: np.random.Generator, persons: int) -> np.ndarray:
    """Household sizes (1-8) adding up to ``persons``."""
    sizes = 1 + rng.binomial(7, 0.2, size=persons // 2 + 8)
    cut = int(np.searchsorted(np.cumsum(sizes), persons))
    sizes = sizes[: cut + 1]
    sizes[-1] -= int(sizes.sum()) - persons
    return sizes[sizes > 0]


def chunk(rng: np.random.Generator, persons: int, first_household: int, keys: int,
          missing: float = MISSING_SHARE) -> dict[str, np.ndarray]:
    """``persons`` records in whole households numbered from ``first_household``: the columns of the file.

    Parameters
    ----------
    rng : numpy.random.Generator
    persons : int
    first_household : int
        The number of the chunk's first household.
    keys : int
        How many of :data:`KEYS` to write (8 to 12).
    missing : float
        Share of missing values in each of :data:`MISSING_KEYS`.

    Returns
    -------
    dict of str to ndarray
        Float arrays with NaN for the keys that have missing values.

    Examples
    --------
    >>> columns = chunk(np.random.default_rng(0), 1000, 0, 8)
    >>> sorted(columns)[:3], len(columns["age"])
    (['age', 'birthplace', 'education'], 1000)
    """
    sizes = _households(rng, persons)
    households = sizes.size
    member = np.repeat(np.arange(households), sizes)
    region = _zipf(rng, households, 40, 0.8)[member]
    weight = np.round(rng.gamma(4.0, 10.0, size=households) + 1.0, 2)[member]
    age = np.minimum(rng.gamma(2.2, 17.0, size=persons).astype(np.int64), 99)
    sex = rng.integers(0, 2, size=persons)
    adult = age >= 18
    marital = np.where(adult, np.minimum(rng.poisson(np.clip((age - 18) / 20.0, 0.1, 3.0)), 4), 0)
    education = np.where(age < 6, 0, np.minimum(rng.binomial(7, np.clip(age / 40.0, 0.05, 0.6)), 7))
    occupation = np.where(adult & (age < 67), 1 + (education * 7 + _zipf(rng, persons, 60, 1.1)) % 59, 0)
    native = rng.random(persons) < 0.95
    birthplace = np.where(native, 0, 1 + _zipf(rng, persons, 120, 1.2))
    citizenship = np.where(native | (rng.random(persons) < 0.3), 0, np.minimum(birthplace, 30))
    columns = {"household": (first_household + member).astype(np.int64), "weight": weight, "region": region,
               "age": age, "sex": sex, "marital": marital, "education": education, "occupation": occupation,
               "birthplace": birthplace, "household_size": np.minimum(sizes, 8)[member], "citizenship": citizenship,
               "tenure": rng.choice(4, size=households, p=[0.55, 0.3, 0.1, 0.05])[member],
               "cars": np.minimum(rng.poisson(1.1, size=households), 4)[member],
               "industry": np.where(occupation > 0, (occupation * 3 + _zipf(rng, persons, 21, 0.9)) % 21, 0),
               "income": np.minimum((rng.lognormal(9.8 + 0.1 * education, 0.7) / 2500).astype(np.int64), 19)}
    for name in MISSING_KEYS:
        values = columns[name].astype(float)
        values[rng.random(persons) < missing] = np.nan
        columns[name] = values
    kept = set(KEYS[:keys]) | {"household", "weight", "income"}
    return {name: values for name, values in columns.items() if name in kept}


def write(path: str | Path, n: int, keys: int = 8, seed: int = 1, chunk_size: int = 1_000_000,
          missing: float = MISSING_SHARE) -> None:
    """Write a census-like file of ``n`` records (Parquet or CSV by the extension), ``chunk_size`` at a time.

    Parameters
    ----------
    path : str or Path
    n : int
    keys : int
        8 to 12 key variables.
    seed : int
    chunk_size : int
    missing : float
        Share of missing values in each of :data:`MISSING_KEYS`.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write(f"{folder}/c.parquet", 5000, keys=8, seed=3, chunk_size=2000)
    ...     frame = pd.read_parquet(f"{folder}/c.parquet")
    >>> frame.shape, int(frame["household"].is_monotonic_increasing)
    ((5000, 11), 1)
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    path = Path(path)
    writer = None
    first = 0
    with path.open("wb") as handle:
        for start in range(0, n, chunk_size):
            columns = chunk(rng, min(chunk_size, n - start), first, keys, missing)
            first = int(columns["household"][-1]) + 1
            table = pa.table({name: (pa.array(values, from_pandas=True).cast(pa.int16())
                                     if name in KEYS else pa.array(values))
                              for name, values in columns.items()})
            if path.suffix == ".csv":
                import pyarrow.csv as pacsv

                pacsv.write_csv(table, handle, pacsv.WriteOptions(include_header=start == 0))
                continue
            if writer is None:
                import pyarrow.parquet as pq

                writer = pq.ParquetWriter(handle, table.schema)
            writer.write_table(table)
        if writer is not None:
            writer.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, required=True, help="records")
    parser.add_argument("--keys", type=int, default=8, choices=range(8, 13), help="key variables (8-12)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=1_000_000, help="records generated at a time")
    parser.add_argument("--missing", type=float, default=MISSING_SHARE, help="share of missing values in "
                                                                             f"{', '.join(MISSING_KEYS)}")
    parser.add_argument("--out", required=True, help=".parquet or .csv")
    args = parser.parse_args(argv)
    write(args.out, args.n, args.keys, args.seed, args.chunk, args.missing)
    print(f"{args.out}: {args.n:,} records, keys {', '.join(KEYS[:args.keys])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
