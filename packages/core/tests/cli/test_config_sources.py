"""Where the configs come from: core's folder, the repository's configs/ (found upwards from the
working directory, or ``$COEVO_CONFIG_DIR``) and each installed package's folder; base nodes are
inherited, never offered as a choice."""

from importlib import metadata

import pytest

from coevo.core.cli.config_defaults import defaults_of
from coevo.core.cli.config_sources import (
    compose_config,
    package_config_modules,
    preset_names,
    repository_config_dir,
    search_path,
)
from coevo.core.cli.schema import TrainerSettings


def test_each_installed_package_adds_its_folder():
    modules = {ep.value for ep in metadata.entry_points(group="coevo.configs")}
    assert package_config_modules() == sorted(modules - {"coevo.core.configs"})
    assert search_path("/nowhere")[1:] == [f"pkg://{m}" for m in package_config_modules()]


def test_the_repository_folder_is_found_upwards_or_named(tmp_path, monkeypatch):
    (tmp_path / "configs" / "experiment").mkdir(parents=True)
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.delenv("COEVO_CONFIG_DIR", raising=False)
    monkeypatch.chdir(tmp_path / "a" / "b")
    assert repository_config_dir() == str(tmp_path / "configs")
    monkeypatch.setenv("COEVO_CONFIG_DIR", str(tmp_path / "a"))
    assert repository_config_dir() == str(tmp_path / "a")
    monkeypatch.setenv("COEVO_CONFIG_DIR", str(tmp_path / "missing"))
    with pytest.raises(SystemExit, match="COEVO_CONFIG_DIR=.*missing is not a folder"):
        repository_config_dir()


def test_outside_any_repository_only_the_packages_are_searched(tmp_path, monkeypatch):
    monkeypatch.delenv("COEVO_CONFIG_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert repository_config_dir() is None
    assert search_path() == [f"pkg://{m}" for m in package_config_modules()]
    assert compose_config("train", ["env=boxes"]).algo.name == "grpo"  # core's own presets suffice


def test_base_nodes_are_inherited_not_offered():
    assert "cpu" in preset_names("trainer") and "base_trainer" not in preset_names("trainer")
    trainer = compose_config("train", ["env=boxes", "trainer=ddp_cpu"]).trainer
    defaults = defaults_of(TrainerSettings)
    assert trainer.collective_timeout == defaults["collective_timeout"]  # inherited from the dataclass
    assert (trainer.devices, trainer.strategy, trainer.max_steps) == (2, "ddp", 12)  # ddp_cpu over cpu
