"""A file on the server read by the Empirical and Release pages (dashboard/server_empirical.py, server_release.py):
the option absent without the variable, paths outside the folder refused, the map equal to the same columns in
memory, the release equal to the in-memory one and written into the chosen file only."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_cli
from streamlit.testing.v1 import AppTest
from ui_helpers import open_reproduce_panels, shown

from dashboard import background
from dashboard.kept import CURRENT
from dashboard.release_plan import PLAN
from dashboard.server_empirical import SUBSAMPLES_ONLY
from dashboard.server_files import ENV, resolve_inside, resolve_output
from dashboard.server_release import NOT_SHOWN
from rumap.errors import InputError
from rumap.io.data import numeric_columns, read_table
from rumap.maps.simulation import simulate
from rumap.release.apply import apply_plan
from rumap.release.plan import ReleasePlan, Step
from rumap.release.stream import file_digest

ROOT = Path(__file__).resolve().parents[2]
EMPIRICAL = str(ROOT / "pages" / "empirical.py")
RELEASE = str(ROOT / "pages" / "release.py")
NOISE = Step("noise", {"lambda2_frac": 0.1}, columns=("income",), seed=4)


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> tuple[Path, Path]:
    """The allowed folder: numbers as Parquet and CSV (and with a gap), a link inside, a link out, a folder link
    out; and a folder outside."""
    base = tmp_path_factory.mktemp("server_pages")
    allowed, outside = base / "allowed", base / "outside"
    (allowed / "sub").mkdir(parents=True)
    outside.mkdir()
    rng = np.random.default_rng(11)
    frame = pd.DataFrame({"income": rng.lognormal(10.0, 0.6, 400), "age": rng.integers(18, 90, 400),
                          "sex": rng.choice(["f", "m"], 400)})
    frame.to_parquet(allowed / "numbers.parquet", index=False)
    frame.to_csv(allowed / "numbers.csv", index=False)
    frame.to_parquet(outside / "secret.parquet", index=False)
    frame.assign(income=frame["income"].where(frame.index != 350)).to_parquet(allowed / "gaps.parquet", index=False)
    (allowed / "sub" / "inside.parquet").symlink_to(allowed / "numbers.parquet")
    (allowed / "out.parquet").symlink_to(outside / "secret.parquet")
    (allowed / "away").symlink_to(outside, target_is_directory=True)
    return allowed.resolve(), outside.resolve()


@pytest.fixture()
def offered(folders, monkeypatch) -> Path:
    monkeypatch.setenv(ENV, str(folders[0]))
    return folders[0]


@pytest.fixture()
def spill(tmp_path, monkeypatch) -> Path:
    """The temporary folders the libraries would use: checked empty after a page ran."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    for name in ("TMPDIR", "POLARS_TEMP_DIR"):
        monkeypatch.setenv(name, str(folder))
    return folder


@pytest.fixture()
def runs_here(monkeypatch):
    """The page's simulation runs in this process, at once (the pool's worker runs the same ``spec.run``)."""
    def submit(spec, data) -> background.PoolRun:
        future: Future = Future()
        future.set_result(spec.run(data))
        return background.PoolRun(-1, future)

    monkeypatch.setattr(background, "submit", submit)


def listing(*folders: Path) -> list[str]:
    return sorted(str(p) for folder in folders for p in folder.rglob("*"))


def errors(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.error]


def test_without_the_variable_neither_page_offers_a_file_on_the_server(monkeypatch, folders):
    monkeypatch.delenv(ENV, raising=False)
    for page, key in ((EMPIRICAL, "em_server"), (RELEASE, "release_server")):
        at = AppTest.from_file(page, default_timeout=60).run()
        assert not at.exception and key not in [t.key for t in at.text_input]
    monkeypatch.setenv(ENV, str(folders[0]))
    for page, key in ((EMPIRICAL, "em_server"), (RELEASE, "release_server")):
        assert key in [t.key for t in AppTest.from_file(page, default_timeout=60).run().text_input]


def empirical_on(path: str) -> AppTest:
    at = AppTest.from_file(EMPIRICAL, default_timeout=60)
    at.session_state["em_server"] = path
    return at.run()


