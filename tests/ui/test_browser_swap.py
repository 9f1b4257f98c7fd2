"""Targeted record swapping in a real browser: a file of households in regions and districts uploaded on the Data
page, the swapping map drawn on the Categorical keys page's tab, a swap rate applied, released and downloaded.

The file is ``tests/data/swap/persons.csv`` (300 households, 625 persons, 2 regions of 3 districts) with its
columns named as the page's defaults expect (``hh``, ``hh_size``, ``age_band``), so that the sidebar's keys and
the tab's geography, household and similarity variables need no choosing. The downloaded file is checked against
the input and against what the pages said: the rate applied, the share of households the map said it swaps, and
the households the Release page says were swapped. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from browser_helpers import nav_link, open_app, wait_idle

from rumap.masking.targeted_swap import targeted_swap

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser_swap")]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 120_000
PERSONS = pd.read_csv(ROOT / "tests" / "data" / "swap" / "persons.csv").rename(
    columns={"hid": "hh", "hsize": "hh_size", "age": "age_band"})
GEOGRAPHY = ["region", "district"]
RATE = "0.0775"


def _idle(pg) -> None:
    wait_idle(pg, TIMEOUT_MS)


def _download(pg, name: str) -> bytes:
    with pg.expect_download() as info:
        pg.get_by_test_id("stMain").get_by_role("button", name=name).click()
    return Path(info.value.path()).read_bytes()


def test_swap_households_on_the_map_apply_a_rate_and_release_the_file(app_server, chromium):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context, pg = open_app(chromium, app_server, TIMEOUT_MS, viewport={"width": 1400, "height": 1000},
                           accept_downloads=True)
    try:
        main = pg.get_by_test_id("stMain")
        nav_link(pg, "Data").click()
        _idle(pg)
        main.get_by_text("Upload a file", exact=True).click()  # the uploader it draws is waited for
        main.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(files=[
            {"name": "persons.csv", "mimeType": "text/csv", "buffer": PERSONS.to_csv(index=False).encode()}])
        _idle(pg)
        nav_link(pg, "Categorical keys").click()
        _idle(pg)
        assert f"File: persons.csv ({len(PERSONS)} records); keys: age_band, sex, region" in main.inner_text()

        main.get_by_role("tab", name="Targeted swapping map").click()  # its toggle is waited for
        main.get_by_text("Draw the map of targeted swapping").click()  # region, then district: the default
        _idle(pg)
        caption = main.get_by_text("Targeted swapping exchanges the geography of every household")
        said = caption.inner_text()
        assert "region x district x age_band x sex" in main.inner_text()  # the map's keys: geography first
        share_on_map = float(re.search(rf"(\d+\.\d)% at {RATE}", said).group(1)) / 100
        rate = main.get_by_role("combobox", name="Release at swaprate")
        rate.scroll_into_view_if_needed()  # the list opens on a click of the box in view
        rate.click()
        pg.get_by_role("option", name=RATE, exact=True).click()
        _idle(pg)
        on_screen = rate.input_value()  # no rate is recommended: the one picked
        main.get_by_test_id("stPlotlyChart").first.scroll_into_view_if_needed()
        pg.screenshot(path=str(SHOTS / "swap_map.png"))
        main.get_by_role("button", name="Apply", exact=True).click()
        main.get_by_text("Release plan: 1 step(s)").wait_for()

        nav_link(pg, "Release").click()
        _idle(pg)
        did = main.get_by_text("Step 1 swapped the geography of").inner_text()
        pg.set_viewport_size({"width": 1400, "height": 1500})  # the whole page: its main part scrolls inside
        pg.screenshot(path=str(SHOTS / "swap_release.png"))
        step = main.get_by_text("Step 1: swap (").inner_text()
        released = pd.read_csv(io.BytesIO(_download(pg, "Protected file (csv)")))
        assert "Traceback" not in pg.content()
    finally:
        context.close()

    assert step == (f"Step 1: swap (hierarchy = {GEOGRAPHY}, household = hh, similar = [['hh_size']], "
                    f"carry_along = [], k = 3, swaprate = {on_screen}) on age_band, sex, seed 0")  # the rate picked
    # the same rows and columns, every column but the geography as it was
    assert list(released.columns) == list(PERSONS.columns) and len(released) == len(PERSONS)
    others = [c for c in PERSONS.columns if c not in GEOGRAPHY]
    pd.testing.assert_frame_equal(released[others], PERSONS[others])
    # whole households moved: one geography per household, changed for the households said, at the rate applied
    assert (released.groupby("hh")[GEOGRAPHY].nunique() == 1).all().all()
    areas = [f.drop_duplicates("hh").value_counts(GEOGRAPHY).sort_index() for f in (PERSONS, released)]
    pd.testing.assert_series_equal(*areas)  # exchanged in pairs: each area keeps its number of households
    moved = (released[GEOGRAPHY] != PERSONS[GEOGRAPHY]).any(axis=1)
    households = PERSONS["hh"].nunique()
    swapped = released.loc[moved, "hh"].nunique()
    count, of, share = re.search(r"swapped the geography of (\d+) of (\d+) households \((\d+\.\d%)", did).groups()
    assert (int(count), int(of), share) == (swapped, households, f"{swapped / households:.1%}")
    assert int(moved.sum()) == int(re.search(r"%, (\d+) records\)", did).group(1))
    assert float(RATE) <= swapped / households <= float(RATE) + 2 / households  # whole pairs
    assert abs(swapped / households - share_on_map) <= 2 / households  # what the map said this rate swaps
    # the released file is the swap the plan states, as `protect swap` draws it
    again = targeted_swap(PERSONS, GEOGRAPHY, ["age_band", "sex"], "hh", [["hh_size"]], k=3,
                          swaprate=float(on_screen), seed=0).data
    pd.testing.assert_frame_equal(released, again.reset_index(drop=True), check_dtype=False)
