"""rumap.release.from_map: the release step at a point of an empirical map."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rumap.errors import InputError
from rumap.masking.categorical import band, local_suppression, pram
from rumap.masking.microaggregation import microaggregate
from rumap.masking.noise import NoiseSpec, add_noise
from rumap.masking.swapping import rank_swap
from rumap.release.apply import apply_step
from rumap.release.from_map import step_from_key_map, step_from_spec
from rumap.release.plan import Step
from rumap.result import RUMap
from rumap.specs import DataSource, EmpiricalSpec


def _data() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame({"id": np.arange(40), "a": rng.normal(50.0, 10.0, 40), "b": rng.gamma(2.0, 3.0, 40),
                         "region": list("NS") * 20})


def _spec(method: str, values, options=None, seed: int = 7) -> EmpiricalSpec:
    frame = _data()
    x = frame[["a", "b"]].to_numpy()
    return EmpiricalSpec(simulation={"method": method, "values": values, "method_options": options or {},
                                     "replicates": 2, "seed": seed},
                         data=DataSource.of("inline", "example", ["a", "b"], x))


def test_microaggregation_step_masks_as_the_map_does():
    spec = _spec("microaggregation", [2, 3, 5], {"algorithm": "mwa", "standardize": True})
    step = step_from_spec(spec, 3.0)
    assert step.to_dict() == {"method": "microaggregation", "columns": ["a", "b"], "seed": None,
                              "parameters": {"k": 3, "algorithm": "mwa", "standardize": True, "criterion": "pc1"}}
    frame = _data()
    released, _ = apply_step(frame, step)
    expected = microaggregate(np.ascontiguousarray(frame[["a", "b"]].to_numpy()), 3, "mwa", standardize=True)
    np.testing.assert_array_equal(released[["a", "b"]].to_numpy(), np.asarray(expected.masked))
    pd.testing.assert_frame_equal(released[["id", "region"]], frame[["id", "region"]])


def test_rankswap_step_keeps_the_map_seed():
    step = step_from_spec(_spec("rankswap", [1.0, 5.0, 10.0], seed=11), 10.0)
    assert (step.method, dict(step.parameters), step.seed) == ("rankswap", {"swap_percent": 10.0}, 11)
    frame = _data()
    released, _ = apply_step(frame, step)
    expected = rank_swap(np.ascontiguousarray(frame[["a", "b"]].to_numpy()), 10.0, seed=11)
    np.testing.assert_array_equal(released[["a", "b"]].to_numpy(), np.asarray(expected, dtype=float))


def test_noise_step_carries_the_map_options_and_names_the_unequal_column():
    options = {"relative": True, "correlated": True, "truncate_below": 0.0, "unequal_above": 8.0,
               "unequal_factor": 3.0, "unequal_column": 1}
    step = step_from_spec(_spec("noise", [0.05, 0.2], options), 0.2)
    assert step.seed == 7
    assert dict(step.parameters) == {"lambda2_frac": 0.2, "correlated": True, "truncate_below": 0.0,
                                     "truncate_above": None, "unequal_above": 8.0, "unequal_below": None,
                                     "unequal_factor": 3.0, "unequal_column": "b", "decimals": None}
    absolute = step_from_spec(_spec("noise", [1.0, 4.0]), 4.0)
    assert dict(absolute.parameters)["lambda2"] == 4.0 and "lambda2_frac" not in absolute.parameters
    frame = _data()
    released, _ = apply_step(frame, step)
    spec = NoiseSpec(relative=True, correlated=True, truncate_below=0.0, unequal_above=8.0, unequal_factor=3.0,
                     unequal_column=1)
    expected = add_noise(np.ascontiguousarray(frame[["a", "b"]].to_numpy()), 0.2, spec, seed=7)
    np.testing.assert_array_equal(released[["a", "b"]].to_numpy(), expected)


def test_bad_values_are_refused_by_name():
    with pytest.raises(InputError, match="whole k"):
        step_from_spec(_spec("microaggregation", [2, 3]), 2.5)
    with pytest.raises(InputError, match="finite"):
        step_from_spec(_spec("rankswap", [1.0, 5.0]), float("nan"))
    with pytest.raises(InputError, match="swap_percent"):
        step_from_spec(_spec("rankswap", [1.0, 5.0]), 150.0)
    with pytest.raises(InputError, match="spec"):
        step_from_spec("not a spec", 1.0)


def _keys_frame() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    return pd.DataFrame({"sex": rng.choice(["f", "m"], 60), "region": rng.choice(list("ABCDE"), 60),
                         "age": rng.integers(18, 90, 60).astype(float), "w": np.ones(60)})


def _key_map(method: str, parameter: str) -> RUMap:
    return RUMap(parameter=parameter, values=[1.0, 2.0], risk=[0.5, 0.2], utility=[1.0, 0.8], method=method)


def test_steps_of_the_maps_of_keys_mask_as_those_maps_do():
    frame = _keys_frame()
    suppress = step_from_key_map(_key_map("local suppression", "k"), ["sex", "region", "age"], 3.0)
    assert suppress.to_dict() == {"method": "suppress", "parameters": {"k": 3, "optimal": False, "importance": {}},
                                  "keys": ["sex", "region", "age"], "seed": None}
    released, _ = apply_step(frame, suppress)
    pd.testing.assert_frame_equal(released, local_suppression(frame, ["sex", "region", "age"], k=3).data)

    banding = step_from_key_map(_key_map("global recoding", "band_width"), ["sex", "age"], 10.0, variable="age")
    released, _ = apply_step(frame, banding)
    pd.testing.assert_frame_equal(released, band(frame, "age", 10.0))

    theta = step_from_key_map(_key_map("pram", "theta"), ["sex", "region"], 0.6, seed=4)
    released, _ = apply_step(frame, theta)
    pd.testing.assert_frame_equal(released, pram(frame, ["sex", "region"], 0.6, seed=4).data)


def test_maps_of_keys_without_a_step_or_a_value_are_refused():
    with pytest.raises(InputError, match="no release step"):
        step_from_key_map(_key_map("subsampling", "f"), ["sex"], 0.5)
    with pytest.raises(InputError, match="needs its variable"):
        step_from_key_map(_key_map("global recoding", "band_width"), ["age"], 10.0)
    with pytest.raises(InputError, match="whole k"):
        step_from_key_map(_key_map("local suppression", "k"), ["sex"], 2.5)


def test_table_steps_protect_the_table_as_its_map_does_at_the_value():
    from rumap.io.data import BUNDLED_DATA, read_table
    from rumap.release.apply import apply_plan
    from rumap.release.from_map import table_steps
    from rumap.release.plan import ReleasePlan
    from rumap.tables.microdata import table_from_microdata
    from rumap.tables.secondary import suppress_secondary

    frame = read_table(BUNDLED_DATA["persons (synthetic, categorical keys)"])
    steps = table_steps("region", "marital", "p-percent", {"p": 10.0}, "protection", 20.0, response="income")
    result = apply_plan(frame, ReleasePlan(steps))
    table = table_from_microdata(frame, "region", "marital", response="income")
    direct = suppress_secondary(table.published(), table.primary("p-percent", p=10.0), protection=20.0,
                                frequencies=table.frequencies())
    assert sorted(result.table.protection.secondary) == sorted(direct.secondary)
    swept = table_steps("region", "marital", "p-percent", {"p": 10.0}, "rule", 40.0, protection=15.0)
    assert swept[1].parameters["p"] == 40.0 and swept[2].parameters["protection"] == 15.0
    assert table_steps("region", None, "threshold", {"threshold": 3}, "base", 50.0)[2].to_dict() == \
        {"method": "controlled_rounding", "parameters": {"base": 50.0, "time_limit": 30.0}, "seed": None}
    with pytest.raises(InputError, match="sweep"):
        table_steps("region", None, "threshold", {"threshold": 3}, "layer", 1.0)


def test_a_noise_release_keeps_the_datas_decimals_when_asked_and_counts_the_signs_it_changed():
    frame = pd.DataFrame({"wage": np.round(np.random.default_rng(5).uniform(1.0, 40.0, 300), 2)})
    plain, outcome = apply_step(frame, Step("noise", {"lambda2_frac": 1.0}, columns=["wage"], seed=3))
    rounded, rounded_outcome = apply_step(frame, Step("noise", {"lambda2_frac": 1.0, "decimals": 2}, columns=["wage"],
                                                      seed=3))
    np.testing.assert_array_equal(rounded["wage"], np.round(plain["wage"], 2))  # the same draw, in cents
    assert not np.array_equal(plain["wage"], np.round(plain["wage"], 2))
    negative = int((plain["wage"] < 0).sum())
    assert negative > 0 and outcome.summary == {"sign_changed": {"wage": negative}}
    assert rounded_outcome.summary["sign_changed"]["wage"] == int((rounded["wage"] < 0).sum())
    for bad in (-1, 16, 2.5, True, "2"):
        with pytest.raises(InputError, match="parameter decimals must be a whole number from 0 to 15"):
            Step("noise", {"lambda2": 1.0, "decimals": bad}, columns=["wage"])