@pytest.mark.parametrize("name", ["numbers.parquet", "numbers.csv"])
def test_the_empirical_map_of_a_server_file_is_on_subsamples_and_equals_the_columns_in_memory(
        name, folders, offered, spill, runs_here):
    before = listing(*folders)
    at = empirical_on(name)
    assert not at.exception and not errors(at), errors(at)
    assert "em_subsample_on" not in [c.key for c in at.checkbox]  # forced on, and said why
    assert any(shown(c.value) == SUBSAMPLES_ONLY for c in at.caption)
    at.number_input(key="em_subsample").set_value(60)
    at.number_input(key="em_subsamples").set_value(3)
    at.number_input(key="em_num").set_value(5)
    at.number_input(key="em_replicates").set_value(8).run()
    at.button(key="em_run").click().run()
    assert not at.exception and not errors(at), errors(at)
    analysis = at.session_state[CURRENT]["empirical"]
    config = analysis.spec.simulation
    assert (config.subsample, config.subsamples, analysis.spec.data.kind) == (60, 3, "server")
    data = numeric_columns(read_table(folders[0] / name), ["income"])  # the file loaded whole, as an upload
    expected = simulate(data, config)
    for got, want in zip(analysis.maps, expected.maps, strict=True):
        np.testing.assert_array_equal(got.risk, want.risk)
        np.testing.assert_array_equal(got.utility, want.utility)
        np.testing.assert_array_equal(got.risk_se, want.risk_se)
    assert any(shown(c.value).startswith("Computed on 3 subsamples of 60 records of 400") for c in at.caption)
    command, python = [c.value for c in open_reproduce_panels(at).code][:2]
    printed = json.loads(run_cli(*shlex.split(command.splitlines()[-1])[3:]).stdout)  # the command shown, run
    for curve, got in zip(printed["curves"], analysis.maps, strict=True):
        np.testing.assert_array_equal(np.array(curve["risk"], dtype=float), got.risk)
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(python, namespace)  # the Python shown
    np.testing.assert_array_equal(namespace["maps"][0].risk, analysis.maps[0].risk)
    at.button(key="empirical_apply").click().run()  # the step goes to the plan; the Release page takes the file
    assert [step.names for step in at.session_state[PLAN]] == [("income",)] and not at.warning
    assert any("releases the file on the server" in shown(c.value) for c in at.caption)
    assert listing(*folders) == before and not any(spill.iterdir())  # nothing written


OUTSIDE = ["{outside}/secret.parquet", "../outside/secret.parquet", "out.parquet", "away/secret.parquet"]


def test_both_pages_refuse_a_path_outside_the_folder_and_read_nothing(folders, offered, spill):
    before = listing(*folders)
    for page, key in ((EMPIRICAL, "em_server"), (RELEASE, "release_server")):
        at = AppTest.from_file(page, default_timeout=60)
        at.session_state[PLAN] = [NOISE]
        for path in OUTSIDE:
            text = path.format(outside=folders[1])
            at.session_state[key] = text
            at.run()
            with pytest.raises(InputError) as refused:
                resolve_inside(folders[0], text)
            assert errors(at) == [shown(str(refused.value))] and str(folders[1]) not in errors(at)[0].replace(text, "")
            assert not at.metric and not at.get("progress") and not at.get("plotly_chart") and not at.button
    assert listing(*folders) == before and not any(spill.iterdir())


def release_on(path: str, out: str, steps: list[Step], chunk: int = 150) -> AppTest:
    at = AppTest.from_file(RELEASE, default_timeout=60)
    at.session_state[PLAN] = steps
    at.session_state["release_server"] = path
    at.session_state["release_server_out"] = out
    at.session_state["release_server_chunk"] = chunk
    return at.run()


def test_a_registered_methods_step_releases_a_server_file_as_its_record_streams_it(folders, offered, spill):
    from method_helpers import TOY_BY_RECORD, round_to_base, toy_registered

    out = folders[0] / "toy.parquet"
    with toy_registered(TOY_BY_RECORD):  # record by record: no pass before the writing one
        at = release_on("numbers.parquet", out.name, [Step("toy", {"toy_base": 1000.0}, columns=("income",))])
        at.button(key="release_server_run").click().run()
    try:
        assert not at.exception and not errors(at), errors(at)
        released, original = pd.read_parquet(out), pd.read_parquet(folders[0] / "numbers.parquet")
    finally:
        out.unlink(missing_ok=True)
    np.testing.assert_array_equal(released["income"], round_to_base(original["income"].to_numpy(), 1000.0, False))
    assert released[["age", "sex"]].equals(original[["age", "sex"]]) and not any(spill.iterdir())
    assert {m.label: m.value for m in at.metric}["passes over the file"] == "1"


