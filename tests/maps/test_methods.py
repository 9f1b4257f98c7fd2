"""The masking-method registry (rumap/maps/methods.py): a method added by one record reaches every layer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_bad_input, run_cli
from method_helpers import TOY, TOY_BY_RECORD, round_to_base, toy_registered

from rumap.errors import InputError
from rumap.maps.methods import METHODS, PARAMETER_SYMBOLS, UNMASKED, register_method
from rumap.maps.simulation import SimulationConfig, simulate
from rumap.present.commands import cli_command
from rumap.specs import DataSource, EmpiricalSpec

X = np.array([1234.0, 2500.0, 4999.0, 7777.0, 12345.0])


@pytest.fixture
def toy():
    with toy_registered() as method:
        yield method


def test_a_registered_method_runs_from_a_spec_and_matches_its_closed_form(toy):
    config = SimulationConfig(method="toy", values=(1000.0, 3000.0), targets=("max",), knowledge=("index",),
                              replicates=5)
    assert config.parameter == "toy_base" and config.deterministic
    m = simulate(X, config).maps[0]
    expected = [1 / (12345.0 - round_to_base(np.array(12345.0), b, False)) ** 2 for b in (1000.0, 3000.0)]
    np.testing.assert_allclose(m.risk, expected)
    assert m.method == "toy" and m.parameter == "toy_base"
    down = simulate(X, SimulationConfig(method="toy", values=(1000.0,), method_options={"down": True},
                                        targets=("max",), knowledge=("index",))).maps[0]
    np.testing.assert_allclose(down.risk, [1 / 345.0 ** 2])


def test_a_registered_method_is_checked_when_its_spec_is_built(toy):
    with pytest.raises(InputError, match=r"every rounding_base must be a number > 0, got -1.0"):
        SimulationConfig(method="toy", values=(-1.0,))
    with pytest.raises(InputError, match="down must be True or False, got 'yes'"):
        SimulationConfig(method="toy", values=(1.0,), method_options={"down": "yes"})
    with pytest.raises(InputError, match="unknown option"):
        SimulationConfig(method="toy", values=(1.0,), method_options={"algorithm": "mdav"})
    assert PARAMETER_SYMBOLS["toy_base"] == "b" and UNMASKED["toy_base"] == 0.0


def test_a_registered_method_is_on_the_command_line(toy, tmp_path):
    path = tmp_path / "toy.csv"
    pd.DataFrame({"v": X}).to_csv(path, index=False)
    _, out = run_cli("simulate", "--data", path, "--column", "v", "--method", "toy", "--toy-base", "1000:3000:2",
                     "--toy-down", "--target", "max", "--knowledge", "index", "--json", check_json=True)
    (curve,) = out["curves"]
    assert curve["method"] == "toy" and curve["parameter"] == "toy_base" and curve["values"] == [1000.0, 3000.0]
    np.testing.assert_allclose(curve["risk"], [1 / 345.0 ** 2, 1 / 345.0 ** 2])
    assert out["config"]["method_options"] == {"down": True}
    assert_bad_input(run_cli("simulate", "--data", path, "--column", "v", "--method", "noise", "--lambda2", "0:1:2",
                             "--toy-down", "--target", "max"), "--toy-down applies to --method toy, not noise")
    assert "--toy-base" in run_cli("simulate", "--help").stdout


def test_the_command_that_reproduces_a_registered_method_gives_its_flags(toy):
    spec = EmpiricalSpec(simulation={"method": "toy", "values": [1000.0, 3000.0], "method_options": {"down": True},
                                     "targets": ["max"], "knowledge": ["index"]},
                         data=DataSource.of("inline", "toy", ["v"], X))
    assert "--method toy --toy-base 1000:3000:2 --toy-down" in cli_command(spec)


def test_a_registered_methods_release_step_applies_to_a_file(toy, tmp_path):
    from rumap.release.apply import REQUIRED, STEP_METHODS, apply_plan
    from rumap.release.from_map import step_from_spec
    from rumap.release.plan import ReleasePlan, Step

    record = STEP_METHODS["toy"]
    assert (record.target, record.random, record.map_method, record.description) == \
        ("columns", False, "toy", "rounding to a base")
    assert dict(record.parameters) == {"toy_base": REQUIRED, "down": False}
    spec = EmpiricalSpec(simulation={"method": "toy", "values": [1000.0, 3000.0], "method_options": {"down": True},
                                     "targets": ["max"], "knowledge": ["index"]},
                         data=DataSource.of("inline", "toy", ["v"], X))
    step = step_from_spec(spec, 3000.0)  # the map's point as a step, its options with it
    assert step.to_dict() == {"method": "toy", "parameters": {"toy_base": 3000.0, "down": True}, "columns": ["v"],
                              "seed": None}
    frame = pd.DataFrame({"id": list("abcde"), "v": X})
    released = apply_plan(frame, ReleasePlan((step,))).data
    assert released["id"].tolist() == list("abcde")
    np.testing.assert_array_equal(released["v"], [0.0, 0.0, 3000.0, 6000.0, 12000.0])
    with pytest.raises(InputError, match="parameter toy_base must be a number > 0, got -1.0"):
        Step("toy", {"toy_base": -1.0}, columns=["v"])
    with pytest.raises(InputError, match="parameter down must be True or False, got 'yes'"):
        Step("toy", {"toy_base": 1.0, "down": "yes"}, columns=["v"])
    with pytest.raises(InputError, match="method toy needs the parameter"):
        Step("toy", {}, columns=["v"])

    path, out = tmp_path / "toy.csv", tmp_path / "released.csv"
    frame.to_csv(path, index=False)
    _, summary = run_cli("release", "--data", path, "--out", out, "--method", "toy", "--columns", "v",
                         "--toy-base", "1000", "--json", check_json=True)
    assert summary["steps"] == [{"method": "toy", "parameters": {"toy_base": 1000.0, "down": False},
                                 "columns": ["v"], "seed": None}]
    np.testing.assert_array_equal(pd.read_csv(out)["v"], round_to_base(X, 1000.0, False))
    (checks,) = [p["checks"] for p in summary["predictions"]]  # its map at the step's base, deterministic
    assert [c["measure"] for c in checks][:2] == ["record-linkage", "interval-disclosure"]
    assert all(c["value"] == pytest.approx(c["mean"]) for c in checks)
    assert_bad_input(run_cli("release", "--data", path, "--out", out, "--method", "rankswap", "--columns", "v",
                             "--swap-percent", "5", "--toy-down"), "--toy-down does not apply to --method rankswap")
    assert "--toy-base" in run_cli("release", "--help").stdout


@pytest.mark.parametrize(("record", "passes"), [(TOY, 2), (TOY_BY_RECORD, 1)])
def test_a_registered_methods_step_runs_on_a_file_chunk_by_chunk_as_its_record_says(record, passes, tmp_path):
    from rumap.maps.subsample import REFUSED, allowed
    from rumap.release import report, stream
    from rumap.release.apply import apply_plan
    from rumap.release.plan import ReleasePlan, Step

    frame = pd.DataFrame({"id": list("abcde"), "v": X})
    path, out = tmp_path / "toy.parquet", tmp_path / "released.parquet"
    frame.to_parquet(path, index=False)
    with toy_registered(record):
        assert "toy" in stream.STREAMED and "toy" not in stream.NOT_STREAMED and "toy" in report.PREDICTORS
        assert allowed("method", list(METHODS)) == ["noise"] and "not known" in REFUSED["method"]["toy"]
        plan = ReleasePlan((Step("toy", {"toy_base": 3000.0, "down": True}, columns=["v"]),))
        done = stream.release_in_chunks(path, plan, out, chunk_size=2)
        in_memory = apply_plan(frame, plan).data
    assert (done.passes, done.chunks, done.summaries) == (passes, 3, ({},))
    pd.testing.assert_frame_equal(pd.read_parquet(out), in_memory)
    np.testing.assert_array_equal(in_memory["v"], round_to_base(X, 3000.0, True))
    assert "toy" not in stream.STREAMED


def test_a_method_name_is_taken_once():
    with pytest.raises(InputError, match="exists already"):
        register_method("noise", TOY)
    with pytest.raises(InputError, match="exists already"):
        register_method("pram", TOY)
    with pytest.raises(InputError, match="lower-case"):
        register_method("Toy method", TOY)
    clash = replace(TOY, options=(replace(TOY.options[0], flag=replace(TOY.options[0].flag, flag="--algorithm")),))
    with pytest.raises(InputError, match="the flag --algorithm of method 'toy' is taken by another method's option"):
        register_method("toy", clash)
    same_k = replace(TOY, grids=(METHODS["microaggregation"].grids[0],))
    try:
        assert register_method("toy", same_k) is same_k  # the same grid parameter may share its flag
    finally:
        METHODS.pop("toy", None)
    assert "toy" not in METHODS


def test_k_above_the_records_is_refused_when_a_spec_knows_its_data():
    data = DataSource.of("inline", "five", ["v"], X)
    simulation = {"method": "microaggregation", "values": [2, 6], "targets": ["max"], "knowledge": ["index"]}
    with pytest.raises(InputError, match=r"k must be at most the number of records \(5\), got 6"):
        EmpiricalSpec(simulation=simulation, data=data)
    with pytest.raises(InputError, match=r"algorithm must be one of mdav, mwa, fixed, individual, optimal, mdav_partitioned, optimal_pc1, got 'nosuch'"):
        SimulationConfig(method="microaggregation", values=(2,), method_options={"algorithm": "nosuch"})


def test_k_is_compared_with_the_records_once_from_spec_to_kernel(monkeypatch):
    from rumap.maps.method_records import GridParameter

    compared = []
    original = GridParameter.check_records

    def counted(self, values, n_records):
        compared.append((self.name, n_records))
        return original(self, values, n_records)

    monkeypatch.setattr(GridParameter, "check_records", counted)
    simulation = {"method": "microaggregation", "values": [2, 3], "targets": ["max"], "knowledge": ["index"]}
    spec = EmpiricalSpec(simulation=simulation, data=DataSource.of("inline", "five", ["v"], X, include_values=True))
    spec.run()
    assert compared == [("k", 5)]  # when the spec met its data; the run trusts it
    compared.clear()
    unsized = EmpiricalSpec(simulation=simulation, data=replace(spec.data, n=0))  # a source that did not know n
    unsized.run()
    assert compared == [("k", 5)]
    compared.clear()
    with pytest.raises(InputError, match=r"k must be at most the number of records \(5\), got 6"):
        simulate(X, SimulationConfig(method="microaggregation", values=(2, 6), targets=("max",),
                                     knowledge=("index",)))  # a direct call is compared at its entry
    assert compared == [("k", 5)]
    with pytest.raises(InputError, match=r"k must be at most the number of records \(4\), got 6"):
        EmpiricalSpec(simulation={**simulation, "values": [2, 6]},
                      data=replace(DataSource.of("inline", "four", ["v"], X[:4]), n=0)).run(X[:4])
    with pytest.raises(InputError, match="are not 'five'"):
        replace(spec, data=replace(spec.data, n=4)).run()  # a source whose n is not its data's


def test_the_engine_masks_through_the_kernels_without_checking_each_grid_value_again(monkeypatch):
    import rumap.masking.microaggregation as micro
    import rumap.masking.swapping as swapping

    expected = [micro.microaggregate(X, k).masked[:, 0] for k in (2, 3)]

    def checked_again(*args, **kwargs):
        raise AssertionError("a checked public function was called inside the run")

    monkeypatch.setattr(micro, "microaggregate", checked_again)
    monkeypatch.setattr(swapping, "rank_swap", checked_again)
    config = SimulationConfig(method="microaggregation", values=(2, 3), targets=("max",), knowledge=("index",))
    risk = simulate(X, config).maps[0].risk
    np.testing.assert_allclose(risk, [1 / (12345.0 - e[-1]) ** 2 for e in expected])
    simulate(X, SimulationConfig(method="rankswap", values=(20.0,), targets=("max",), knowledge=("index",),
                                 replicates=2))


@pytest.mark.parametrize("method, options, target_column", [
    ("noise", {"relative": True, "truncate_below": 0.0, "unequal_above": 35000.0, "unequal_column": 1}, 1),
    ("noise", {"unequal_below": 5.0, "unequal_factor": 3.0, "correlated": True, "truncate_above": 9.5}, 0),
    ("microaggregation", {"algorithm": "fixed", "criterion": "zsum", "standardize": True}, 0),
    ("rankswap", {}, 0),
])
def test_the_flags_a_record_writes_are_the_options_the_command_line_reads(method, options, target_column):
    from rumap.cli import build_parser
    from rumap.cli.simulate import config_from_args

    record = METHODS[method]
    grid = record.grid(options)
    flags, notes = record.command_flags(options, target_column)
    columns = ["a", "b"]
    argv = ["simulate", "--data", "x.csv", "--columns", "a,b", "--target-column", columns[target_column],
            "--method", method, grid.flag.flag, "1:2" if grid.integer else "1:2:2", "--target", "max", *flags]
    read = config_from_args(build_parser("simulate").parse_args(argv), columns)
    assert read.method_options == SimulationConfig(method=method, values=(1, 2), method_options=options).method_options
    assert notes == []


def test_the_reproducing_command_notes_what_no_flag_gives():
    noise = METHODS["noise"]
    moved = "the sensitive records are chosen on another column than the attacked one"
    assert noise.command_flags({"unequal_below": 5.0, "unequal_column": 1}, 0)[1] == [moved]
    assert noise.command_flags({"unequal_factor": 3.0, "unequal_column": 1}, 0) == ([], [])  # no sensitive records


@pytest.mark.parametrize("method, options, value", [
    ("noise", {"relative": True, "unequal_above": 8.0, "unequal_column": 1, "correlated": True}, 0.2),
    ("noise", {"truncate_below": 0.0}, 4.0),
    ("microaggregation", {"algorithm": "mwa", "standardize": True}, 3),
    ("rankswap", {}, 15.0),
])
def test_a_maps_point_as_a_release_step_reads_back_to_the_same_options(method, options, value):
    from rumap.release.plan import Step

    record = METHODS[method]
    full = SimulationConfig(method=method, values=(value,), method_options=options).method_options
    step = Step(method, record.step_parameters(full, value, ["a", "b"]), columns=("a", "b"))  # the step's own check
    read, read_value = record.map_options(dict(step.parameters), step.columns)
    assert SimulationConfig(method=method, values=(read_value,), method_options=read).method_options == full
    assert read_value == value


def _lambda_record():
    return replace(TOY, make_masker=lambda plan, reps: None)


def test_a_record_another_process_cannot_rebuild_is_refused():
    with pytest.raises(InputError, match="method 'toy_lambda' cannot be sent to worker processes"):
        register_method("toy_lambda", _lambda_record())

    def inner(plan, reps):  # defined inside a function: not importable by name
        return None

    with pytest.raises(InputError, match="cannot be sent to worker processes"):
        register_method("toy_inner", replace(TOY, make_masker=inner))
    main = type(inner)(inner.__code__, {}, "main_masker")
    main.__module__, main.__qualname__ = "__main__", "main_masker"
    with pytest.raises(InputError, match="main_masker is defined in __main__"):
        register_method("toy_main", replace(TOY, make_masker=main))
    assert not {"toy_lambda", "toy_inner", "toy_main"} & set(METHODS)


def test_every_record_survives_pickling_read_only_mappings_included():
    import pickle
    from types import MappingProxyType

    for record in (*METHODS.values(), TOY):
        back = pickle.loads(pickle.dumps(record))
        assert back == record and back is not record
        for mine, theirs in zip(back.grids, record.grids, strict=True):
            assert type(mine.implies) is type(theirs.implies)
        assert type(back.toggles) is type(record.toggles)
    assert isinstance(pickle.loads(pickle.dumps(METHODS["rankswap"])).toggles, MappingProxyType)


def test_installed_methods_follow_the_sender_and_restore_the_own_records():
    import pickle

    from rumap.maps.methods import install_methods, registered_methods

    noise = METHODS["noise"]
    assert registered_methods() == {}
    with toy_registered():
        sent = registered_methods()
        assert sent == {"toy": TOY}
        received = pickle.loads(pickle.dumps(sent))
    try:
        install_methods(received)  # as a worker does: the received copy is installed
        assert METHODS["toy"] is received["toy"] and list(registered_methods()) == ["toy"]
        other = replace(noise, description="noise again")
        install_methods({"noise": other})  # a replaced own record; the toy method was not sent: gone
        assert "toy" not in METHODS and METHODS["noise"] is other
        install_methods({})
        assert METHODS["noise"] is noise and registered_methods() == {}
    finally:
        METHODS["noise"] = noise
        METHODS.pop("toy", None)


@pytest.mark.slow
def test_a_registered_method_runs_on_a_dask_cluster_of_processes(toy):
    distributed = pytest.importorskip("distributed")
    config = SimulationConfig(method="toy", values=(1000.0, 3000.0), targets=("max",), knowledge=("index",),
                              chunk_size=1)
    here = simulate(X, config)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = simulate(X, config, client=client)
    assert remote.to_dict() == here.to_dict()


def test_a_grid_parameters_values_are_the_command_lines_expansion_of_its_ends():
    from rumap.cli.flags import parse_grid

    k = METHODS["microaggregation"].grids[0]
    lambda2 = METHODS["noise"].grids[0]
    assert k.values(2, 6) == parse_grid("2:6", "k", integer=True).tolist() == [2, 3, 4, 5, 6]
    assert lambda2.values(0.05, 1.0, 20) == parse_grid("0.05:1:20", "lambda2").tolist()
    assert lambda2.values(0.0, 1.0, 5) == [0.0, 0.25, 0.5, 0.75, 1.0]
