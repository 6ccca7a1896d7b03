"""Each recursive environment is registered, forkable, and its Hydra preset validates."""

import dataclasses
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.config import validate

NAMES = ["longctx", "algebra", "craft", "maze"]
PRESETS = Path(__file__).resolve().parents[4] / "configs" / "env"


@pytest.mark.parametrize("name", NAMES)
def test_registered_forkable_and_the_preset_matches_the_config(name):
    cls = registry.envs.get(name)
    assert cls.name == name and cls.forkable
    node = OmegaConf.load(PRESETS / f"{name}.yaml")
    assert node.pop("name") == name
    config = validate(node, cls.Config, "env")
    assert config == cls.Config()  # the preset spells out the defaults
    assert {f.name for f in dataclasses.fields(cls.Config)} == set(node)
    env = cls(config)
    assert env.reset(env.task("train", 0))
