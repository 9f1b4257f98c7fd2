"""The standalone HTML report, the CSV/JSON exports and a configuration that loads back exactly."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.present.figures import analysis_figure
from rumap.present.report import (
    config_json,
    curves_csv,
    curves_json,
    figure_image,
    load_config,
    report_html,
)
from rumap.specs import AnalyticSpec, DataSource

PAPER = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), max_risk=5.0, lambda2_num=51)


def _with_data():
    x = np.random.default_rng(11).normal(20100, 13300, size=177)
    spec = AnalyticSpec(n=177, sigma2=float(x.var(ddof=1)), mu=float(x.mean()), states=("sample", "maximum"),
                        lambda2_stop=1e8, lambda2_num=21, max_risk=4e-8,
                        data=DataSource.of("upload", "private.csv", ["income"], x))
    return spec.run(x).renamed("private incomes"), x


def test_html_is_standalone_and_holds_summary_figures_configuration_and_tables():
    paper = PAPER.run().renamed("Figure 2")
    html = report_html([paper], title="Committee report")
    assert html.startswith("<!DOCTYPE html>") and "<title>Committee report</title>" in html
    assert html.count("Plotly.newPlot") == 1 and 'src="https://cdn' not in html
    assert len(html) > 3_000_000  # plotly.js is inlined, so the report works offline
    assert "With λ² = 0.2, a snooper who can link the target to its masked record has risk 5" in html
    assert "python -m rumap analytic --n 200" in html and "from rumap import AnalyticSetting" in html
    assert "<table" in html and "efficiency" in html
    assert '"format": "rumap-config/1"' in html


def test_data_stay_out_of_the_report_unless_asked():
    analysis, x = _with_data()
    html = report_html([analysis])
    assert repr(float(x[0])) not in html and f"{x[0]:.6g}" not in html
    assert analysis.spec.data.digest in html
    with_data = report_html([analysis], data_values={analysis.spec.data.digest: x})
    assert repr(float(x[0])) in with_data


def test_configuration_loads_back_to_the_same_maps_from_json_and_from_html():
    paper = PAPER.run().renamed("Figure 2")
    private, x = _with_data()
    text = config_json([paper, private])
    for source in (text, text.encode(), report_html([paper, private]), report_html([paper, private]).encode()):
        loaded = load_config(source)
        assert [name for name, _ in loaded] == ["Figure 2", "private incomes"]
        assert loaded[0][1] == paper.spec and loaded[1][1] == private.spec
        again = [loaded[0][1].run(), loaded[1][1].run(x)]
        for original, rerun in zip([paper, private], again, strict=True):
            for a, b in zip(original.maps, rerun.maps, strict=True):
                np.testing.assert_array_equal(a.risk, b.risk)
                np.testing.assert_array_equal(a.utility, b.utility)
    with pytest.raises(InputError, match="load it first"):
        load_config(text)[1][1].run()
    embedded = load_config(config_json([private], {private.spec.data.digest: x}))
    np.testing.assert_array_equal(embedded[0][1].run().maps[0].risk, private.maps[0].risk)


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "not valid JSON"),
    ('{"analyses": []}', "not a rumap configuration"),
    ('{"format": "rumap-config/1", "analyses": []}', "holds no analyses"),
    ('{"format": "rumap-config/1", "analyses": [{"name": "x"}]}', "analyses\\[0\\].spec is missing"),
    ("<html><body>hello</body></html>", "holds no rumap configuration"),
    (b"\xff\xfe\x00", "not UTF-8"),
])
def test_bad_configurations(text, message):
    with pytest.raises(InputError, match=message):
        load_config(text)


def test_curves_csv_and_json():
    paper = PAPER.run().renamed("Figure 2")
    frame = pd.read_csv(io.StringIO(curves_csv([paper])))
    assert list(frame.columns[:4]) == ["analysis", "method", "knowledge", "target"]
    assert len(frame) == 2 * 51 and set(frame["knowledge"]) == {"record", "population"}
    data = json.loads(curves_json([paper]))
    assert data["format"] == "rumap-curves/1"
    assert data["analyses"][0]["maps"][0]["risk"][0] is None
    with pytest.raises(InputError):
        curves_csv([])


def test_figure_image_png_and_svg():
    # kaleido drives the machine's Chromium, which `make test` installs.
    fig = analysis_figure(PAPER.run())
    png = figure_image(fig, "png")
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"
    svg = figure_image(fig, "svg")
    assert svg is not None and b"<svg" in svg[:200]
    with pytest.raises(InputError):
        figure_image(fig, "gif")


def test_empirical_configuration_loads_back_to_the_same_simulation():
    from rumap.present.examples import example_specs
    from rumap.specs import EmpiricalSpec

    (_, spec), = example_specs("figure-6")
    spec = EmpiricalSpec(simulation={**spec.simulation.to_dict(), "replicates": 30}, data=spec.data, max_risk=spec.max_risk)
    original = spec.run().renamed("p99")
    (name, loaded), = load_config(report_html([original]))
    assert name == "p99" and loaded == spec
    for a, b in zip(original.maps, loaded.run().maps, strict=True):
        np.testing.assert_array_equal(a.risk, b.risk)
        np.testing.assert_array_equal(a.risk_se, b.risk_se)
        np.testing.assert_array_equal(a.utility, b.utility)


def test_csv_exports_neutralise_formulas():
    import csv
    import io

    from rumap.present.report import FORMULA_STARTS, csv_text
    from rumap.specs import AnalyticSpec

    hostile = '=HYPERLINK("http://x","y")'
    analysis = AnalyticSpec(n=200, sigma2=1.0, states=("record",), lambda2_num=3).run().renamed(hostile)
    rows = list(csv.reader(io.StringIO(curves_csv([analysis]))))
    assert rows[1][0] == "'" + hostile
    for start in FORMULA_STARTS:
        frame = pd.DataFrame({start + "name": [start + "cell", "plain"], "value": [-1.5, 2.0]})
        rows = list(csv.reader(io.StringIO(csv_text(frame))))
        cells = [cell for row in rows for cell in row]
        assert not any(cell.startswith(FORMULA_STARTS) for cell in cells if cell not in ("-1.5",)), cells
        assert rows[1][1] == "-1.5"  # numbers stay numbers


def test_report_tables_never_show_different_values_as_equal():
    import pandas as pd

    from rumap.present.report import _table

    html = _table(pd.DataFrame({"U": [8.12e-07, 8.14e-07, float("nan")], "R": [0.995012, 0.995018, 1.0]}))
    assert "8.12e-07" in html and "8.14e-07" in html
    assert "0.99501<" in html and "0.99502<" in html
    assert "nan" not in html and "undefined" not in html


def test_report_carries_each_maps_recommendation():
    analysis = AnalyticSpec(n=200, sigma2=1.0, states=("record",), max_risk=0.6, lambda2_num=11).run()
    text = report_html([analysis])
    assert "<h3>Recommendation</h3>" in text and "1.67" in text and "(exact)" in text
    assert "p_exceed" in text and "binding_knowledge" in text
