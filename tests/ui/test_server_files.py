"""A file on the server (dashboard/server_files.py): off by default, a path inside the allowed folder only, read
out of core by the Categorical keys page with a progress bar, nothing of it written anywhere."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import run_cli
from streamlit.testing.v1 import AppTest
from ui_helpers import open_reproduce_panels, shown

from dashboard import server_files
from dashboard.server_files import ENV, BarReport, allowed_folder, resolve_inside
from rumap.errors import InputError
from rumap.masking.categorical import local_suppression
from rumap.risk.individual import individual_risk, l_diversity
from rumap.scale import individual_risk as scale_individual_risk
from rumap.scale import progress_to, scan

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "categorical.py")
KEYS = ["age_band", "sex", "region", "marital", "occupation"]  # the page's default keys


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> tuple[Path, Path]:
    """The allowed folder, holding a small Parquet file, a link to it and a link out; and a folder outside it."""
    base = tmp_path_factory.mktemp("server")
    allowed, outside = base / "allowed", base / "outside"
    (allowed / "sub").mkdir(parents=True)
    outside.mkdir()
    frame = pd.read_csv(ROOT / "data" / "survey.csv").head(60)
    frame.to_parquet(allowed / "survey.parquet")
    frame.to_csv(allowed / "survey.csv", index=False)
    frame.to_parquet(outside / "secret.parquet")
    (allowed / "sub" / "inside.parquet").symlink_to(allowed / "survey.parquet")
    (allowed / "out.parquet").symlink_to(outside / "secret.parquet")
    (allowed / "notes.txt.gz").write_bytes(b"x")
    return allowed.resolve(), outside.resolve()


@pytest.fixture()
def offered(folders, monkeypatch) -> Path:
    """The option on, for the allowed folder."""
    monkeypatch.setenv(ENV, str(folders[0]))
    return folders[0]


def page_on(path: str) -> AppTest:
    """A session of the Categorical keys page with ``path`` in the field of a file on the server."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["cat_server"] = path
    return at.run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


