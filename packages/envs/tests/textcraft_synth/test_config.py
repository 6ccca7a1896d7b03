"""Bad config values fail with one line naming the key; the preset composes to the Config's defaults."""

from __future__ import annotations

import dataclasses

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli.config_sources import compose_config
from coevo.core.config import ConfigError, build_component, validate


@pytest.mark.parametrize(("values", "key", "fix"), [
    ({"band": "deep"}, "env.band", "choose one of ['easy', 'medium', 'hard', 'extreme']"),
    ({"ood_band": "impossible"}, "env.ood_band", "choose one of"),
    ({"band": "hard", "ood_band": "medium"}, "env.ood_band", "deeper than env.band='hard' (depths 7-9), one of ['extreme']"),
    ({"band": "extreme", "ood_band": "extreme"}, "env.ood_band", "choose a shallower env.band"),
    ({"max_steps": 2}, "env.max_steps", "must be in [3, 1000]"),  # below the shallowest plan of any task
    ({"commands_per_step": 0}, "env.commands_per_step", "must be in [1, 64]"),
    ({"items_per_tier": 5}, "env.items_per_tier", "must be in [6, 100]"),
    ({"test_fraction": 1.0}, "env.test_fraction", "must be in (0, 1)"),
    ({"eval_out_of_distribution_size": 0}, "env.eval_out_of_distribution_size", "must be >= 1"),
])
def test_bad_values_give_one_clear_error_naming_the_key(values, key, fix):
    with pytest.raises(ConfigError) as info:
        build_component(registry.envs, {"name": "textcraft_synth", **values}, "env")
    message = str(info.value)
    assert key in message and fix in message and "\n" not in message


def test_the_preset_composes_to_the_configs_defaults():
    node = OmegaConf.to_container(compose_config("train", ["env=textcraft_synth"]).env)
    assert node.pop("name") == "textcraft_synth"
    cls = registry.envs.get("textcraft_synth")
    assert validate(node, cls.Config, "env") == cls.Config()
    assert {f.name for f in dataclasses.fields(cls.Config)} == set(node)


def test_the_bands_are_overridable_like_the_command_line():
    cls = registry.envs.get("textcraft_synth")
    config = validate(OmegaConf.from_dotlist(["band=easy", "ood_band=extreme"]), cls.Config, "env")
    env = cls(config)
    assert (env.band_of("train").name, env.band_of("eval_out_of_distribution").name) == ("easy", "extreme")


def test_the_shallowest_plan_of_any_task_is_the_budgets_floor():
    """env.max_steps >= 3: the flat expert's shortest plan over every easy target (the shallowest band) is 3 steps."""
    from coevo.envs.textcraft_synth.bands import BANDS
    from coevo.envs.textcraft_synth.env import TextCraftSynthEnv
    from coevo.envs.textcraft_synth.expert import expert_steps
    from coevo.envs.textcraft_synth.planner import base_need

    world = TextCraftSynthEnv().world
    easy = BANDS["easy"]
    plans = [expert_steps(world.recipes, item, 1, base_need(world.recipes, item, 1), 8)
             for tier in range(easy.low, easy.high + 1) for item in world.tiers[tier]]
    assert min(plans) == 3
    build_component(registry.envs, {"name": "textcraft_synth", "max_steps": min(plans)}, "env")
    with pytest.raises(ConfigError, match="env.max_steps"):
        build_component(registry.envs, {"name": "textcraft_synth", "max_steps": min(plans) - 1}, "env")
