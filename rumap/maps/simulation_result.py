"""The result of an empirical R-U map (:func:`rumap.maps.simulation.simulate`).

:class:`SimulationResult` holds one :class:`rumap.result.RUMap` per target and
knowledge state, the common measures' map, the config that made them and each
map's risk per replicate, from which :meth:`SimulationResult.recommendation`
resamples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rumap._validation import assumes_valid
from rumap.errors import InputError
from rumap.maps.attacks import publication_effect
from rumap.maps.recommend import BAND_Z, Recommendation, recommend
from rumap.result import RUMap, json_safe

if TYPE_CHECKING:
    import pandas as pd

    from rumap.maps.simulation_config import SimulationConfig
    from rumap.maps.subsample import SubsampleError

__all__ = ["SimulationResult", "lambda_publication"]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """An empirical R-U map: one :class:`rumap.result.RUMap` per method, target and knowledge state.

    Attributes
    ----------
    maps : list of RUMap
        With ``risk_se`` and ``utility_se`` (Monte-Carlo standard errors; 95%
        bands are ``+- 1.96 SE``) and ``config`` (the run's config plus the
        target's record, rank and value).
    common : RUMap
        The same masked replicates on the measures every method shares
        (:mod:`rumap.maps.common`), so that maps of different methods overlay.
        ``None`` on subsamples (its record linkage depends on the number of records).
    subsample : SubsampleError or None
        With ``config.subsample``: m, n, B and what the maps' standard errors cover.
    config : SimulationConfig
    n_records, n_columns : int
    elapsed : float
        Seconds (not part of equality).
    replicate_risks : tuple of ReplicateRisk or None
        Per map, its risk per replicate (None for a rational snooper's
        envelope): what :meth:`recommendation` resamples. Not part of equality
        or of :meth:`to_dict`.
    """

    maps: list
    config: SimulationConfig
    n_records: int
    n_columns: int
    elapsed: float = field(default=0.0, compare=False)
    replicate_risks: tuple = field(default=(), compare=False, repr=False)
    common: RUMap | None = None
    subsample: SubsampleError | None = None

    def __eq__(self, other: object) -> bool:
        """Equal when every number, label and the config are equal (``elapsed`` aside)."""
        if not isinstance(other, SimulationResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def to_frame(self) -> pd.DataFrame:
        """Every curve in one long table (one row per map and parameter value), with 95% bands.

        ``risk_low``/``risk_high`` and ``utility_low``/``utility_high`` are
        ``estimate -+ 1.96 SE`` (normal approximation of the Monte-Carlo error).
        """
        import pandas as pd  # here: a map runs without pandas

        frame = pd.concat([m.to_frame() for m in self.maps], ignore_index=True)
        for name in ("risk", "utility"):
            frame[f"{name}_low"] = frame[name] - BAND_Z * frame[f"{name}_se"]
            frame[f"{name}_high"] = frame[name] + BAND_Z * frame[f"{name}_se"]
        return frame

    def map_for(self, target: str, knowledge: str) -> RUMap:
        """The map of one target and knowledge state."""
        for m in self.maps:
            if m.target == target and m.knowledge == knowledge:
                return m
        raise InputError(f"no map for target {target!r} and knowledge {knowledge!r}")

    def recommendation(self, max_risk: float, decision: str = "upper") -> Recommendation:
        """The recommended value under ``max_risk`` (:func:`rumap.maps.recommend.recommend`).

        Every curve of the first map's risk measure counts (the targets' 1 /
        MSE, else the first dataset measure: a bound is in the units of one
        measure); the replicates give ``p_exceed`` and ``value_interval``,
        resampled with the run's seed.

        Parameters
        ----------
        max_risk : float
            The bound, in the units of the first map's risk.
        decision : {"upper", "mean"}, default "upper"

        Returns
        -------
        Recommendation
        """
        same = [i for i, m in enumerate(self.maps) if m.risk_label == self.maps[0].risk_label]
        replicates = [self.replicate_risks[i] for i in same] if len(self.replicate_risks) == len(self.maps) else None
        return recommend([self.maps[i] for i in same], max_risk, decision, replicates=replicates,
                         n_records=self.n_records, seed=self.config.seed)

    def lambda_publication(self) -> list[dict[str, Any]]:
        """Per target with both ``position`` and ``corrected`` maps: ``R(corrected) / R(position)``."""
        return lambda_publication(self.maps, self.config.targets)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data: ``{"maps": [...], "config": {...}, "n": ..., "common": ..., ...}``.

        Each map is :meth:`rumap.result.RUMap.to_dict` (with its config), then
        the common measures' map (``None`` without one) and, per target with
        both ``position`` and ``corrected`` maps, the effect of publishing
        lambda (:meth:`lambda_publication`). The command line's JSON is made
        from it by :func:`rumap.cli.json_output.simulation_json`.
        """
        out = {"maps": [m.to_dict() for m in self.maps], "config": self.config.to_dict(),
               "n": self.n_records, "common": None if self.common is None else self.common.to_dict(),
               "lambda_publication": self.lambda_publication()}
        if self.subsample is not None:
            out["subsample"] = self.subsample.to_dict()
        return json_safe(out)


@assumes_valid
def lambda_publication(maps: Sequence[RUMap], targets: Sequence[str]) -> list[dict[str, Any]]:
    """The effect of publishing lambda: per target with both ``position`` and ``corrected`` maps, their risks' ratio.

    Parameters
    ----------
    maps : sequence of RUMap
        A simulation's maps (:attr:`SimulationResult.maps`, or an empirical analysis's).
    targets : sequence of str
        Its targets, in order.

    Returns
    -------
    list of dict
        ``{"target", "values", "ratio", "ratio_se"}``: ``R(corrected) / R(position)`` and its standard error
        (:func:`rumap.maps.attacks.publication_effect`).
    """
    found = {(m.target, m.knowledge): m for m in reversed(list(maps))}  # the first map of each, as map_for finds
    out = []
    for target in targets:
        position, corrected = found.get((target, "position")), found.get((target, "corrected"))
        if position is None or corrected is None:
            continue
        ratio, se = publication_effect(position, corrected)
        out.append({"target": target, "values": position.values, "ratio": ratio, "ratio_se": se})
    return out
