"""Digests see every byte; the bounded cache keeps the most recent entries."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.errors import InputError
from rumap.fingerprint import BoundedCache, array_digest, bytes_digest, cache_key, config_digest


def test_one_changed_value_in_a_large_array_changes_the_digest():
    x = np.random.default_rng(0).normal(size=1_000_000)
    y = x.copy()
    y[654_321] += 1e-9  # a sampling hasher would miss this
    assert array_digest(x) != array_digest(y)
    assert array_digest(x) == array_digest(x.copy())
    assert array_digest(x.reshape(-1, 1)) != array_digest(x.reshape(-1, 2))


def test_bytes_and_config_digests():
    assert bytes_digest(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert config_digest({"a": 1, "b": [1.0, 2.0]}) == config_digest({"b": [1.0, 2.0], "a": 1})
    assert config_digest({"a": 1}) != config_digest({"a": 2})
    digests = {config_digest({"r": v}) for v in (float("inf"), float("-inf"), float("nan"), None, 0.0)}
    assert len(digests) == 5  # each value its own digest
    assert config_digest({"r": float("nan")}) == config_digest({"r": np.float64("nan")})
    assert config_digest({"r": [1.0, float("inf")]}) != config_digest({"r": [1.0, None]})
    assert cache_key("d1", {"a": 1}) != cache_key("d2", {"a": 1})
    assert cache_key(None, {"a": 1}).startswith("no-data:")
    with pytest.raises(InputError, match="cannot be written as JSON"):
        config_digest({"f": object()})


def test_bounded_cache_evicts_least_recently_used():
    cache = BoundedCache(max_entries=2)
    calls = []

    def make(v):
        return lambda: calls.append(v) or v

    assert cache.get_or_compute("a", make(1)) == 1
    assert cache.get_or_compute("b", make(2)) == 2
    assert cache.get_or_compute("a", make(99)) == 1  # hit, and "a" is now the most recent
    assert cache.get_or_compute("c", make(3)) == 3  # evicts "b"
    assert "b" not in cache and "a" in cache and len(cache) == 2
    assert calls == [1, 2, 3] and (cache.hits, cache.misses) == (1, 3)
    cache.clear()
    assert len(cache) == 0
    for bad in (0, 1.5, "3", None):
        with pytest.raises(InputError, match="^max_entries must be an integer >= 1"):
            BoundedCache(bad)


def test_frame_digest_is_the_pages_previous_digest_and_sees_every_value():
    import pandas as pd

    from rumap.fingerprint import frame_digest

    frame = pd.DataFrame({"age": [27, 45, 33], "region": ["R10", "R12", None], 3: [1.5, float("nan"), 2.0]})
    # the digest the Categorical and Tables pages computed each on their own
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    previous = bytes_digest(hashed.tobytes() + "\x1f".join(map(str, frame.columns)).encode())
    assert frame_digest(frame) == previous
    assert frame_digest(frame.set_index(pd.Index([7, 8, 9]))) == previous  # the index is not data
    changed = frame.copy()
    changed.loc[2, "age"] = 34
    assert frame_digest(changed) != previous
    assert frame_digest(frame.rename(columns={"age": "years"})) != previous
    with pytest.raises(InputError, match="frame"):
        frame_digest("text")
