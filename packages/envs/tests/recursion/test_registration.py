"""Each recursive environment is registered by coevo-envs' plugin, forkable, and its Hydra preset
validates against its Config (spelling out the defaults).

The plugin's ``register()`` runs into a fresh registry, without entry-point discovery (which would
import every installed coevo package); ``tests/test_plugin.py`` covers discovery itself.
"""

import dataclasses
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.config import validate
from coevo.envs import plugin

NAMES = ["longctx", "algebra", "craft", "maze"]
PRESETS = Path(__file__).resolve().parents[4] / "configs" / "env"


@pytest.fixture
def envs(monkeypatch) -> registry.Registry:
    fresh = registry.Registry("env")
    monkeypatch.setattr(registry, "envs", fresh)
    monkeypatch.setattr(registry, "_discovered", True)
    plugin.register()
    return fresh


@pytest.mark.parametrize("name", NAMES)
def test_registered_forkable_and_the_preset_matches_the_config(envs, name):
    cls = envs.get(name)
    assert cls.name == name and cls.forkable
    node = OmegaConf.load(PRESETS / f"{name}.yaml")
    assert node.pop("name") == name
    config = validate(node, cls.Config, "env")
    assert config == cls.Config()
    assert {f.name for f in dataclasses.fields(cls.Config)} == set(node)
    assert {f.type for f in dataclasses.fields(cls.Config)} <= {"int", "float", "bool", "str", "list[str]"}
    env = cls(config)
    assert env.reset(env.task("train", 0))


@pytest.mark.parametrize("name", NAMES)
def test_knobs_are_overridable_like_the_command_line(envs, name):
    cls = envs.get(name)
    knob = {"longctx": "num_chunks", "algebra": "depth", "craft": "depth", "maze": "size"}[name]
    config = validate(OmegaConf.from_dotlist([f"{knob}=5", f"ood_{knob}=11"]), cls.Config, "env")
    assert getattr(config, knob) == 5 and getattr(config, f"ood_{knob}") == 11
