"""An optional package that is missing is bad input naming the extra that installs it."""

from __future__ import annotations

import sys

import pytest

from rumap.errors import InputError, optional_module


def test_installed_module_is_returned():
    assert optional_module("json", "writing JSON", "formats") is sys.modules["json"]


def test_missing_module_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(InputError, match=r"running on a cluster needs distributed, which is not installed: "
                                         r"pip install 'rumap\[dask\]'"):
        optional_module("distributed", "running on a cluster", "dask")


def test_simulation_on_a_cluster_without_dask(monkeypatch):
    import numpy as np

    from rumap.maps.simulation import SimulationConfig, simulate

    monkeypatch.setitem(sys.modules, "distributed", None)
    config = SimulationConfig(values=(0.5,), targets=("max",), replicates=4, seed=1)
    with pytest.raises(InputError, match=r"rumap\[dask\]"):
        simulate(np.arange(1.0, 31.0), config, client="tcp://127.0.0.1:1")