def test_the_release_of_a_server_file_writes_the_chosen_file_only_equal_to_the_release_in_memory(
        folders, offered, spill, tmp_path):
    before = listing(*folders)
    at = release_on("numbers.parquet", "sub/released.parquet", [NOISE])
    assert not at.exception and not errors(at), errors(at)
    assert listing(*folders) == before  # nothing before the button
    at.button(key="release_server_run").click().run()
    assert not at.exception and not errors(at), errors(at)
    out = folders[0] / "sub" / "released.parquet"
    assert listing(*folders) == sorted([*before, str(out)]) and not any(spill.iterdir())
    assert [bar.proto.value for bar in at.get("progress")] == [100]
    original = pd.read_parquet(folders[0] / "numbers.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(out), apply_plan(original, ReleasePlan((NOISE,))).data,
                                  check_exact=False, rtol=1e-12)
    assert {m.label: m.value for m in at.metric} == {"records released": "400", "columns": "3", "chunks": "3",
                                                     "passes over the file": "2"}
    assert any(shown(i.value) == shown(NOT_SHOWN) for i in at.info)
    assert not at.get("download_button") or [b.proto.label for b in at.get("download_button")] == ["Plan (JSON)"]
    assert any(file_digest(out) in shown(c.value) for c in at.caption)
    (command,) = [c.value for c in at.code]
    plan_file, again = tmp_path / "release_plan.json", tmp_path / "again.parquet"
    plan_file.write_text(ReleasePlan((NOISE,)).to_json())
    args = shlex.split(command)[3:]
    args[args.index("--plan") + 1], args[args.index("--out") + 1] = str(plan_file), str(again)
    assert run_cli(*args).returncode == 0
    assert file_digest(again) == file_digest(out)  # the command shown writes the same file
    at.run()  # drawn again: the file it wrote is not taken for another's
    assert not errors(at) and at.metric
    at.session_state["release_server_out"] = "sub/released.parquet"
    at.session_state[PLAN] = [Step("noise", {"lambda2_frac": 0.2}, columns=("income",), seed=4)]
    at.run()  # another plan: the file this session wrote may be replaced
    assert not errors(at) and not at.metric


@pytest.mark.parametrize(("out", "why"), [
    ("../outside/x.parquet", "'..'"), ("{outside}/x.parquet", "outside"), ("away/x.parquet", "outside"),
    ("numbers.parquet", "the file read"), ("sub/inside.parquet", "link"), ("out.parquet", "link"),
    ("released.csv", ".parquet"), ("numbers.csv.parquet/x.parquet", "does not exist"), ("sub", ".parquet"),
])
def test_the_released_file_must_be_a_new_parquet_file_inside_the_folder(folders, out, why):
    with pytest.raises(InputError, match=why) as refused:
        resolve_output(folders[0], out.format(outside=folders[1]), folders[0] / "numbers.parquet")
    assert str(folders[1]) not in str(refused.value).replace(out.format(outside=folders[1]), "")


def test_the_page_refuses_an_output_outside_an_existing_file_a_csv_and_a_step_it_cannot_stream(folders, offered,
                                                                                              spill):
    before = listing(*folders)
    refusals = [("numbers.parquet", "../outside/x.parquet", [NOISE], "'..'"),
                ("numbers.parquet", "numbers.parquet", [NOISE], "the file read"),
                ("numbers.parquet", "numbers.csv.parquet", [NOISE], None),  # new: accepted
                ("numbers.csv", "x.parquet", [NOISE], "convert it to Parquet"),
                ("numbers.parquet", "x.parquet", [NOISE, Step("table", keys=("income",))], "tabulate")]
    for path, out, steps, why in refusals:
        at = release_on(path, out, steps)
        assert not at.exception
        if why is None:
            assert not errors(at) and at.button(key="release_server_run")
        else:
            assert len(errors(at)) == 1 and why in errors(at)[0], errors(at)
            assert "release_server_run" not in [b.key for b in at.button]
    (folders[0] / "exists.parquet").write_bytes(b"kept")
    try:
        at = release_on("numbers.parquet", "exists.parquet", [NOISE])
        assert "the file exists" in errors(at)[0]
        at.checkbox(key="release_server_replace").check().run()
        assert not errors(at)
        at = release_on("numbers.parquet", "y.parquet", [Step("noise", {"lambda2": 1.0}, columns=("wage",))])
        at.button(key="release_server_run").click().run()  # a column the file lacks: refused in the first chunk
        assert "wage" in errors(at)[0]
        at = release_on("gaps.parquet", "z.parquet", [Step("noise", {"lambda2": 1.0}, columns=("income",))])
        at.button(key="release_server_run").click().run()  # refused in the third chunk, two written by then
        assert "record 301" in errors(at)[0], errors(at)
        assert (folders[0] / "exists.parquet").read_bytes() == b"kept"
    finally:
        (folders[0] / "exists.parquet").unlink()
    assert listing(*folders) == before and not any(spill.iterdir())  # a failed release leaves no file
