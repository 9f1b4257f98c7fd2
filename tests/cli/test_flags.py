"""The command line's flag table and grid flags (rumap/cli/flags.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rumap.cli.flags import GRID_FLAGS, METHOD_FLAGS, parse_grid
from rumap.errors import InputError
from rumap.maps.methods import METHODS


def test_parse_grid():
    np.testing.assert_allclose(parse_grid("0:1:5"), [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_array_equal(parse_grid("2:5", "k", integer=True), [2, 3, 4, 5])
    np.testing.assert_array_equal(parse_grid("2:10:4", "k", integer=True), [2, 6, 10])
    for bad in ("1:0:3", "a:b:c", "0:1", "0:1:0"):
        with pytest.raises(InputError):
            parse_grid(bad)
    with pytest.raises(InputError, match="--swap-percent must have START <= STOP"):
        parse_grid("5:1:3", "swap_percent")


def test_every_grid_parameter_and_method_option_has_a_flag():
    assert {p for method in METHODS.values() for p in method.parameters} == set(GRID_FLAGS)
    for option, (flag, method) in METHOD_FLAGS.items():
        assert flag == "--" + option.replace("_", "-")
        assert option in METHODS[method].defaults


def test_a_grid_over_the_limit_is_refused_before_it_is_built(monkeypatch):
    def no_arange(*args, **kwargs):
        raise AssertionError("the grid was built")

    monkeypatch.setattr(np, "arange", no_arange)
    monkeypatch.setattr(np, "linspace", no_arange)
    with pytest.raises(InputError, match="the k grid has 100000000 values, over the limit"):
        parse_grid("1:100000000", "k", integer=True)
    with pytest.raises(InputError, match="the lambda2 grid has 100000 values"):
        parse_grid("0:1:100000", "lambda2")


@pytest.mark.parametrize("text", ["0:1:\u0661\u0660", "\uff10:1:5", "0:1:5.5"])
def test_grids_are_read_in_ascii_digits(text):
    with pytest.raises(InputError, match="ASCII digits"):
        parse_grid(text, "lambda2")


def test_a_number_flag_in_other_digits_is_one_line_and_exit_2(capsys):
    from rumap.cli import main

    assert main(["analytic", "--n", "\u0662\u0660", "--sigma2", "1", "--lambda2", "0:1:3", "--state", "record"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "argument --n: '\u0662\u0660' is not a number written in ASCII digits" in err[0]


def test_every_scoped_flag_is_refused_for_every_method_it_does_not_apply_to():
    import argparse

    from rumap.cli.flags import check_applies
    from rumap.cli.simulate import flag_scope
    from rumap.cli.simulate_ckm import TABLE_MAP_METHOD_NAMES
    from rumap.cli.simulate_dp import DP_TABLE_METHOD_NAMES
    from rumap.release.registry import CATEGORICAL_METHODS
    from rumap.synthesis import GENERATORS

    methods = [*METHODS, *CATEGORICAL_METHODS, *DP_TABLE_METHOD_NAMES, *TABLE_MAP_METHOD_NAMES, *GENERATORS]
    checked = 0
    for attr, (flag, scope) in flag_scope().items():
        assert scope and set(scope) <= set(methods), attr
        for method in methods:
            args = argparse.Namespace(**{attr: "1"})
            if method in scope:
                check_applies(args, flag_scope(), method)
            else:
                with pytest.raises(InputError, match=f"^{flag} applies to --method .*, not {method}$"):
                    check_applies(args, flag_scope(), method)
                checked += 1
    assert checked >= 60


@pytest.mark.parametrize("extra, message", [(["--target", "max"], "--target applies to --method"),
                                            (["--knowledge", "index"], "--knowledge applies"),
                                            (["--lambda2", "0:1:3"], "--lambda2 applies to --method noise, not pram"),
                                            (["--k", "2:3"], "--k applies to --method microaggregation or suppress")])
def test_simulate_refuses_a_flag_its_method_would_ignore(extra, message, capsys):
    from cli_helpers import ROOT

    from rumap.cli import main

    survey = next(p for p in (ROOT / "data" / "survey.csv", ROOT / "rumap" / "io" / "bundled" / "survey.csv")
                  if p.exists())
    code = main(["simulate", "--data", str(survey), "--method", "pram", "--keys", "sex,region", "--theta", "0.5:1:2",
                 "--replicates", "2", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0], err
