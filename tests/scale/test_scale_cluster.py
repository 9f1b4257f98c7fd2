"""Key frequencies and individual risk on a local Dask cluster equal those of one machine."""

from __future__ import annotations

import numpy as np
import pytest

from rumap import scale
from rumap.errors import InputError
from rumap.risk import individual as memory
from rumap.scale.cluster import cluster_individual_risk, cluster_key_frequencies

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

KEYS = ["age", "region", "sex", "status"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


@pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)
@pytest.mark.parametrize("weight", [pytest.param(None, marks=pytest.mark.slow), "w"])
def test_a_local_cluster_gives_the_frequencies_and_risk_of_one_machine(files, client, weight):
    path, frame = files
    found = cluster_key_frequencies(path, KEYS, weight=weight, scheduler=client)
    fk, Fk = memory.key_frequencies_with_missing(frame, KEYS, None if weight is None else frame[weight].to_numpy())
    rows = found.rows
    # each record's frequencies, as the multiset over records of the distinct rows' frequencies
    np.testing.assert_array_equal(np.sort(np.repeat(rows["fk"], rows["count"])), np.sort(fk))
    np.testing.assert_allclose(np.sort(np.repeat(rows["Fk"], rows["count"])), np.sort(Fk), rtol=1e-12)
    assert found.n == len(frame) == rows["count"].sum()
    result = cluster_individual_risk(path, KEYS, weight=weight, k=3, scheduler=client)
    expected = memory.individual_risk(frame, KEYS, weight=weight, k=3)
    assert result["k_anonymity_violations"] == expected.k_anonymity_violations
    assert result["expected_reidentifications"] == pytest.approx(expected.expected_reidentifications, rel=1e-12)
    assert result["global_risk"] == pytest.approx(expected.global_risk, rel=1e-12)
    assert result["max_risk"] == pytest.approx(expected.risk.max(), rel=1e-12)
    here = cluster_individual_risk(path, KEYS, weight=weight, k=3)  # Dask's threads on this machine
    assert {key: value for key, value in here.items() if key not in ("expected_reidentifications", "global_risk")} \
        == {key: value for key, value in result.items() if key not in ("expected_reidentifications", "global_risk")}
    assert here["expected_reidentifications"] == pytest.approx(result["expected_reidentifications"], rel=1e-12)


def test_an_unreachable_scheduler_and_a_missing_column_are_refused(tmp_path, monkeypatch):
    path = tmp_path / "keys.csv"
    path.write_text("a,b\nx,1\n")
    with pytest.raises(InputError, match="no column 'nope'"):
        cluster_key_frequencies(path, ["nope"])
    monkeypatch.setattr("rumap.scale.cluster._CONNECT_TIMEOUT", 0.5)
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        cluster_key_frequencies(path, ["a"], scheduler="tcp://127.0.0.1:9")


def test_each_record_s_weight_is_checked_not_its_class_total(tmp_path):
    path = tmp_path / "keys.csv"
    path.write_text("a,w\nx,0.5\nx,1.5\ny,2\n")  # the class x totals 2 weights over 2 records: one is below 1
    with pytest.raises(InputError, match="weight 'w' must be a number >= 1 in every record, 1 record"):
        cluster_key_frequencies(path, ["a"], weight="w")
    path.write_text("a,w\nx,1\nx,\ny,2\n")
    with pytest.raises(InputError, match="weight 'w' must be a number >= 1"):
        cluster_key_frequencies(path, ["a"], weight="w")
    path.write_text("a,w\nx,1\nx,1.5\n")
    assert cluster_key_frequencies(path, ["a"], weight="w").rows["weight"].tolist() == [2.5]