class Screen:
    """Stands for ``st`` in :mod:`dashboard.server_files`: what it would show."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    def caption(self, text: str) -> None:
        self.shown.append(("caption", text))

    def error(self, text: str) -> None:
        self.shown.append(("error", text))


def test_off_by_default_and_other_pages_say_where_server_files_are_read(folders, monkeypatch):
    screen = Screen()
    monkeypatch.setattr(server_files, "st", screen)
    monkeypatch.delenv(ENV, raising=False)
    assert allowed_folder() is None  # the Categorical keys page draws no field (tests/ui/test_page_categorical.py)
    assert server_files.server_file_input("cat_server") is None
    server_files.notice()
    assert screen.shown == []
    monkeypatch.setenv(ENV, str(folders[0]))
    server_files.notice()
    assert screen.shown[0][0] == "caption" and "read on the Categorical keys, Empirical map and Release pages" in screen.shown[0][1]


def test_a_setting_that_names_no_folder_is_said_and_offers_no_field(tmp_path, monkeypatch):
    screen = Screen()
    monkeypatch.setattr(server_files, "st", screen)
    monkeypatch.setenv(ENV, os.fspath(tmp_path / "none"))
    with pytest.raises(InputError, match="not a folder"):
        allowed_folder()
    assert server_files.server_file_input("cat_server") is None
    assert screen.shown[0][0] == "error" and "not a folder" in screen.shown[0][1]


def test_a_path_inside_is_read_out_of_core_with_results_equal_to_the_file_in_memory(folders, offered, tmp_path,
                                                                                   monkeypatch):
    spill = tmp_path / "tmp"
    spill.mkdir()
    for name in ("TMPDIR", "POLARS_TEMP_DIR"):
        monkeypatch.setenv(name, str(spill))
    before = sorted(p.name for p in folders[0].rglob("*"))
    at = page_on("survey.parquet")
    assert not at.exception and not at.error, (at.exception, [shown(e.value) for e in at.error])
    frame = pd.read_parquet(folders[0] / "survey.parquet")  # what the upload path reads from these bytes
    expected = individual_risk(frame, KEYS, weight="weight", household="hh", k=3)
    got = metrics(at)
    assert got["records"] == "60"
    assert got["expected re-identifications"] == f"{expected.expected_reidentifications:.2f}"
    assert got["global risk"] == f"{expected.global_risk:.4g}"
    assert got["records with f_k < 3"] == f"{expected.k_anonymity_violations:,}"
    assert got["household re-identifications"] == f"{expected.household_expected_reidentifications:.2f}"
    single = int((l_diversity(frame, KEYS, "health") == 1).sum())
    assert any(shown(c.value).startswith(f"Distinct l-diversity of health: {single:,} record(s)") for c in at.caption)
    assert [bar.proto.value for bar in at.get("progress")] == [100, 100]
    assert not at.get("plotly_chart")  # the maps need the file in memory, and the page says so
    assert any("need the file in memory" in shown(i.value) for i in at.info)
    code = [c.value for c in open_reproduce_panels(at).code]
    figures = json.loads(run_cli(*shlex.split(code[0])[3:]).stdout)  # the command the page shows, run
    assert f"{figures['expected_reidentifications']:.2f}" == got["expected re-identifications"]
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code[1], namespace)  # the Python the page shows
    assert namespace["result"].k_anonymity_violations == expected.k_anonymity_violations
    at.button(key="cat_server_suppress").click().run()
    suppressed = local_suppression(frame, KEYS, k=3, weight="weight")
    assert metrics(at)["values suppressed"] == f"{int(suppressed.suppressed.sum()):,}"
    assert metrics(at)["rounds"] == f"{suppressed.rounds:,}"
    at.session_state["cat_server"] = "sub/inside.parquet"  # a link that stays inside
    at.run()
    assert not at.error and metrics(at)["records"] == "60"
    at.session_state["cat_server"] = "survey.csv"  # the same records as text
    at.run()
    assert not at.error and {k: metrics(at)[k] for k in got} == got
    assert sorted(p.name for p in folders[0].rglob("*")) == before and not any(spill.iterdir())  # nothing written


OUTSIDE = ["{outside}/secret.parquet", "../outside/secret.parquet", "out.parquet"]  # absolute, .., a link out


@pytest.mark.parametrize("path", [*OUTSIDE, "sub/../../outside/x.csv", "sub/../survey.parquet", "notes.txt.gz",
                                  "missing.csv", "sub", " "])
def test_a_path_outside_or_unreadable_is_refused(folders, path):
    text = path.format(outside=folders[1])
    with pytest.raises(InputError) as refused:
        resolve_inside(folders[0], text)
    assert str(folders[1]) not in str(refused.value).replace(text, "")  # never says where a link leads


def test_the_page_refuses_a_path_outside_with_an_error_box_and_reads_nothing(folders, offered):
    at = AppTest.from_file(PAGE, default_timeout=120)
    for path in OUTSIDE:
        text = path.format(outside=folders[1])
        at.session_state["cat_server"] = text
        at.run()
        with pytest.raises(InputError) as refused:
            resolve_inside(folders[0], text)
        assert [shown(e.value) for e in at.error] == [shown(str(refused.value))]
        assert not at.metric and not at.get("progress") and not at.get("plotly_chart")


@pytest.mark.slow
def test_the_page_shows_the_same_figures_for_the_file_uploaded(folders, offered):
    on_server = metrics(page_on("survey.parquet"))
    at = AppTest.from_file(PAGE, default_timeout=180).run()  # the bundled example's maps first (about 6 s)
    content = (folders[0] / "survey.parquet").read_bytes()
    at.file_uploader(key="cat_upload").set_value(("survey.parquet", content, "application/octet-stream")).run()
    assert not at.exception and not at.error, [shown(e.value) for e in at.error]
    uploaded = metrics(at)
    assert on_server == {label: uploaded[label] for label in on_server}


def test_the_bar_follows_the_passes_of_rumap_scale(folders):
    class Bar:
        def __init__(self) -> None:
            self.shown: list[tuple[float, str]] = []

        def progress(self, value: float, text: str) -> None:
            self.shown.append((value, text))

    bar = Bar()
    with progress_to(BarReport(bar, 60)):
        scale_individual_risk(scan(folders[0] / "survey.parquet"), KEYS, household="hh", progress=False)
    assert bar.shown[0] == (1.0, "key frequencies \\(one streaming pass\\): 60 of 60 records")
    assert bar.shown[-1] == (1.0, "household risk: 60 of 60 records")
