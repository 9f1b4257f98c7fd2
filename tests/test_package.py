"""The public API of ``rumap`` (rumap/__init__.py): every name imports lazily from the module that defines it."""

from __future__ import annotations

import importlib

import rumap


def test_every_public_name_of_the_package_resolves_to_its_defining_module():
    for name, module in rumap._EXPORTS.items():
        obj = getattr(rumap, name)
        assert obj is getattr(importlib.import_module(module), name)
        assert getattr(obj, "__module__", module) == module or not callable(obj), name
    assert sorted(rumap.__all__) == sorted(rumap._EXPORTS)
