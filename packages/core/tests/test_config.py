"""Config validation against component ``Config`` dataclasses: one clear message naming the key."""

from __future__ import annotations

import importlib.util

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.agent.loop import AgentSettings
from coevo.core.algos.grpo import GRPOConfig
from coevo.core.config import ConfigError, build_component, validate
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def test_validate_builds_the_dataclass_with_overrides_and_defaults():
    config = validate({"num_boxes": 5}, BoxesConfig, "env")
    assert config == BoxesConfig(num_boxes=5, max_steps=4, eval_size=12, seed=0)
    assert validate(None, BoxesConfig, "env") == BoxesConfig()
    assert validate(OmegaConf.create({"seed": 7}), BoxesConfig, "env").seed == 7


def test_validate_converts_strings_of_the_right_type():
    assert validate({"num_boxes": "4"}, BoxesConfig, "env").num_boxes == 4  # OmegaConf converts "4" → 4


def test_unknown_key_names_the_full_key_and_lists_valid_keys():
    with pytest.raises(ConfigError) as info:
        validate({"num_boxez": 3}, BoxesConfig, "env")
    message = str(info.value)
    assert "'env.num_boxez'" in message
    assert "['num_boxes', 'max_steps', 'eval_size', 'seed']" in message


def test_wrong_type_names_the_key():
    with pytest.raises(ConfigError) as info:
        validate({"num_boxes": "abc"}, BoxesConfig, "env")
    message = str(info.value)
    assert "'env.num_boxes'" in message
    assert "abc" in message


def test_nested_wrong_type_names_the_full_nested_key():
    with pytest.raises(ConfigError, match=r"'agent\.sampling\.temperature'"):
        validate({"sampling": {"temperature": "hot"}}, AgentSettings, "agent")


def test_nested_unknown_key_names_the_full_nested_key():
    with pytest.raises(ConfigError, match=r"'agent\.prompt\.histroy_turns'"):
        validate({"prompt": {"histroy_turns": 2}}, AgentSettings, "agent")


def test_nested_unknown_key_lists_the_keys_of_the_nested_node():
    with pytest.raises(ConfigError) as info:
        validate({"prompt": {"histroy_turns": 2}}, AgentSettings, "agent")
    assert "history_turns" in str(info.value)  # the key the user meant to type


def test_post_init_value_error_surfaces_as_config_error_naming_the_key():
    with pytest.raises(ConfigError) as info:
        validate({"mode": "xyz"}, AgentSettings, "agent")
    assert "agent.mode" in str(info.value)
    assert "xyz" in str(info.value)
    with pytest.raises(ConfigError, match=r"algo\.group_size"):
        validate({"group_size": 1}, GRPOConfig, "algo")
    with pytest.raises(ConfigError, match=r"algo\.loss_aggregation"):
        validate({"loss_aggregation": "median"}, GRPOConfig, "algo")


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


def test_build_component_returns_class_and_validated_config():
    cls, config = build_component(registry.envs, {"name": "boxes", "num_boxes": 5}, "env")
    assert cls is BoxesEnv
    assert config == BoxesConfig(num_boxes=5)  # "name" is the selector, not a BoxesConfig field


def test_build_component_keeps_name_when_the_schema_has_it():
    cls, config = build_component(registry.algorithms, {"name": "grpo", "group_size": 4}, "algo")
    assert cls.Config is GRPOConfig
    assert (config.name, config.group_size) == ("grpo", 4)


def test_build_component_unknown_name_lists_installed():
    with pytest.raises(ConfigError) as info:
        build_component(registry.envs, {"name": "boxez"}, "env")
    message = str(info.value)
    assert "'env.name'" in message
    assert "unknown env 'boxez'" in message
    assert "'boxes'" in message  # installed names are listed


@pytest.mark.skipif(importlib.util.find_spec("coevo.rsipo") is not None,
                    reason="coevo-rsipo is installed here (the hint is for a missing plugin)")
def test_build_component_hinted_name_names_the_package():
    with pytest.raises(ConfigError, match="pip install coevo-rsipo"):
        build_component(registry.algorithms, {"name": "rsipo"}, "algo")


def test_build_component_missing_name():
    with pytest.raises(ConfigError) as info:
        build_component(registry.envs, {}, "env")
    assert "'env.name'" in str(info.value) and "missing" in str(info.value)
    assert "boxes" in str(info.value)


def test_build_component_unknown_key_names_the_full_key():
    with pytest.raises(ConfigError, match=r"'env\.num_boxez'"):
        build_component(registry.envs, OmegaConf.create({"name": "boxes", "num_boxez": 1}), "env")
