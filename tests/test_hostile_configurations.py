"""Every malformed or hostile configuration is refused with one InputError naming the field.

A valid configuration (an analytic and an empirical map) is mutated field by
field: numbers out of range, wrong types, nulls, deep nesting, huge grids and
replicate counts. Loading (and, where loading is fine, running) must raise
:class:`rumap.InputError` whose message names the field; nothing else may
escape, and nothing may run unbounded.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rumap.errors import InputError
from rumap.present.examples import example_specs
from rumap.present.report import config_json, load_config
from rumap.specs import Analysis, AnalyticSpec

BIG = "__1e400__"


def _base() -> dict:
    analytic = AnalyticSpec(n=200, sigma2=1.0, states=("record", "population"), lambda2_num=11).run()
    (_, empirical), = example_specs("figure-7")[1:2]
    return json.loads(config_json([analytic, Analysis(spec=empirical, maps=())]))


BASE = _base()
A, E = ("analyses", 0, "spec"), ("analyses", 1, "spec")

#: (where, new value, what the message must name)
MUTATIONS = [
    ((*A, "sigma2"), BIG, "analyses[0].spec.sigma2 is a number out of range"),
    ((*A, "n"), "abc", "analyses[0].spec.n must be an integer, got 'abc'"),
    ((*A, "n"), [1], "analyses[0].spec.n must be an integer"),
    ((*A, "n"), 2.5, "analyses[0].spec.n must be an integer, got 2.5"),
    ((*A, "n"), True, "analyses[0].spec.n must be an integer, got True"),
    ((*A, "n"), 1, "analyses[0].spec: n must be an integer >= 2"),
    ((*A, "states"), "record", "analyses[0].spec.states must be a list of names"),
    ((*A, "states"), ["nobody"], "analyses[0].spec: unknown state 'nobody'"),
    ((*A, "lambda2"), None, "analyses[0].spec.lambda2 must be an object, got None"),
    ((*A, "lambda2", "num"), 10**12, "analyses[0].spec: grid_num must be an integer in [1, 1e+06]"),
    ((*A, "lambda2", "num"), BIG, "analyses[0].spec.lambda2.num is a number out of range"),
    ((*A, "lambda2", "stop"), "3", "analyses[0].spec.lambda2.stop must be a finite number, got '3'"),
    ((*A, "max_risk"), "x", "analyses[0].spec.max_risk must be a finite number"),
    ((*A, "log_x"), "yes", "analyses[0].spec.log_x must be true or false"),
    ((*A, "family"), 3, "analyses[0].spec.family must be text"),
    ((*A, "from_data"), "x", "analyses[0].spec.from_data must be an object"),
    ((*A, "from_data"), {"sigma2": "variance"}, "analyses[0].spec: from_data needs the data source"),
    ((*A, "kind"), ["analytic"], "analyses[0].spec.kind must be text"),
    ((*A, "kind"), "magic", "analyses[0].spec.kind: unknown map kind 'magic'"),
    (("analyses", 0, "name"), {"x": 1}, "analyses[0].name must be text"),
    (("analyses", 0), [1], "analyses[0] must be an object"),
    (("analyses", 0, "spec"), None, "analyses[0].spec must be an object, got None"),
    ((*E, "data"), None, "analyses[1].spec.data must be an object, got None"),
    ((*E, "data"), "x", "analyses[1].spec.data must be an object, got 'x'"),
    ((*E, "data", "columns"), 3, "analyses[1].spec.data.columns must be a list of names"),
    ((*E, "data", "n"), -4, "analyses[1].spec.data.n must be an integer >= 0"),
    ((*E, "data", "values"), [["a"]], "analyses[1].spec.data.values must be rows of numbers"),
    ((*E, "data", "kind"), "web", "analyses[1].spec.data: data source kind must be"),
    ((*E, "simulation"), None, "analyses[1].spec.simulation must be an object, got None"),
    ((*E, "simulation", "replicates"), 10**9, "analyses[1].spec.simulation: replicates must be an integer in"),
    ((*E, "simulation", "replicates"), "many", "analyses[1].spec.simulation: replicates must be an integer"),
    ((*E, "simulation", "values"), [[1]], "analyses[1].spec.simulation: lambda2"),
    ((*E, "simulation", "targets"), {"a": 1}, "analyses[1].spec.simulation: targets must be"),
    ((*E, "simulation", "method_options"), [1], "analyses[1].spec.simulation: method_options must be an object"),
    ((*E, "simulation", "utility_options"), 5, "analyses[1].spec.simulation: utility_options must be an object"),
    ((*E, "simulation", "seed"), -5, "analyses[1].spec.simulation: seed must be an integer >= 0"),
    ((*E, "simulation", "method"), "magic", "analyses[1].spec.simulation: unknown method 'magic'"),
    ((*E, "simulation", "surprise"), 1, "analyses[1].spec.simulation: unknown simulation config key(s): 'surprise'"),
    ((*E, "max_risk"), [1], "analyses[1].spec.max_risk must be a finite number"),
]


def _mutated(path, value) -> str:
    config = copy.deepcopy(BASE)
    target = config
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(config).replace(f'"{BIG}"', "1e400")


@pytest.mark.parametrize(("path", "value", "message"), MUTATIONS, ids=[" ".join(map(str, m[0][3:] or m[0])) + f"={m[1]!r}"[:30] for m in MUTATIONS])
def test_a_bad_field_is_named(path, value, message):
    with pytest.raises(InputError) as info:
        for _name, spec in load_config(_mutated(path, value)):
            spec.run()
    assert message in str(info.value)


def test_huge_work_is_refused_when_run_not_computed():
    for path, value, message in [((*E, "simulation", "values"), [0.1 * i for i in range(1, 20001)], "grid has 20000"),
                                 ((*E, "simulation", "replicates"), 5_000_000, "over the work limit"),
                                 ((*A, "lambda2", "num"), 500_000, "lambda2 grid has 500000")]:
        (_, first), (_, second) = load_config(_mutated(path, value))
        with pytest.raises(InputError, match=message):
            (first if path[1] == 0 else second).run()


@pytest.mark.parametrize(("text", "message"), [
    ('{"format": "rumap-config/1", "analyses": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested 100001 levels"),
    ('{"format": "rumap-config/1", "analyses": [{"spec": {"kind": "analytic", "n": NaN}}]}', "holds NaN"),
    ('{"format": "rumap-config/1", "analyses": [{"spec": {"n": -Infinity}}]}', "holds -Infinity"),
    ('{"format": "rumap-config/1", "analyses": [{"spec": {"n": 1e999}}]}', "analyses[0].spec.n is a number out of range"),
    ('{"format": "rumap-config/1", "analyses": []}', "holds no analyses"),
    ('{"format": "rumap-config/1", "analyses": null}', "holds no analyses"),
    ('{"format": "rumap-config/2", "analyses": []}', "not a rumap configuration"),
    ("[1, 2]", "not a rumap configuration"),
    ('{"format": "rumap-config/1", "analyses": [', "not valid JSON"),
    (b"\xff\xfe\x00", "not UTF-8"),
])
def test_hostile_documents(text, message):
    with pytest.raises(InputError) as info:
        load_config(text)
    assert message in str(info.value)


_json = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False)
                     | st.text(max_size=8), lambda children: st.lists(children, max_size=4)
                     | st.dictionaries(st.text(max_size=8), children, max_size=4), max_leaves=20)
_FIELDS = sorted({key for _, spec in (("a", BASE["analyses"][0]["spec"]), ("e", BASE["analyses"][1]["spec"]))
                  for key in spec} | set(BASE["analyses"][1]["spec"]["simulation"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=st.integers(0, 1), key=st.sampled_from(_FIELDS), value=_json)
def test_any_value_in_any_field_loads_or_is_refused_cleanly(entry, key, value):
    config = copy.deepcopy(BASE)
    spec = config["analyses"][entry]["spec"]
    target = spec["simulation"] if entry == 1 and key in spec["simulation"] else spec
    target[key] = value
    try:
        for _name, loaded in load_config(json.dumps(config)):
            if loaded.kind == "analytic":
                loaded.run()
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc)
