"""Startup validation of λ, κ, ω_max and friends, and every algorithm name composes from its preset."""

import pytest

from coevo.core import registry
from coevo.core.config import ConfigError, build_component
from coevo.rsipo.config import RSIPOConfig, TrustSettings


@pytest.mark.parametrize("override, message", [
    ({"opsd_coef": -0.1}, "opsd_coef"),
    ({"opsd_coef": float("inf")}, "opsd_coef"),
    ({"trust": {"kappa": -1.0}}, "kappa"),
    ({"trust": {"omega_max": 0.5}}, "omega_max"),
    ({"trust": {"omega_max": float("nan")}}, "omega_max"),
    ({"trust": {"type_decay": 0.0}}, "type_decay"),
    ({"replay_fraction": 1.0}, "replay_fraction"),
    ({"updates_per_batch": 2}, "updates_per_batch"),
    ({"group_size": 1}, "group_size"),
    ({"skill": {"source": "oracle"}}, "skill.source"),
    ({"skill": {"temperature": 0.0}}, "temperature"),
    ({"dynamic_sampling": {"enabled": True}}, "algo.dynamic_sampling.enabled: RSIPO plays its own groups"),
])
def test_bad_values_fail_at_startup(override, message):
    with pytest.raises(ConfigError, match=message):
        build_component(registry.algorithms, {"name": "rsipo", **override}, "algo")


def test_derived_switches():
    c = RSIPOConfig()
    assert c.skill_loss and c.needs_replay and c.needs_skills
    no_evolution = RSIPOConfig(skill_evolution=False)
    assert not no_evolution.skill_loss and no_evolution.needs_replay  # replay still gives ω
    static_trust = RSIPOConfig(dynamic_trust=False, skill_evolution=False)
    assert not static_trust.needs_replay
    assert TrustSettings().kappa == 1.0 and TrustSettings().omega_max == 2.0


@pytest.mark.parametrize("algo, expected", [
    ("rsipo", {"rlvr": True, "dynamic_trust": True, "skill_evolution": True}),
    ("opsd", {"rlvr": False, "dynamic_trust": False}),
    ("grpo_opsd", {"rlvr": True, "dynamic_trust": False}),
    ("skill_grpo", {"student_skills": True, "opsd_coef": 0.0}),
])
def test_presets_compose(compose_train, algo, expected):
    cfg = compose_train(algo)
    _, config = build_component(registry.algorithms, cfg.algo, "algo")
    for key, value in expected.items():
        assert getattr(config, key) == value
    if algo != "rsipo":
        assert config.skill.source == "library"


def test_ablations_compose(compose_train):
    _, c = build_component(registry.algorithms, compose_train("rsipo", "algo.dynamic_trust=false").algo, "algo")
    assert not c.dynamic_trust and c.skill_loss
    _, c = build_component(registry.algorithms, compose_train("rsipo", "algo.skill_evolution=false").algo, "algo")
    assert not c.skill_loss and c.needs_replay
