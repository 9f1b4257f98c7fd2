"""Maps drawn by pages that have no specification in :mod:`rumap.specs` (identity risk, rounding of tables).

Such a page builds a :class:`PageMapSpec` from the values it used and keeps the
map as an :class:`rumap.specs.Analysis`, like the Analytic and Empirical pages:
the map then appears on Compare, Pareto and Presentation, and in the Report
page's curves (CSV and JSON). The specification's Python script reproduces the
map; the configuration file the Report page writes and loads back holds the
specifications of :mod:`rumap.specs` only, so these maps stay out of it and
out of the HTML report built from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rumap.result import RUMap, json_safe
from rumap.specs import SPEC_KINDS, Analysis


@dataclass(frozen=True)
class PageMapSpec:
    """The settings of a map drawn by a page, and the code that reproduces it.

    Parameters
    ----------
    page : str
        The page that drew the map (e.g. ``"identity"``).
    label : str
        The map's default name.
    settings : mapping
        The values the page used (JSON-ready).
    python : str
        A Python script that computes the map from these values.
    command : str, optional
        The equivalent command line, where there is one.
    max_risk : float, optional
        The maximum tolerable risk drawn with the map.
    log_x, log_y : bool
        Logarithmic axes when drawn.
    """

    page: str
    label: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    python: str = ""
    command: str | None = None
    max_risk: float | None = None
    log_x: bool = False
    log_y: bool = False

    kind = "page"

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", json_safe(dict(self.settings)))

    def title(self) -> str:
        """The map's default name.

        Returns
        -------
        str
        """
        return self.label

    def to_dict(self) -> dict[str, Any]:
        """The specification as a JSON-ready dictionary (exported with the curves).

        Returns
        -------
        dict
        """
        return json_safe({"kind": self.kind, "page": self.page, "label": self.label, "settings": dict(self.settings),
                          "python": self.python, "command": self.command, "max_risk": self.max_risk,
                          "log_x": self.log_x, "log_y": self.log_y})


def page_analysis(maps: Sequence[RUMap], spec: PageMapSpec, common: RUMap | None = None) -> Analysis:
    """The analysis a page keeps for its map(s).

    Parameters
    ----------
    maps : sequence of RUMap
        The curves the page drew.
    spec : PageMapSpec
        How it drew them.
    common : RUMap, optional
        The same map on measures that maps of other methods share (e.g.
        :func:`rumap.maps.table_common.table_common_curve`), so that Compare overlays them.

    Returns
    -------
    Analysis
        Named after ``spec.label``, without optima.
    """
    return Analysis(spec=spec, maps=tuple(maps), common=common)


def is_reproducible(analysis: Analysis) -> bool:
    """Whether an analysis's specification loads back from a configuration file (a kind of
    :data:`rumap.specs.SPEC_KINDS`; not a page's map or a synthetic map).

    Parameters
    ----------
    analysis : Analysis

    Returns
    -------
    bool
    """
    return isinstance(analysis.spec, tuple(SPEC_KINDS.values()))
