"""Each recursive environment is registered by coevo-envs' plugin, forkable, and its Hydra preset
composes to exactly its Config's defaults (the preset inherits them: one source of defaults).

The plugin's ``register()`` runs into a fresh registry, without entry-point discovery (which would
import every installed coevo package); ``tests/test_plugin.py`` covers discovery itself.
"""

import dataclasses

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli.config_sources import compose_config
from coevo.core.config import validate
from coevo.envs import plugin

NAMES = ["longctx", "algebra", "craft", "maze"]


@pytest.fixture
def envs(monkeypatch) -> registry.Registry:
    fresh = registry.Registry("env")
    monkeypatch.setattr(registry, "envs", fresh)
    monkeypatch.setattr(registry, "_discovered", True)
    plugin.register()
    return fresh


@pytest.mark.parametrize("name", NAMES)
def test_registered_and_forkable(envs, name):
    cls = envs.get(name)
    assert cls.name == name and cls.forkable
    assert {f.type for f in dataclasses.fields(cls.Config)} <= {"int", "float", "bool", "str", "list[str]"}
    env = cls(cls.Config())
    assert env.reset(env.task("train", 0))


@pytest.mark.parametrize("name", NAMES)
def test_the_preset_composes_to_the_configs_defaults(name):
    node = OmegaConf.to_container(compose_config("train", [f"env={name}"]).env)
    assert node.pop("name") == name
    cls = registry.envs.get(name)
    assert validate(node, cls.Config, "env") == cls.Config()
    assert {f.name for f in dataclasses.fields(cls.Config)} == set(node)  # every key overridable


@pytest.mark.parametrize("name", NAMES)
def test_knobs_are_overridable_like_the_command_line(envs, name):
    cls = envs.get(name)
    knob = {"longctx": "num_chunks", "algebra": "depth", "craft": "depth", "maze": "size"}[name]
    config = validate(OmegaConf.from_dotlist([f"{knob}=5", f"ood_{knob}=11"]), cls.Config, "env")
    assert getattr(config, knob) == 5 and getattr(config, f"ood_{knob}") == 11