@pytest.mark.parametrize("files", ["parquet"], indirect=True)
def test_cli_risk_individual_on_the_cluster_by_its_address(files, client):
    from cli_helpers import assert_bad_input, run_cli

    path, frame = files
    keys = ",".join(KEYS)
    _proc, summary = run_cli("risk", "individual", "--data", path, "--keys", keys, "--weight", "w", "--k", "3",
                             "--scheduler", client.scheduler.address, "--json", check_json=True)
    expected = memory.individual_risk(frame, KEYS, weight="w", k=3)
    assert summary["n"] == len(frame) and summary["k_anonymity_violations"] == expected.k_anonymity_violations
    assert summary["expected_reidentifications"] == pytest.approx(expected.expected_reidentifications, rel=1e-12)
    _proc, summary = run_cli("risk", "individual", "--data", path, "--keys", keys, "--household", "hh",
                             "--sensitive", "income", "--chunk-size", "1000", "--scheduler", client.scheduler.address,
                             "--json", check_json=True)
    one = scale.individual_risk(scale.scan(path), KEYS, household="hh", sensitive="income", progress=False)
    assert (summary["l_diversity_min"], summary["l_diversity_one"], summary["households"]) \
        == (one.l_diversity_min, one.l_diversity_one, one.households)
    assert summary["household_expected_reidentifications"] == pytest.approx(
        one.household_expected_reidentifications, rel=1e-12)
    assert_bad_input(run_cli("risk", "individual", "--data", path, "--keys", keys, "--out", "x.parquet",
                             "--scheduler", client.scheduler.address), "--out", "--scheduler")
    assert_bad_input(run_cli("risk", "individual", "--data", path, "--keys", keys, "--merge", "sex:f,m=fm",
                             "--scheduler", client.scheduler.address), "--merge", "--scheduler")


@pytest.mark.parametrize("files", ["parquet", pytest.param("csv", marks=pytest.mark.slow)], indirect=True)
@pytest.mark.parametrize("weight", [pytest.param(None, marks=pytest.mark.slow), "w"])
def test_household_risk_and_l_diversity_on_a_local_cluster_equal_one_machine_s(files, client, weight):
    path, _frame = files
    found = cluster_individual_risk(path, KEYS, weight=weight, k=3, scheduler=client, household="hh",
                                    sensitive="income", chunk_size=700)  # households cross the ranges' bounds
    one = scale.individual_risk(scale.scan(path), KEYS, weight=weight, k=3, household="hh", sensitive="income",
                                progress=False).to_dict()
    for key in ("n", "distinct_rows", "k_anonymity_violations", "l_diversity_min", "l_diversity_one", "households"):
        assert found[key] == one[key], key
    assert found["l_diversity_one"] > 0 and found["l_diversity_min"] == 1
    for key in ("expected_reidentifications", "global_risk", "max_risk", "household_expected_reidentifications"):
        assert found[key] == pytest.approx(one[key], rel=1e-12), key
    here = cluster_individual_risk(path, KEYS, weight=weight, sensitive="income")  # this process, default ranges
    assert (here["l_diversity_min"], here["l_diversity_one"]) == (one["l_diversity_min"], one["l_diversity_one"])


def test_a_cluster_refuses_what_one_machine_refuses_with_the_same_line(tmp_path, client):
    path = tmp_path / "keys.csv"
    path.write_text("a,b,s,hh,w\nx,1,u,1,2\ny,2,v,,3\nx,2,u,2,0.5\n")
    one_machine = {}
    for options in ({"household": "hh"}, {"sensitive": "a"}, {"household": "nope"}, {"weight": "w"}):
        with pytest.raises(InputError) as expected:
            scale.individual_risk(scale.scan(path), ["a", "b"], progress=False, **options)
        with pytest.raises(InputError) as found:
            cluster_individual_risk(path, ["a", "b"], scheduler=client, chunk_size=1,
                                    **({"sensitive": "s"} if "weight" in options else {}), **options)
        one_machine[str(options)] = str(expected.value)
        assert str(found.value) == str(expected.value)
    assert "household 'hh' is missing in row 2" in one_machine[str({"household": "hh"})]
    assert "got 0.5 in row 3" in one_machine[str({"weight": "w"})]
