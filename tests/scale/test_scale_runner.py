"""The one chunk runner: each method's chunk kernel gives the same records over a frame, a file's chunks or ranges."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

from rumap.engine import ChunkRun, run_chunks
from rumap.masking.pram import pram, pram_frame_chunk, pram_shares
from rumap.masking.recoding import recoding_steps
from rumap.masking.suppression_rounds import blank_chunk
from rumap.scale import key_frequencies, scan
from rumap.scale.cluster_parts import Ranges, partitions
from rumap.scale.protect import _add_changes, _first_appearance, _pram_chunk, _suppressed_chunk
from rumap.scale.recoding import _recoded_chunk, _RecodingTally

pl = pytest.importorskip("polars")

KEYS = ["age", "region", "sex", "status"]

#: How a source is cut: the whole file as one frame in memory, a file's chunks, a cluster's ranges (run here).
CHUNKINGS = {
    "one chunk": lambda source, n: source.collect(source.lazy()),
    "chunks of 700": lambda source, n: source,
    "ranges of 1024": lambda source, n: Ranges(None, source.path, source.columns, tuple(partitions(n, 1024))),
}


def _pram_kernel(source, n):
    categories = {name: _first_appearance(source, name) for name in KEYS}
    shares = {name: pram_shares(counts) for name, (_, counts) in categories.items()}
    offset = {name: j * n for j, name in enumerate(KEYS)}

    def tally():
        changed = dict.fromkeys(KEYS, 0)
        return (lambda counts: _add_changes(changed, counts)), lambda: changed

    return partial(_pram_chunk, {name: values for name, (values, _) in categories.items()}, shares, 0.6, 11,
                   offset), tally


def _recoding_kernel(source, n):
    touched = ["region", "age", "status"]
    steps = recoding_steps({"region": {"east": "ew", "west": "ew"}}, bands=[("age", 4)], top=[("status", 2)])

    def tally():
        found = _RecodingTally(touched)
        return found.add, lambda: found.result(n, None).to_dict()

    return partial(_recoded_chunk, touched, steps), tally


def _suppression_kernel(source, n):
    frequencies = key_frequencies(source, KEYS)
    blank = np.random.default_rng(3).random((frequencies.codes.shape[0], len(KEYS))) < 0.2
    return (partial(_suppressed_chunk, KEYS, frequencies.rows, np.packbits(blank, axis=1)),
            lambda: (None, lambda: None))


@pytest.mark.parametrize("files", ["parquet"], indirect=True)
@pytest.mark.parametrize("method", [_pram_kernel, _recoding_kernel, _suppression_kernel],
                         ids=["pram", "recoding", "suppression"])
def test_a_kernel_over_one_chunk_chunks_or_ranges_writes_the_same_records(files, method):
    path, _ = files
    source = scan(path)
    n = source.count()
    results = {}
    kernel, tally = method(source, n)
    for name, cut in CHUNKINGS.items():
        gather, summary = tally()
        frames = []
        run = run_chunks(cut(source, n), kernel, chunk_size=700, sink=frames.append, gather=gather)
        assert run == ChunkRun(n, {"one chunk": 1, "chunks of 700": 5, "ranges of 1024": 3}[name])
        results[name] = (pl.concat(frames), summary())
    written, told = results.pop("one chunk")
    assert not written.equals(source.collect(source.lazy()))  # the kernel changed something
    for name, (frame, summary) in results.items():
        assert frame.equals(written), name
        assert summary == told, name


def test_the_in_memory_pram_is_its_kernel_over_the_frame_as_one_chunk_or_many():
    frame = pd.DataFrame({"sex": ["f", "m", None, "f", "m", "f", "f"], "n": range(7)})
    expected = pram(frame, ["sex"], 0.3, seed=5)
    keys = [("sex", pd.Index(["f", "m"], dtype=object), np.array(["f", "m"], dtype=object),
             pram_shares([4, 2]))]
    frames, changed = [], []
    run_chunks([frame.iloc[:3], frame.iloc[3:5], frame.iloc[5:]], partial(pram_frame_chunk, keys, 0.3, 5, 7),
               sink=frames.append, gather=lambda found: changed.append(found["sex"]))
    pd.testing.assert_frame_equal(pd.concat(frames), expected.data)
    np.testing.assert_array_equal(np.concatenate(changed), expected.changed[:, 0])
    assert expected.changed.any()


def test_the_suppression_kernel_blanks_a_pandas_and_a_polars_chunk_alike():
    frame = pd.DataFrame({"sex": ["f", "m", "f"], "age": [1.0, 2.0, None]})
    blank = np.array([[True, False], [False, True], [False, False]])
    found = blank_chunk(frame, ["sex", "age"], blank)
    assert found["sex"].tolist()[1:] == ["m", "f"] and pd.isna(found["sex"][0]) and frame["sex"][0] == "f"
    assert found["age"].isna().tolist() == [False, True, True]
    assert blank_chunk(pl.from_pandas(frame), ["sex", "age"], blank).to_pandas().isna().equals(found.isna())
