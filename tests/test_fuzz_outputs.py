"""Nothing lost: every writer of rumap, from the command line and from Python, keeps its inputs and other files.

For each command and function that writes a file: an output that is the input (spelled the same, with ``./``,
through ``sub/..``, a symbolic or a hard link) is refused before any work; an existing output is refused
unless ``--overwrite`` (``overwrite=True``) is given, and then replaced; a run that fails after it began
writing (a chunk gone bad, a transform raising, a report or a second linked table that cannot be written)
leaves the folder as it was, byte for byte. A refusal is exit 2 and one line on stderr.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli

from rumap.errors import InputError

N = 12


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """The small files every case copies: persons as CSV and Parquet, and a Parquet file whose last record is bad."""
    folder = tmp_path_factory.mktemp("originals")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], N), "region": rng.choice(["a", "b", "c"], N),
                          "age": rng.integers(20, 70, N), "income": rng.uniform(10, 100, N).round(2),
                          "w": rng.uniform(1, 5, N).round(2)})
    frame.to_csv(folder / "persons.csv", index=False)
    frame.to_parquet(folder / "persons.parquet", index=False)
    frame.loc[N - 1, "income"] = np.nan
    frame.to_parquet(folder / "bad.parquet", index=False)
    return folder


#: Each writing command: its flags with DATA and OUT in place of the paths, the data file and the output's extension.
COMMANDS = {
    "release": (["release", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--no-prediction"],
                "persons.csv", ".csv"),
    "release-report": (["release", "--method", "pram", "--keys", "sex", "--theta", "0.5", "--no-prediction",
                        "--report", "REPORT"], "persons.csv", ".csv"),
    "release-chunked": (["release", "--method", "noise", "--columns", "income", "--lambda2", "1", "--chunk-size", "4"],
                        "persons.parquet", ".parquet"),
    **{f"protect-{method}-{engine}": (["protect", method, "--keys", "sex,region", *flags, "--engine", engine,
                                       *(["--chunk-size", "4", "--quiet"] if engine == "scale" else [])],
                                      "persons.csv", ".csv")
       for method, flags in (("pram", ["--theta", "0.5"]), ("recode", ["--merge", "region:a,b=ab"]),
                             ("suppress", ["--k", "3"]))
       for engine in ("memory", "scale")},
    "microaggregate": (["microaggregate", "--k", "3", "--algorithm", "mdav", "--columns", "age,income"],
                       "persons.csv", ".csv"),
    "microaggregate-parquet": (["microaggregate", "--k", "3", "--algorithm", "mdav", "--columns", "age,income"],
                               "persons.parquet", ".parquet"),
    **{f"risk-{measure}": (["risk", measure, "--keys", "sex,region",
                            *(["--engine", "scale"] if measure != "frequencies" else []), "--chunk-size", "4",
                            "--quiet"], "persons.csv", ".csv")
       for measure in ("individual", "suda", "frequencies")},
    "table": (["table", "suppress", "--dims", "sex,region", "--rule", "threshold", "--threshold", "3"],
              "persons.csv", ".csv"),
    "linked-tables": (["table", "suppress", "--dims", "sex,region", "--dims", "region", "--rule", "threshold",
                       "--threshold", "3"], "persons-1.csv", ".csv"),
}


def argv(name: str, data, out, report=None, overwrite: bool = False) -> list[str]:
    flags, _, _ = COMMANDS[name]
    flags = [str(report) if f == "REPORT" else f for f in flags]
    data_flag = "--microdata" if flags[0] == "table" else "--data"
    return [*flags, data_flag, str(data), "--out", str(out), *(["--overwrite"] if overwrite else [])]


def copy_data(name: str, originals, folder):
    _, data_name, _ = COMMANDS[name]
    data = folder / data_name
    shutil.copyfile(originals / data_name.replace("-1", ""), data)
    return data


def listing(folder) -> dict[str, bytes]:
    """Every entry of ``folder`` (hidden ones too) with its bytes."""
    return {p.name: (p.read_bytes() if p.is_file() else b"<dir>") for p in sorted(folder.iterdir())}


def linked(name: str) -> bool:
    return name == "linked-tables"


def named_again(family: str, folder, data, strip: bool) -> str:
    """A path to ``data`` spelled the ``family`` way; ``strip``: the ``--out`` of linked tables whose first is it."""
    suffix = data.suffix
    plain = data.name.replace("-1.", ".") if strip else data.name
    first = "-1" if strip else ""
    if family == "same":
        return str(folder / plain)
    if family == "dot":
        return f"{folder}/./{plain}"
    if family == "dotdot":
        (folder / "sub").mkdir()
        return f"{folder}/sub/../{plain}"
    link = folder / f"{family}{first}{suffix}"
    if family == "symlink":
        link.symlink_to(data)
    else:
        os.link(data, link)
    return str(folder / f"{family}{suffix}")


FAMILIES = ("same", "dot", "dotdot", "symlink", "hardlink")


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_an_output_that_is_the_input_is_refused_before_any_work(tmp_path, originals, name, family):
    data = copy_data(name, originals, tmp_path)
    out = named_again(family, tmp_path, data, linked(name))
    before = listing(tmp_path)
    report = tmp_path / "report.html"
    assert_bad_input(run_cli(*argv(name, data, out, report, overwrite=True)), "is the input --")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("name", list(COMMANDS))
def test_an_existing_output_is_replaced_only_with_overwrite(tmp_path, originals, name):
    data = copy_data(name, originals, tmp_path)
    suffix = COMMANDS[name][2]
    out = tmp_path / f"old{suffix}"
    existing = tmp_path / (f"old-2{suffix}" if linked(name) else out.name)
    existing.write_bytes(b"old contents\n")
    report = tmp_path / "report.html"
    before = listing(tmp_path)
    assert_bad_input(run_cli(*argv(name, data, out, report)), "the file exists; pass --overwrite to replace it")
    assert listing(tmp_path) == before
    proc = run_cli(*argv(name, data, out, report, overwrite=True))
    assert proc.returncode == 0, proc.stderr
    after = listing(tmp_path)
    assert after[existing.name] != b"old contents\n" and after[data.name] == before[data.name]
    written = {"release-report": {out.name, report.name}, "linked-tables": {"old-1.csv", "old-2.csv"}}
    assert set(after) - set(before) == written.get(name, set()) - set(before)
    assert not [n for n in after if n.startswith(".")]


@pytest.mark.parametrize("case", ["plan-as-out", "plan-as-report", "hierarchy-as-out", "hierarchy-format-as-out"])
def test_every_input_and_output_of_a_run_counts(tmp_path, originals, case):
    data = copy_data("release", originals, tmp_path)
    plan = tmp_path / ("plan.json" if case == "plan-as-report" else "plan.csv")
    plan.write_text('{"steps": [{"method": "pram", "parameters": {"theta": 0.5}, "keys": ["sex"]}]}')
    hierarchy = tmp_path / "region.csv"
    hierarchy.write_text("parent,child\nTotal,a\nTotal,b\nTotal,c\n")
    release = ["release", "--data", data, "--plan", plan, "--no-prediction"]
    argv, culprit = {
        "plan-as-out": ([*release, "--out", f"{tmp_path}/./plan.csv"], "is the input --plan"),
        "plan-as-report": ([*release, "--out", tmp_path / "o.csv", "--report", f"{tmp_path}/sub/../plan.json"],
                           "is the input --plan"),
        "hierarchy-as-out": (["table", "suppress", "--microdata", data, "--dims", "sex,region", "--rule", "threshold",
                              "--threshold", "3", "--hierarchy", f"region={hierarchy}", "--out", hierarchy],
                             "is the input --hierarchy"),
        "hierarchy-format-as-out": (["table", "suppress", "--microdata", data, "--dims", "sex,region", "--rule",
                                     "threshold", "--threshold", "3", "--hierarchy", f"region=parent_child:{hierarchy}",
                                     "--out", f"{tmp_path}/./region.csv"], "is the input --hierarchy"),
    }[case]
    before = listing(tmp_path)
    assert_bad_input(run_cli(*argv, "--overwrite"), culprit)
    assert listing(tmp_path) == before


def test_a_chunked_release_whose_later_chunk_is_bad_leaves_nothing(tmp_path, originals):
    shutil.copyfile(originals / "bad.parquet", tmp_path / "bad.parquet")
    (tmp_path / "old.parquet").write_bytes(b"old")
    before = listing(tmp_path)
    for out in ("new.parquet", "old.parquet"):
        assert_bad_input(run_cli(*argv("release-chunked", tmp_path / "bad.parquet", tmp_path / out, overwrite=True)),
                         "rows counted from record 9")
        assert listing(tmp_path) == before


#: A function each scale protection calls once per chunk, made to fail on the second.
CHUNK_STEPS = {"pram": "rumap.scale.protect._pram_chunk", "recode": "rumap.scale.recoding._recoded_column",
               "suppress": "rumap.scale.protect._suppressed_chunk"}


@pytest.mark.parametrize("method", list(CHUNK_STEPS))
def test_a_scale_protection_failing_mid_way_leaves_nothing(tmp_path, originals, monkeypatch, method):
    import importlib

    module, function = CHUNK_STEPS[method].rsplit(".", 1)
    real = getattr(importlib.import_module(module), function)
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise InputError("the second chunk is refused")
        return real(*args, **kwargs)

    monkeypatch.setattr(f"{module}.{function}", failing)
    data = copy_data(f"protect-{method}-scale", originals, tmp_path)
    (tmp_path / "old.csv").write_bytes(b"old")
    before = listing(tmp_path)
    for out in ("new.csv", "old.csv"):
        calls.clear()
        assert_bad_input(run_cli(*argv(f"protect-{method}-scale", data, tmp_path / out, overwrite=True)),
                         "the second chunk is refused")
        assert len(calls) == 2 and listing(tmp_path) == before


def _failing_rename(monkeypatch, ending: str) -> None:
    """``os.replace`` fails for the temporary renamed onto a file whose name ends with ``ending``."""
    real = os.replace

    def replace(source, target):
        if ".partial" in str(source) and str(target).endswith(ending):
            raise OSError(28, "No space left on device")
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)


def test_a_release_whose_report_cannot_be_written_leaves_no_data_file(tmp_path, originals, monkeypatch):
    data = copy_data("release-report", originals, tmp_path)
    (tmp_path / "old.csv").write_bytes(b"old")
    before = listing(tmp_path)
    assert_bad_input(run_cli(*argv("release-report", data, tmp_path / "new.csv", tmp_path / "no" / "report.html")),
                     "--report", "no folder")
    assert listing(tmp_path) == before
    _failing_rename(monkeypatch, "report.html")
    for out in ("new.csv", "old.csv"):
        assert_bad_input(run_cli(*argv("release-report", data, tmp_path / out, tmp_path / "report.html",
                                       overwrite=True)), "cannot write the file (No space left on device)")
        assert listing(tmp_path) == before


def test_linked_tables_whose_second_file_cannot_be_written_leave_no_first(tmp_path, originals, monkeypatch):
    data = copy_data("linked-tables", originals, tmp_path)
    (tmp_path / "dir-2.csv").mkdir()
    (tmp_path / "old-1.csv").write_bytes(b"old")
    before = listing(tmp_path)
    assert_bad_input(run_cli(*argv("linked-tables", data, tmp_path / "dir.csv")), "dir-2.csv: is a folder")
    assert listing(tmp_path) == before
    _failing_rename(monkeypatch, "-2.csv")
    assert_bad_input(run_cli(*argv("linked-tables", data, tmp_path / "old.csv", overwrite=True)),
                     "cannot write the file (No space left on device)")
    assert listing(tmp_path) == before


# --- the Python functions ----------------------------------------------------------------------------------------

def _scan(path):
    from rumap.scale import scan

    return scan(path)


def _plan():
    from rumap.release.plan import ReleasePlan, Step

    return ReleasePlan((Step("noise", {"lambda2": 1.0}, columns=("income",), seed=1),))


#: Each public function that writes: a call writing ``out`` from ``data`` (CSV unless the name says Parquet).
FUNCTIONS = {
    "release_in_chunks": (".parquet", lambda data, out, **kw: __import__("rumap.release.stream", fromlist=["x"])
                          .release_in_chunks(data, _plan(), out, 4, **kw)),
    "apply_chunks": (".csv", lambda data, out, **kw: __import__("rumap.scale", fromlist=["x"])
                     .apply_chunks(_scan(data), lambda chunk, start: chunk, out, 4, progress=False, **kw)),
    "recode_file": (".csv", lambda data, out, **kw: __import__("rumap.scale.recoding", fromlist=["x"])
                    .recode_file(_scan(data), out, {"region": {"a": "ab"}}, chunk_size=4, progress=False, **kw)),
    "pram_file": (".csv", lambda data, out, **kw: __import__("rumap.scale.protect", fromlist=["x"])
                  .pram_file(_scan(data), ["sex"], 0.5, 1, out, chunk_size=4, progress=False, **kw)),
    "suppress_file": (".csv", lambda data, out, **kw: __import__("rumap.scale.protect", fromlist=["x"])
                      .suppress_file(_scan(data), ["sex", "region"], out, k=3, chunk_size=4, progress=False, **kw)),
    "suda_file": (".csv", lambda data, out, **kw: __import__("rumap.scale.suda", fromlist=["x"])
                  .suda_file(_scan(data), ["sex", "region"], out, chunk_size=4, progress=False, **kw)),
    "individual_risk": (".csv", lambda data, out, **kw: __import__("rumap.scale", fromlist=["x"])
                        .individual_risk(_scan(data), ["sex", "region"], out=out, chunk_size=4, progress=False, **kw)),
    "frequencies_file": (".csv", lambda data, out, **kw: __import__("rumap.scale", fromlist=["x"])
                         .frequencies_file(_scan(data), ["sex", "region"], out, chunk_size=4, progress=False, **kw)),
    **{f"cluster_{method}": (".csv", lambda data, out, method=method, **kw: getattr(
        __import__("rumap.scale.cluster_protect", fromlist=["x"]), f"cluster_{method}")(
        str(data), *{"pram": (["sex"], 0.5, 1, out), "recode": (out, {"region": {"a": "ab"}}),
                     "suppress": (["sex", "region"], out)}[method],
        **({"k": 3} if method == "suppress" else {}), chunk_size=4, progress=False, **kw))
       for method in ("pram", "recode", "suppress")},
    "write_table": (".csv", lambda data, out, **kw: __import__("rumap.io.data", fromlist=["x"])
                    .write_table(pd.read_csv(data), out, "out", **kw)),
    "write_bytes": (".csv", lambda data, out, **kw: __import__("rumap.io.data", fromlist=["x"])
                    .write_bytes(b"a\n1\n", out, "out", **kw)),
    "write_files": (".csv", lambda data, out, **kw: __import__("rumap.io.data", fromlist=["x"])
                    .write_files([("out", out, b"a\n1\n")], **kw)),
}


def _call(name: str, data, out, **kw):
    return FUNCTIONS[name][1](data, out, **kw)


def _data(name: str, originals, folder):
    suffix = FUNCTIONS[name][0]
    data = folder / f"persons{suffix}"
    shutil.copyfile(originals / data.name, data)
    return data


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("name", [n for n in FUNCTIONS if not n.startswith("write_")])
def test_a_function_refuses_its_input_as_out(tmp_path, originals, name, family):
    data = _data(name, originals, tmp_path)
    out = named_again(family, tmp_path, data, strip=False)
    before = listing(tmp_path)
    with pytest.raises(InputError, match=r"^out .* is the input (path|source) .*: write to another file$"):
        _call(name, data, out, overwrite=True)
    assert listing(tmp_path) == before


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_a_function_replaces_an_existing_out_only_with_overwrite(tmp_path, originals, name):
    data = _data(name, originals, tmp_path)
    out = tmp_path / f"old{FUNCTIONS[name][0]}"
    out.write_bytes(b"old")
    before = listing(tmp_path)
    with pytest.raises(InputError, match=r"^out .*: the file exists; pass overwrite=True to replace it$"):
        _call(name, data, out)
    assert listing(tmp_path) == before
    _call(name, data, out, overwrite=True)
    after = listing(tmp_path)
    assert set(after) == set(before) and after[out.name] != b"old" and after[data.name] == before[data.name]


def test_write_parquet_replacing_refuses_an_existing_file_and_writes_whole(tmp_path, originals, monkeypatch):
    from rumap.io.parquet import read_parquet_numeric, write_parquet_replacing

    data = _data("release_in_chunks", originals, tmp_path)
    values, names, table = read_parquet_numeric(data, ["income"], every_column=True)
    before = listing(tmp_path)
    with pytest.raises(InputError, match=r"^path .*persons.parquet: the file exists; pass overwrite=True"):
        write_parquet_replacing(table, names, values, data)
    _failing_rename(monkeypatch, "out.parquet")
    with pytest.raises(InputError, match="No space left"):
        write_parquet_replacing(table, names, values, tmp_path / "out.parquet")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("out", [None, 3, "FOLDER", "missing/x.parquet"])
def test_release_in_chunks_refuses_a_bad_out_with_an_input_error(tmp_path, originals, out):
    data = _data("release_in_chunks", originals, tmp_path)
    out = {"FOLDER": tmp_path, "missing/x.parquet": tmp_path / "missing" / "x.parquet"}.get(out, out)
    with pytest.raises(InputError, match=r"^out "):
        _call("release_in_chunks", data, out)
    assert listing(tmp_path) == {"persons.parquet": (originals / "persons.parquet").read_bytes()}
