"""Timing of PNG export: three report figures (Figures 2-4) through the warm kaleido engine (target: under 5 s).

Before: each figure started its own kaleido/Chromium (plotly's ``to_image`` with no server), 10-32 s for 2-3
maps. Now one engine is started when the Report page opens (``warm_image_engine``) and reused.

Run: .venv/bin/python benchmarks/bench_images.py
"""

from __future__ import annotations

import time

from rumap.present.examples import example_specs
from rumap.present.figures import analysis_figure
from rumap.present.images import figure_images, warm_image_engine


def main() -> None:
    figs = []
    for key in ("figure-2", "figure-3", "figure-4"):
        (name, spec), = example_specs(key)
        figs.append(analysis_figure(spec.run(), title=name))
    start = time.perf_counter()
    running = warm_image_engine()
    warm = time.perf_counter() - start
    if not running:
        print("no image engine (kaleido with a Chromium) on this machine")
        return
    for fmt in ("png", "svg"):
        start = time.perf_counter()
        images = figure_images(figs, fmt)
        took = time.perf_counter() - start
        sizes = ", ".join(f"{len(b) / 1e3:.0f} kB" for b in images if b is not None)
        print(f"3 figures as {fmt.upper()}: {took:.2f} s ({sizes}); target < 5 s")
    print(f"engine start and plotly.js load (once per server, in the background when Report opens): {warm:.2f} s")


if __name__ == "__main__":
    main()
