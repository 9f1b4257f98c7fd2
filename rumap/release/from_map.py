"""The release step at a point of an empirical R-U map: its method, the value chosen, its columns and its seed.

An empirical map (:class:`rumap.specs.EmpiricalSpec`) masks its data's columns
with a method of :data:`rumap.maps.methods.METHODS` over a grid of one
parameter; the step of a release plan that applies that method at one of the
grid's values, with the map's options and seed, is what an agency releases
after reading the map. The step's method and its map are one record of
:data:`rumap.release.registry.STEP_METHODS` (``map_method``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rumap._validation import InstanceOf, validate_params
from rumap.errors import InputError
from rumap.maps.methods import METHODS
from rumap.maps.recommend import Recommendation
from rumap.maps.tables import TABLE_SWEEPS
from rumap.release.apply import STEP_METHODS
from rumap.release.plan import Step
from rumap.release.synthesis import SYNTHESIS
from rumap.result import RUMap
from rumap.specs import Analysis, DataSource, EmpiricalSpec
from rumap.specs.synthetic import SyntheticSpec

__all__ = ["step_from_spec", "step_from_synthetic", "step_from_key_map", "table_steps", "TABLE_SWEEPS", "map_origin",
           "with_origin", "recode_step", "decimals_of", "with_precision"]

def _key_map_steps() -> dict[str, str]:
    """The maps of categorical keys that are release steps, by the ``method`` they carry: the step method whose
    record names the map (``key_map``)."""
    return {record.key_map.label: name for name, record in STEP_METHODS.items() if record.key_map is not None}


def __getattr__(name: str) -> Any:
    """``KEY_MAP_STEPS``: the maps of categorical keys (by their ``method``) that are release steps, each with
    its step method and the parameter the map's grid runs over, from the steps' records."""
    if name == "KEY_MAP_STEPS":
        return {label: (method, STEP_METHODS[method].key_map.parameter) for label, method in _key_map_steps().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _example_spec() -> EmpiricalSpec:
    import numpy as np

    x = np.arange(1.0, 11.0)[:, None]
    return EmpiricalSpec(simulation={"method": "microaggregation", "values": [2, 3, 5], "replicates": 2},
                         data=DataSource.of("inline", "example", ["income"], x))


@validate_params({"spec": InstanceOf(EmpiricalSpec, "an EmpiricalSpec"),
                  "value": InstanceOf((int, float), "a number")},
                 example=lambda: {"spec": _example_spec(), "value": 3.0})
def step_from_spec(spec: EmpiricalSpec, value: float) -> Step:
    """The release step that applies an empirical map's masking at one value of its grid.

    Parameters
    ----------
    spec : EmpiricalSpec
        The map: its method, options, columns and seed.
    value : float
        The parameter's value (one of the grid's, or any valid value of the
        method's parameter): λ² or its fraction of each column's variance for
        noise, k for microaggregation, the swap window in % for rank swapping.

    Returns
    -------
    Step
        Its method, parameters (the map's options filled in), the map's columns
        and the map's seed.

    Raises
    ------
    InputError
        The map's method has no release step, or the value does not suit it
        (a k that is not a whole number).

    Examples
    --------
    >>> step = step_from_spec(_example_spec(), 3.0)
    >>> step.to_dict()
    {'method': 'microaggregation', 'parameters': {'k': 3, 'algorithm': 'mdav', 'standardize': False, \
'criterion': 'pc1'}, 'columns': ['income'], 'seed': None}
    """
    config = spec.simulation
    methods = [name for name, record in STEP_METHODS.items() if record.map_method == config.method]
    if not methods:
        raise InputError(f"the map's method {config.method!r} has no release step")
    if not math.isfinite(value):
        raise InputError(f"value must be a finite number, got {value!r}")
    if METHODS[config.method].integer_grid and value != int(value):
        raise InputError(f"value must be a whole k for {config.method}, got {value!r}")
    columns = tuple(spec.data.columns)
    parameters = METHODS[config.method].step_parameters(dict(config.method_options), float(value), columns)
    record = STEP_METHODS[methods[0]]
    return Step(methods[0], parameters, columns=columns, seed=int(config.seed) if record.random else None)


def _example_key_map() -> RUMap:
    return RUMap(parameter="theta", values=[0.5, 0.9], risk=[0.1, 0.4], utility=[0.5, 0.9], method="pram")


@validate_params({"curve": InstanceOf(RUMap, "an RUMap"), "keys": InstanceOf((list, tuple), "a list of key names"),
                  "value": InstanceOf((int, float), "a number"), "variable": [None, InstanceOf(str, "a key name")],
                  "seed": "seed"},
                 example=lambda: {"curve": _example_key_map(), "keys": ["sex", "region"], "value": 0.9})
def step_from_key_map(curve: RUMap, keys: list[str], value: float, variable: str | None = None,
                      seed: int = 0) -> Step:
    """The release step at one value of a map of categorical keys (``KEY_MAP_STEPS``).

    The maps of :mod:`rumap.maps.categorical` apply the heuristic local
    suppression of :func:`rumap.masking.categorical.local_suppression` at each k,
    band one numeric key from origin 0 at each width, and draw PRAM at each
    theta from ``seed``; the step does the same at ``value``.

    Parameters
    ----------
    curve : RUMap
        The map (its ``method`` names the masking).
    keys : list of str
        The key variables the map was drawn for.
    value : float
        The parameter's value: k, the band width or theta.
    variable : str, optional
        The banded key (global recoding's map only).
    seed : int, default 0
        The seed of PRAM's draws (its map's seed).

    Returns
    -------
    Step

    Raises
    ------
    InputError
        A map whose masking is not a step, a banding map without its variable, or a bad value.

    Examples
    --------
    >>> step_from_key_map(_example_key_map(), ["sex", "region"], 0.9, seed=3).to_dict()
    {'method': 'pram', 'parameters': {'theta': 0.9}, 'keys': ['sex', 'region'], 'seed': 3}
    """
    steps = _key_map_steps()
    if curve.method not in steps:
        raise InputError(f"the map's method {curve.method!r} has no release step; maps of keys that have one: "
                         f"{', '.join(steps)}")
    method = steps[curve.method]
    record = STEP_METHODS[method].key_map
    if not math.isfinite(value):
        raise InputError(f"value must be a finite number, got {value!r}")
    if record.integer and value != int(value):
        raise InputError(f"value must be a whole {record.parameter} for {curve.method}, got {value!r}")
    # a map drawn with the step's other parameters carries them (``config["step_parameters"]``)
    parameters: dict[str, Any] = {**dict(curve.config.get("step_parameters") or {}),
                                  record.parameter: int(value) if record.integer else float(value)}
    if record.variable:
        if variable is None:
            raise InputError("the banding map needs its variable (the numeric key banded)")
        parameters["variable"] = variable
    return Step(method, parameters, keys=list(keys), seed=seed if STEP_METHODS[method].random else None)


@validate_params({"rows": InstanceOf(str, "a column name"), "columns": [None, InstanceOf(str, "a column name")],
                  "rule": InstanceOf(str, "a rule's name"), "rule_parameters": InstanceOf(dict, "a dict"),
                  "sweep": InstanceOf(str, "rule, protection or base"), "value": InstanceOf((int, float), "a number"),
                  "response": [None, InstanceOf(str, "a column name")],
                  "shadow": [None, InstanceOf(str, "a column name")], "protection": "protection",
                  "cost": InstanceOf(str, "a cost's name")},
                 example=lambda: {"rows": "region", "columns": "size", "rule": "p-percent",
                                  "rule_parameters": {"p": 10.0}, "sweep": "protection", "value": 20.0})
def table_steps(rows: str, columns: str | None, rule: str, rule_parameters: dict, sweep: str, value: float,
                response: str | None = None, shadow: str | None = None, protection: float = 10.0,
                cost: str = "value") -> tuple[Step, ...]:
    """The steps that release a table built from microdata at one value of its map.

    The table (:data:`TABLE_SWEEPS`): its map runs over the rule's first
    parameter (``"rule"``), the protection level of secondary suppression
    (``"protection"``) or the base of controlled rounding (``"base"``); the
    steps build the table, mark the primaries by the rule and protect them at
    ``value`` of the swept quantity, the others as given.

    Parameters
    ----------
    rows, columns : str
        The spanning variables (``columns`` None: a one-way table).
    rule : str
        A key of :data:`rumap.tables.rules.RULES`.
    rule_parameters : dict
        The rule's parameters.
    sweep : {"rule", "protection", "base"}
        What the map runs over.
    value : float
        The swept quantity's value.
    response, shadow : str, optional
        The response summed (None: counts) and the shadow variable.
    protection : float, default 10
        The protection level (percent) when it is not swept.
    cost : str, default "value"
        The cost of a suppression.

    Returns
    -------
    tuple of Step
        ``table``, ``primary``, then ``secondary_suppression`` or ``controlled_rounding``.

    Examples
    --------
    >>> [s.method for s in table_steps("region", "size", "p-percent", {"p": 10.0}, "base", 100.0)]
    ['table', 'primary', 'controlled_rounding']
    """
    from rumap.tables.rules import RULES

    if sweep not in TABLE_SWEEPS:
        raise InputError(f"sweep must be one of {', '.join(TABLE_SWEEPS)}, got {sweep!r}")
    if rule not in RULES:
        raise InputError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    parameters = dict(rule_parameters)
    if sweep == "rule":
        parameters[next(iter(RULES[rule].parameters))] = float(value)
    keys = [rows] if columns is None else [rows, columns]
    steps = [Step("table", {"response": response, "shadow": shadow}, keys=keys),
             Step("primary", {"rule": rule, **parameters})]
    if sweep == "base":
        steps.append(Step("controlled_rounding", {"base": float(value)}))
    else:
        steps.append(Step("secondary_suppression", {"protection": float(value) if sweep == "protection"
                                                    else float(protection), "cost": cost}))
    return tuple(steps)


def _example_analysis() -> Analysis:
    curve = RUMap(parameter="k", values=[2, 3], risk=[0.4, 0.1], utility=[0.9, 0.7], method="microaggregation",
                  target="max", knowledge="index")
    return Analysis(spec=_example_spec(), maps=(curve,))


@validate_params({"spec": InstanceOf(SyntheticSpec, "a SyntheticSpec"),
                  "value": InstanceOf((int, float), "a number")},
                 example=lambda: {"spec": SyntheticSpec("cart", (5,), DataSource.of("upload", "d.csv", ["a"],
                                                                                    np.zeros(4))), "value": 5})
def step_from_synthetic(spec: SyntheticSpec, value: float) -> Step:
    """The synthesis step at one value of a synthetic map's parameter: its generator, columns and seed.

    Parameters
    ----------
    spec : SyntheticSpec
        The map (:mod:`rumap.specs.synthetic`): its generator, columns and seed.
    value : float
        The generator's parameter (a whole number for an integer one).

    Returns
    -------
    Step

    Examples
    --------
    >>> spec = SyntheticSpec("cart", (5, 20), DataSource.of("upload", "d.csv", ["a", "b"], np.zeros((4, 2))))
    >>> step_from_synthetic(spec, 20.0).to_dict()
    {'method': 'synthesize', 'parameters': {'generator': 'cart', 'minbucket': 20, 'shrinkage': None, \
'epsilon': None}, 'columns': ['a', 'b'], 'seed': 0}
    """
    from rumap.synthesis import GENERATORS

    record = GENERATORS[spec.method]
    if record.integer:
        if float(value) != int(value):
            raise InputError(f"value must be a whole {record.parameter}, got {value!r}")
        value = int(value)
    return Step(SYNTHESIS, {"generator": spec.method, record.parameter: value}, columns=tuple(spec.data.columns),
                seed=spec.seed)


@validate_params({"analysis": InstanceOf(Analysis), "value": InstanceOf((int, float), "a number"),
                  "recommended": [None, InstanceOf(Recommendation)], "data": [None, InstanceOf(str, "a digest")],
                  "name": [None, InstanceOf(str, "the map's name")]},
                 example=lambda: {"analysis": _example_analysis(), "value": 3.0})
def map_origin(analysis: Analysis, value: float, recommended: Recommendation | None = None, data: str | None = None,
               name: str | None = None) -> dict[str, Any]:
    """What a step applied from a map records of it (:data:`rumap.release.plan.ORIGIN_KEYS`).

    Parameters
    ----------
    analysis : Analysis
        The map on screen.
    value : float
        The value released.
    recommended : Recommendation, optional
        The map's recommendation (:meth:`rumap.specs.Analysis.recommendation`); its value, R_max, rule and
        binding target are recorded, and the value is ``picked`` unless it is the recommended one.
    data : str, optional
        The fingerprint of the table the map was drawn on (:func:`rumap.fingerprint.frame_digest`).
    name : str, optional
        The map's name (default: the analysis's).

    Returns
    -------
    dict
        ``map``, ``map_digest``, ``data``, ``choice``, ``value``, ``recommended``, ``max_risk``, ``decision``,
        ``binding``, ``targets``, ``knowledge``, ``target_column``, ``risk_measures`` (those known).

    Examples
    --------
    >>> origin = map_origin(_example_analysis(), 3.0)
    >>> origin["choice"], origin["value"], origin["targets"], origin["knowledge"], origin["target_column"]
    ('picked', 3.0, ['max'], ['index', 'position'], 'income')
    """
    from rumap.fingerprint import config_digest

    spec = analysis.spec
    feasible = recommended is not None and recommended.feasible and recommended.value is not None \
        and math.isfinite(float(recommended.value))
    chosen = feasible and float(recommended.value) == float(value)
    out: dict[str, Any] = {"map": name or analysis.name, "map_digest": config_digest(spec.to_dict())[:16],
                           "data": data, "choice": "recommended" if chosen else "picked", "value": float(value),
                           "recommended": float(recommended.value) if feasible else None}
    bound = recommended.max_risk if recommended is not None else getattr(spec, "max_risk", None)
    if bound is not None and math.isfinite(float(bound)):
        out["max_risk"] = float(bound)
    if recommended is not None:
        out["decision"] = recommended.decision
        if recommended.binding:
            out["binding"] = dict(recommended.binding)
    if isinstance(spec, EmpiricalSpec):  # the snooper's targets and the measures of a simulated map
        config = spec.simulation
        if config.targets:
            out.update(targets=list(config.targets), knowledge=list(config.knowledge))
        if config.risk_measures:
            out["risk_measures"] = list(config.risk_measures)
        if spec.data is not None:
            out["target_column"] = str(spec.data.columns[config.target_column])
    return {k: v for k, v in out.items() if v is not None}


@validate_params({"steps": InstanceOf((list, tuple), "a list of steps"), "origin": InstanceOf(dict, "a step's origin")},
                 example=lambda: {"steps": [Step("pram", {"theta": 0.8}, keys=("s",))], "origin": {"value": 0.8}})
def with_origin(steps: list[Step] | tuple[Step, ...], origin: dict[str, Any]) -> list[Step]:
    """The steps with ``origin`` recorded in each (:func:`map_origin`).

    Parameters
    ----------
    steps : list of Step
    origin : dict

    Returns
    -------
    list of Step

    Examples
    --------
    >>> [s.origin for s in with_origin([Step("pram", {"theta": 0.8}, keys=("s",))], {"choice": "picked"})]
    [{'choice': 'picked'}]
    """
    from dataclasses import replace

    return [replace(step, origin=dict(origin)) for step in steps]


#: The most decimals :func:`decimals_of` looks for.
MOST_DECIMALS = 10


@validate_params({"values": InstanceOf(np.ndarray, "an array of numbers")},
                 example=lambda: {"values": np.array([1.25, 3.5, 10.0])})
def decimals_of(values: np.ndarray) -> int | None:
    """The fewest decimals that write every finite value of the data exactly: its precision (cents: 2).

    Parameters
    ----------
    values : ndarray
        The data's values (NaN and infinities are passed over).

    Returns
    -------
    int or None
        From 0 to :data:`MOST_DECIMALS`; None for values with more decimals
        (measurements of full precision) or no finite value.

    Examples
    --------
    >>> decimals_of(np.array([1.25, 3.5, 10.0])), decimals_of(np.array([3.0, 7.0])), decimals_of(np.array([1 / 3]))
    (2, 0, None)
    """
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        return None
    for d in range(MOST_DECIMALS + 1):
        if np.all(np.abs(np.round(x, d) - x) <= 1e-13 * np.maximum(1.0, np.abs(x))):
            return d
    return None


@validate_params({"steps": InstanceOf((list, tuple), "a list of steps"),
                  "decimals": [None, InstanceOf(int, "a whole number of decimals")]},
                 example=lambda: {"steps": [Step("noise", {"lambda2": 1.0}, columns=("a",))], "decimals": 2})
def with_precision(steps: list[Step] | tuple[Step, ...], decimals: int | None) -> list[Step]:
    """The steps, each whose method can round its released values rounding them to ``decimals``.

    A step method names the parameter that rounds (:attr:`StepMethod.precision
    <rumap.release.methods.StepMethod>`, e.g. noise's ``decimals``); the other
    steps pass unchanged.

    Parameters
    ----------
    steps : list of Step
    decimals : int or None
        The data's decimals (:func:`decimals_of`); None leaves every step as it is.

    Returns
    -------
    list of Step

    Examples
    --------
    >>> [s.parameters["decimals"] for s in with_precision([Step("noise", {"lambda2": 1.0}, columns=("a",))], 2)]
    [2]
    """
    from dataclasses import replace

    if decimals is None:
        return list(steps)
    out = []
    for step in steps:
        name = STEP_METHODS[step.method].precision
        out.append(replace(step, parameters={**step.parameters, name: decimals}) if name else step)
    return out


@validate_params({"lines": InstanceOf((list, tuple), "a list of recoding lines")},
                 example=lambda: {"lines": ["region: R01, R02 = north"]})
def recode_step(lines: list[str] | tuple[str, ...]) -> Step | None:
    """The ``recode`` step of a page's recoding lines (``VAR: A, B = NEW``), the recoding a map was drawn after.

    Parameters
    ----------
    lines : list of str
        :func:`rumap.masking.categorical.parse_merges`'s lines.

    Returns
    -------
    Step or None
        None when the lines recode nothing.

    Examples
    --------
    >>> recode_step(["age: 20, 21 = 20-21"]).to_dict()
    {'method': 'recode', 'parameters': {'merge': {'age': {'20': '20-21', '21': '20-21'}}, 'band_width': None, \
'variable': None, 'origin': 0.0}, 'keys': ['age'], 'seed': None}
    """
    from rumap.masking.categorical import parse_merges

    mapping = parse_merges(list(lines))
    if not mapping:
        return None
    merge = {str(v): {str(a): str(b) for a, b in m.items()} for v, m in mapping.items()}
    return Step("recode", {"merge": merge}, keys=list(merge))
