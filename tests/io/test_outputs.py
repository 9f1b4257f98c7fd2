"""rumap.io.outputs: an output is never an input, never replaces a file unasked, and is written whole or not at all."""

from __future__ import annotations

import os
import stat

import pytest

from rumap.errors import InputError
from rumap.io.outputs import atomic_outputs, check_outputs, same_file


def listing(folder) -> dict[str, bytes]:
    """Every entry of ``folder`` (hidden ones too) with its bytes: what a run may not change when it fails."""
    return {p.name: (p.read_bytes() if p.is_file() else b"<dir>") for p in sorted(folder.iterdir())}


def spellings(folder, data) -> dict[str, str]:
    """``data`` named five other ways: the same text, with ``./``, through ``sub/..``, a symbolic and a hard link."""
    (folder / "sub").mkdir(exist_ok=True)
    (folder / "symbolic.csv").symlink_to(data)
    os.link(data, folder / "hard.csv")
    return {"same": str(data), "dot": f"{folder}/./{data.name}", "dotdot": f"{folder}/sub/../{data.name}",
            "symlink": str(folder / "symbolic.csv"), "hardlink": str(folder / "hard.csv")}


def test_an_input_under_any_name_is_the_same_file(tmp_path, monkeypatch):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    other = tmp_path / "other.csv"
    other.write_text("a\n1\n")
    for name, path in spellings(tmp_path, data).items():
        assert same_file(path, data), name
        with pytest.raises(InputError, match=rf"^out {path} is the input data {data}: write to another file$"):
            check_outputs([("out", path)], [("data", data)], overwrite=True)
    monkeypatch.chdir(tmp_path)
    assert same_file("./data.csv", data) and same_file("data.csv", "sub/../data.csv")
    assert not same_file(other, data) and not same_file(tmp_path / "new.csv", data)


def test_an_existing_output_a_folder_and_a_missing_folder_are_refused(tmp_path):
    old = tmp_path / "old.csv"
    old.write_text("old")
    with pytest.raises(InputError, match=r"^--out .*old.csv: the file exists; pass --overwrite to replace it$"):
        check_outputs([("--out", old)])
    with pytest.raises(InputError, match=r"^out .*old.csv: the file exists; pass overwrite=True to replace it$"):
        check_outputs([("out", old)])
    check_outputs([("--out", old), ("--report", None)], overwrite=True)
    with pytest.raises(InputError, match=r"^--out .*: is a folder; name a file$"):
        check_outputs([("--out", tmp_path)], overwrite=True)
    with pytest.raises(InputError, match=r"^--out .*missing/x.csv: no folder .*missing$"):
        check_outputs([("--out", tmp_path / "missing" / "x.csv")])
    with pytest.raises(InputError, match=r"^--report .*b.csv is also --out .*b.csv: write each to its own file$"):
        check_outputs([("--out", tmp_path / "b.csv"), ("--report", f"{tmp_path}/./b.csv")])
    assert listing(tmp_path) == {"old.csv": b"old"}


def test_the_block_that_succeeds_renames_its_files_into_place(tmp_path):
    old = tmp_path / "a.csv"
    old.write_text("old")
    old.chmod(0o640)
    (tmp_path / "link.csv").symlink_to(tmp_path / "b.csv")
    with atomic_outputs(old, tmp_path / "link.csv", None) as (first, second, none):
        assert none is None
        for temporary, suffix in ((first, ".csv"), (second, ".csv")):
            assert temporary.parent == tmp_path and temporary.name.startswith(".") and temporary.suffix == suffix
            assert ".partial" in temporary.name
        first.write_text("new a")
        second.write_text("new b")
        assert old.read_text() == "old" and not (tmp_path / "b.csv").exists()  # nothing in place yet
    assert listing(tmp_path) == {"a.csv": b"new a", "b.csv": b"new b", "link.csv": b"new b"}
    assert (tmp_path / "link.csv").is_symlink()  # written through the link, which stays
    assert stat.S_IMODE(old.stat().st_mode) == 0o640  # a replaced file keeps its permissions


@pytest.mark.parametrize("failure", [InputError("refused"), KeyboardInterrupt(), OSError(28, "No space left")])
def test_a_block_that_fails_leaves_nothing_new_and_nothing_changed(tmp_path, failure):
    (tmp_path / "a.csv").write_text("old")
    before = listing(tmp_path)
    with pytest.raises(type(failure)), atomic_outputs(tmp_path / "a.csv", tmp_path / "b.csv") as (first, second):
        first.write_text("half")
        second.write_text("half")
        raise failure
    assert listing(tmp_path) == before


def test_a_rename_that_fails_puts_back_the_files_renamed_before(tmp_path, monkeypatch):
    for name in ("a.csv", "c.csv"):
        (tmp_path / name).write_text(f"old {name}")
    before = listing(tmp_path)
    real = os.replace

    def replace(source, target):
        if str(target).endswith("c.csv") and ".partial" in str(source):
            raise OSError(13, "Permission denied")
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(InputError, match=r"^--out: cannot write the file \(Permission denied\)$"), \
            atomic_outputs(*(tmp_path / n for n in ("a.csv", "b.csv", "c.csv")), flag="--out") as temporaries:
        for temporary in temporaries:
            temporary.write_text("new")
    assert listing(tmp_path) == before


def test_a_temporary_that_cannot_be_made_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match=r"^--out .*x.csv: cannot write the file"), \
            atomic_outputs(tmp_path / "missing" / "x.csv", flag="--out"):
        pass


@pytest.mark.parametrize("made_before", [0, 1])
def test_a_stop_the_instant_a_temporary_is_made_leaves_no_file(tmp_path, monkeypatch, made_before):
    """SIGTERM raises ``SystemExit`` between any two steps: here just after a temporary exists, before it is named."""
    import rumap.io.outputs as outputs

    (tmp_path / "a.csv").write_text("old")
    before = listing(tmp_path)
    real, calls = os.close, []

    def close(descriptor):
        real(descriptor)
        calls.append(descriptor)
        if len(calls) > made_before:
            raise SystemExit(143)

    monkeypatch.setattr(outputs.os, "close", close)
    with pytest.raises(SystemExit), atomic_outputs(tmp_path / "a.csv", tmp_path / "b.csv"):
        pytest.fail("the block is never entered")
    assert len(calls) == made_before + 1
    assert listing(tmp_path) == before


def test_a_taken_name_is_never_removed(tmp_path, monkeypatch):
    """A temporary name that is already another file's is passed over, and that file is left alone on failure."""
    import rumap.io.outputs as outputs

    hexes = iter(["aaaaaaaaaaaa", "bbbbbbbbbbbb"])
    monkeypatch.setattr(outputs.secrets, "token_hex", lambda n: next(hexes))
    (tmp_path / ".a.aaaaaaaaaaaa.partial.csv").write_text("someone else's")
    before = listing(tmp_path)
    with pytest.raises(KeyboardInterrupt), atomic_outputs(tmp_path / "a.csv") as (temporary,):
        assert temporary.name == ".a.bbbbbbbbbbbb.partial.csv"
        raise KeyboardInterrupt
    assert listing(tmp_path) == before
