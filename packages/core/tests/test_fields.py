"""The field declarations of ``coevo.core.fields``, checked by ``validate``: hand-worked cases."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from coevo.core.config import ConfigError, validate
from coevo.core.fields import (
    Choice,
    Range,
    bounded,
    check_instance,
    checked,
    choice,
    free_text,
    path,
    random_seed,
    spec_of,
)


@dataclass
class Inner:
    rate: float = bounded(0.5, gt=0, le=1)
    names: list[str] = free_text(["a"], length=(1, None))


@dataclass
class Outer:
    steps: int = bounded(3, ge=1)
    mode: str = choice("fast", ("fast", "slow"))
    betas: list[float] = bounded([0.9, 0.99], ge=0, lt=1, length=2)
    folder: str = path("out")
    data: str = path("", empty="the generator")
    label: str = free_text("hello")
    devices: Any = checked(1, lambda v: v == "auto" or (isinstance(v, int) and v >= 1), "an integer >= 1 or 'auto'")
    limit: int | None = bounded(None, ge=0)
    seed: int = random_seed(0)
    inner: Inner = field(default_factory=Inner)


def _refused(node: dict) -> str:
    with pytest.raises(ConfigError) as info:
        validate(node, Outer, "x")
    return str(info.value)


def test_defaults_and_values_inside_the_ranges_are_accepted():
    assert validate({}, Outer, "x") == Outer()
    config = validate({"steps": 1, "inner": {"rate": 1.0}, "betas": [0.0, 0.999], "limit": 0, "devices": "auto"},
                      Outer, "x")
    assert (config.steps, config.inner.rate, config.betas, config.limit, config.devices) == (1, 1.0, [0.0, 0.999], 0,
                                                                                            "auto")


def test_a_value_outside_a_range_names_the_key_the_value_the_range_and_the_default():
    # steps >= 1: 0 is just outside
    assert _refused({"steps": 0}) == "config error at 'x.steps': must be >= 1, got 0 (default: 3)"
    # rate in (0, 1]: 0 is outside (open bound), 1.0000001 is outside (closed bound)
    assert _refused({"inner": {"rate": 0.0}}) == "config error at 'x.inner.rate': must be in (0, 1], got 0.0 (default: 0.5)"
    assert "'x.inner.rate'" in _refused({"inner": {"rate": 1.0000001}})


def test_nan_and_infinity_are_out_of_every_range():
    assert "got nan" in _refused({"inner": {"rate": float("nan")}})
    assert "got inf" in _refused({"betas": [0.9, float("inf")]})


def test_a_bogus_choice_names_the_choices():
    assert _refused({"mode": "medium"}) == "config error at 'x.mode': unknown 'medium'; choose one of ['fast', 'slow']"


def test_list_items_and_length():
    assert _refused({"betas": [0.9, 1.0]}) == ("config error at 'x.betas': item 1: must be in [0, 1), got 1.0 "
                                               "(default: [0.9, 0.99])")
    assert "must hold exactly 2 items, got 1" in _refused({"betas": [0.9]})
    assert "must hold at least 1 items, got 0" in _refused({"inner": {"names": []}})


def test_paths_are_path_shaped_and_empty_only_where_declared():
    assert "an empty string" in _refused({"folder": ""})
    assert validate({"data": ""}, Outer, "x").data == ""  # empty means "the generator"
    assert "NUL byte or a line break" in _refused({"folder": "a\nb"})


def test_a_validator_names_what_it_accepts():
    assert _refused({"devices": 0}) == "config error at 'x.devices': 0 is not an integer >= 1 or 'auto' (default: 1)"


def test_none_is_allowed_where_the_type_allows_it_and_refused_elsewhere():
    assert validate({"limit": None}, Outer, "x").limit is None
    assert "'x.steps'" in _refused({"steps": None})  # OmegaConf: not Optional


def test_seeds_are_unsigned_32_bit():
    assert "'x.seed'" in _refused({"seed": -1})
    assert "'x.seed'" in _refused({"seed": 2**32})
    assert validate({"seed": 2**32 - 1}, Outer, "x").seed == 2**32 - 1


def test_the_first_bad_key_is_reported_in_one_line():
    message = _refused({"steps": 0, "mode": "medium"})
    assert "\n" not in message and "'x.steps'" in message


def test_root_schemas_name_keys_without_a_prefix():
    from coevo.core.cli.schema import TrainSchema

    with pytest.raises(ConfigError, match=r"^config error at 'trainer\.max_steps': must be >= 1, got 0"):
        validate({"trainer": {"max_steps": 0}}, TrainSchema, "train")


def test_check_instance_checks_a_directly_built_dataclass():
    check_instance(Outer(), "x")
    with pytest.raises(ValueError, match=r"^x\.steps: must be >= 1, got 0"):
        check_instance(Outer(steps=0), "x")


def test_range_examples_are_just_outside_and_just_inside():
    spec = Range(ge=1)
    assert spec.outside(integer=True) == [0] and spec.inside(integer=True) == [1]
    spec = Range(gt=0, le=1)
    assert spec.outside(integer=False)[1:] == [0, 1 + 1e-6]
    assert spec.inside(integer=False) == [1e-6, 1]
    assert spec_of(Outer.__dataclass_fields__["mode"]) == Choice(("fast", "slow"))


def test_bounded_refuses_two_lower_bounds():
    with pytest.raises(TypeError):
        bounded(1, ge=0, gt=0)


def test_the_walker_reports_an_undeclared_field_and_an_unenforced_declaration():
    from coevo.core.testing.field_walk import field_problems

    @dataclass
    class Loose:
        count: int = 3  # no declaration
        flag: bool = False  # booleans need none
        mode: Any = checked("a", lambda v: True, "anything", bad=("b",))  # claims to refuse "b" but accepts it

    assert field_problems(Loose, "y") == ["y.count: no declared range, choices or validator",
                                          "y.mode='b': accepted, but the declaration refuses it"]
    assert field_problems(Outer, "x") == []


def test_a_subclass_that_only_changes_a_default_keeps_the_declaration():
    @dataclass
    class Faster(Outer):
        steps: int = 5  # a new default, no new declaration

    assert validate({}, Faster, "x").steps == 5
    with pytest.raises(ConfigError, match=r"'x\.steps': must be >= 1, got 0"):
        validate({"steps": 0}, Faster, "x")
