"""Local suppression, PRAM and global recoding on a local Dask cluster write one machine's file."""

from __future__ import annotations

import polars as pl
import pytest

from rumap.errors import InputError
from rumap.scale import scan
from rumap.scale.cluster_protect import cluster_pram, cluster_recode, cluster_suppress
from rumap.scale.protect import pram_file, suppress_file
from rumap.scale.recoding import recode_file

distributed = pytest.importorskip("distributed")

KEYS = ["age", "region", "sex", "status"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


def _read(path) -> pl.DataFrame:
    return pl.read_parquet(path) if str(path).endswith(".parquet") else pl.read_csv(path, infer_schema_length=None)


def _same_file(found, expected) -> None:
    a, b = _read(found), _read(expected)
    assert a.schema == b.schema
    assert a.equals(b)


@pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)
@pytest.mark.parametrize("households", [False, True])
def test_suppression_on_a_local_cluster_writes_one_machine_s_file(files, client, tmp_path, households):
    path, _frame = files
    options = {"household": "hh", "household_variables": ["region"]} if households else {"weight": "w"}
    found = cluster_suppress(path, KEYS, tmp_path / "cluster.parquet", k=3, scheduler=client, chunk_size=700,
                             progress=False, **options)
    expected = suppress_file(scan(path), KEYS, tmp_path / "one.parquet", k=3, progress=False, **options)
    assert found.to_dict() == expected.to_dict() and sum(found.per_variable) > 0
    _same_file(tmp_path / "cluster.parquet", tmp_path / "one.parquet")


@pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)
def test_pram_on_a_local_cluster_draws_one_machine_s_numbers_whatever_the_ranges(files, client, tmp_path):
    path, _frame = files
    expected = pram_file(scan(path), KEYS, 0.6, 11, tmp_path / "one.csv", progress=False)
    for size in (700, 1024):
        found = cluster_pram(path, KEYS, 0.6, 11, tmp_path / f"cluster{size}.csv", scheduler=client, chunk_size=size,
                             progress=False)
        assert found.to_dict() == expected.to_dict() and found.changed == expected.changed
        _same_file(tmp_path / f"cluster{size}.csv", tmp_path / "one.csv")
    assert sum(expected.changed.values()) > 0
    other = cluster_pram(path, KEYS, 0.6, 12, None, scheduler=client, chunk_size=700, progress=False)
    assert other.changed != expected.changed  # another seed, other draws


@pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)
def test_recoding_on_a_local_cluster_writes_one_machine_s_file(files, client, tmp_path):
    path, _frame = files
    options = {"mapping": {"region": {"north": "ns", "south": "ns"}}, "bands": [("age", 3)], "top": [("status", 2)],
               "progress": False}
    found = cluster_recode(path, tmp_path / "cluster.parquet", scheduler=client, chunk_size=700, **options)
    expected = recode_file(scan(path), tmp_path / "one.parquet", **options)
    assert {**found.to_dict(), "out": None} == {**expected.to_dict(), "out": None}
    assert set(found.changed) == {"region", "age", "status"}
    _same_file(tmp_path / "cluster.parquet", tmp_path / "one.parquet")


@pytest.mark.parametrize("files", ["parquet"], indirect=True)
@pytest.mark.parametrize("method", [["pram", "--theta", "0.7", "--seed", "4"], ["suppress", "--k", "3"],
                                    ["recode", "--band", "age:4"]])
def test_cli_protect_on_the_cluster_prints_one_machine_s_json_and_file(files, client, tmp_path, method):
    from cli_helpers import run_cli

    path, _frame = files
    common = ["--data", path, "--keys", ",".join(KEYS), "--weight", "w", "--quiet", "--json"]
    _proc, found = run_cli("protect", *method, *common, "--out", tmp_path / "cluster.parquet",
                           "--scheduler", client.scheduler.address, "--chunk-size", "800", check_json=True)
    _proc, expected = run_cli("protect", *method, *common, "--out", tmp_path / "one.parquet", "--engine", "scale",
                              check_json=True)
    for risk in ("risk_before", "risk_after"):
        for key, value in expected.pop(risk).items():
            assert found[risk][key] == pytest.approx(value, rel=1e-12)
        del found[risk]
    assert {**found, "out": None} == {**expected, "out": None}
    _same_file(tmp_path / "cluster.parquet", tmp_path / "one.parquet")


def test_cli_protect_on_the_cluster_refuses_with_one_line(tmp_path, client):
    from cli_helpers import assert_bad_input, run_cli

    path = tmp_path / "keys.csv"
    path.write_text("a,b\nx,1\ny,2\n")
    address = client.scheduler.address
    assert_bad_input(run_cli("protect", "pram", "--data", path, "--keys", "a", "--theta", "0.5", "--scheduler",
                             address), "--scheduler", "--out")
    assert_bad_input(run_cli("protect", "suppress", "--data", path, "--keys", "a,b", "--k", "2", "--optimal",
                             "--out", tmp_path / "x.csv", "--scheduler", address), "--optimal", "--scheduler")
    with pytest.raises(InputError, match="seed must be an integer"):
        import numpy as np

        cluster_pram(path, ["a"], 0.5, np.random.default_rng(1), None, scheduler=client)
