"""The algorithm contract (``coevo.core.algorithm_contract``): checked when an algorithm registers,
naming what a class lacks; the optional capabilities are plain ``isinstance`` tests."""

from types import SimpleNamespace

import pytest

from coevo.core import registry
from coevo.core.algorithm_contract import (
    CLASS_MEMBERS,
    AlgorithmContractError,
    ExpertSourceProvider,
    HoldsPolicy,
    Records,
    SnapshotExtras,
    StepMetrics,
    check_algorithm,
)
from coevo.core.algos.grpo import GRPO
from coevo.core.algos.rollout_module import RolloutModule


class NoConfig(RolloutModule):
    """Everything RolloutModule gives, but no Config."""


class Bare:
    Config = object
    plays_async = False


def test_every_registered_algorithm_keeps_the_contract():
    for name in registry.algorithms.names():
        check_algorithm(name, registry.algorithms.get(name))


def test_a_class_is_refused_at_registration_naming_what_it_lacks():
    algorithms = registry.Registry("algorithm", check=check_algorithm)
    with pytest.raises(AlgorithmContractError, match=r"algorithm 'no_config' \(.*NoConfig\) lacks 'Config'"):
        algorithms.register("no_config")(NoConfig)
    with pytest.raises(AlgorithmContractError) as refused:
        algorithms.register("bare", Bare)
    assert "lacks 'full_weight_forwards', 'async_refusal', 'envs', 'record', 'full_policy'" in str(refused.value)
    assert algorithms._entries == {}  # nothing half-registered
    algorithms.register("grpo", GRPO)  # RolloutModule + Config: all of it
    assert set(CLASS_MEMBERS) <= set(dir(GRPO))


def test_a_lazily_registered_class_is_checked_on_first_use():
    algorithms = registry.Registry("algorithm", check=check_algorithm)
    algorithms.register("no_config", f"{__name__}:NoConfig")  # an import string: not imported yet
    with pytest.raises(AlgorithmContractError, match="lacks 'Config'"):
        algorithms.get("no_config")


def test_the_other_registries_check_nothing():
    assert registry.envs.check is None and registry.callbacks.check is None


def test_optional_capabilities_are_isinstance_tests():
    plain = SimpleNamespace()
    assert not isinstance(plain, Records | StepMetrics | HoldsPolicy | SnapshotExtras)
    assert isinstance(SimpleNamespace(record=print), Records)
    assert isinstance(SimpleNamespace(step_metrics={}), StepMetrics)
    assert isinstance(SimpleNamespace(policy=None), HoldsPolicy)
    assert not isinstance(SimpleNamespace(snapshot_extra=dict), SnapshotExtras)  # both halves or none
    assert isinstance(SimpleNamespace(snapshot_extra=dict, restore_extra=print), SnapshotExtras)
    assert not isinstance(GRPO, ExpertSourceProvider)  # the environment's expert warm-starts GRPO
