"""Declared parameters: every algorithm's Params carries limits and help, and validation is strict."""
import dataclasses
import math

import pytest

import solvers
from solvers.errors import ConfigError
from solvers.params import MAX_WALKERS, make_params, param, specs


@dataclasses.dataclass(frozen=True)
class DemoParams:
    walkers: int = param(10, lo=1, hi=100, step=1, title="Walkers", tip="how many")
    rate: float = param(0.5, lo=0.0, hi=1.0, step=0.1, title="Rate", tip="a rate", live=True)
    flag: bool = param(False, title="Flag", tip="a switch")
    mode: str = param("a", choices=("a", "b"), title="Mode", tip="a choice")


def test_specs_read_metadata_in_order():
    s = specs(DemoParams)
    assert [p.name for p in s] == ["walkers", "rate", "flag", "mode"]
    assert s[0].kind is int and s[1].kind is float and s[2].kind is bool and s[3].kind is str
    assert s[1].live and not s[0].live
    assert s[3].choices == ("a", "b")


@pytest.mark.parametrize("values, expected", [
    ({"walkers": "12"}, {"walkers": 12}),
    ({"walkers": 12.0}, {"walkers": 12}),
    ({"rate": "0.25"}, {"rate": 0.25}),
    ({"flag": "yes"}, {"flag": True}),
    ({"flag": "0"}, {"flag": False}),
    ({"mode": "b"}, {"mode": "b"}),
])
def test_make_params_coerces_good_values(values, expected):
    p = make_params(DemoParams, values)
    for k, v in expected.items():
        assert getattr(p, k) == v and type(getattr(p, k)) is type(v)


@pytest.mark.parametrize("values, fragment", [
    ({"walkers": 0}, "must be in [1, 100]"),
    ({"walkers": "2.5"}, "must be an integer"),
    ({"walkers": "ten"}, "must be an integer"),
    ({"walkers": True}, "must be an integer"),
    ({"rate": "nan"}, "finite"),
    ({"rate": math.inf}, "finite"),
    ({"rate": 1.5}, "must be in [0, 1]"),
    ({"flag": "maybe"}, "true or false"),
    ({"mode": "c"}, "one of a, b"),
    ({"nope": 1}, "unknown parameter 'nope'"),
])
def test_make_params_rejects_bad_values_with_one_line(values, fragment):
    with pytest.raises(ConfigError) as info:
        make_params(DemoParams, values)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", solvers.list_algorithms())
def test_every_algorithm_declares_complete_parameters(name):
    cls = solvers.get_algorithm(name)
    s = specs(cls.Params)
    assert "walkers" in [p.name for p in s], "the common population parameter is 'walkers'"
    assert next(p for p in s if p.name == "walkers").hi <= MAX_WALKERS, "the one walker limit"
    for p in s:
        assert p.title and p.tip, f"{name}.{p.name} needs a title and a tip"
        if p.kind in (int, float):
            assert p.lo is not None and p.hi is not None, p
            assert p.lo <= p.default <= p.hi or (p.auto and p.default == 0), p  # 0: "auto"
        if p.kind is str:
            assert p.choices and p.default in p.choices, p
    # every declared field is a parameter, and the defaults validate
    assert len(s) == len(dataclasses.fields(cls.Params))
    make_params(cls.Params, {})
    assert cls.reference and cls.title
