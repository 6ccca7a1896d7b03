"""The game index: data folder resolution, splits, task types and order (files only: no engine)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from coevo.core.cli.components import env_factory
from coevo.core.config import ConfigError
from coevo.envs.alfworld import engine
from coevo.envs.alfworld.games import ENV_VAR, resolve_data_dir, split_games
from coevo.envs.household.catalog import TASK_TYPES


def _trials(folder):
    return sorted(p.parent for p in folder.glob("*/*/traj_data.json"))


def test_splits_hold_every_solvable_game_of_their_folder(data_root):
    for split, folder in (("train", "train"), ("eval_in_distribution", "valid_seen")):
        games = split_games(data_root, split, TASK_TYPES)
        expected = [t for t in _trials(data_root / folder) if json.loads((t / "game.tw-pddl").read_text())["solvable"]]
        assert len(games) == len(expected) > 0
        assert sorted(g.name for g in games) == sorted(f"{t.parent.name}/{t.name}" for t in expected)
        assert all(g.path.endswith("game.tw-pddl") and str(data_root / folder) in g.path for g in games)


def test_task_types_come_from_traj_data(data_root):
    for split in ("train", "eval_in_distribution"):
        for game in split_games(data_root, split, TASK_TYPES):
            traj = json.loads((Path(game.path).parent / "traj_data.json").read_text())
            assert game.task_type == traj["task_type"]


def test_order_is_deterministic_and_round_robin_over_types(data_root):
    games = split_games(data_root, "eval_in_distribution", TASK_TYPES)
    assert [g.task_type for g in games[:6]] == list(TASK_TYPES)  # any prefix covers the types
    assert games == split_games(data_root, "eval_in_distribution", list(TASK_TYPES))
    counts = Counter(g.task_type for g in games)
    assert set(counts) == set(TASK_TYPES)
    for task_type in TASK_TYPES:  # within a type, sorted by folder name
        names = [g.name for g in games if g.task_type == task_type]
        assert names == sorted(names)


def test_task_type_filter(data_root):
    games = split_games(data_root, "train", ["pick_heat_then_place_in_recep", "look_at_obj_in_light"])
    assert {g.task_type for g in games} == {"pick_heat_then_place_in_recep", "look_at_obj_in_light"}
    assert [g.task_type for g in games[:2]] == ["look_at_obj_in_light", "pick_heat_then_place_in_recep"]


def test_data_folder_may_be_json_2_1_1_itself(data_root):
    assert resolve_data_dir(str(data_root.parent)) == data_root
    assert resolve_data_dir(str(data_root)) == data_root


def test_missing_data_folder_names_the_key_and_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(ValueError, match=r"env\.data_dir=.*ALFWORLD_DATA"):
        resolve_data_dir("")
    with pytest.raises(ValueError, match="does not exist"):
        resolve_data_dir(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="holds neither json_2.1.1"):
        resolve_data_dir(str(tmp_path))


def test_split_without_games_is_a_clear_error(data_root, tmp_path):
    with pytest.raises(ValueError, match=r"'eval_out_of_distribution' has no games: .*valid_unseen"):
        split_games(tmp_path, "eval_out_of_distribution", TASK_TYPES)
    with pytest.raises(ValueError, match="unknown split"):
        split_games(data_root, "test", TASK_TYPES)


def test_without_the_extra_env_alfworld_says_what_to_install(monkeypatch):
    real_find_spec = engine.importlib.util.find_spec
    monkeypatch.setattr(
        engine.importlib.util, "find_spec", lambda name: None if name == "alfworld" else real_find_spec(name)
    )
    with pytest.raises(engine.AlfworldNotInstalled, match=r"pip install 'coevo-envs\[alfworld\]'"):
        engine.require_alfworld()
    with pytest.raises(ConfigError, match=r"pip install 'coevo-envs\[alfworld\]'"):
        env_factory(OmegaConf.create({"name": "alfworld"}))


def test_importing_the_package_imports_no_alfworld():
    code = (
        "import sys, coevo.envs.plugin, coevo.envs.alfworld; "
        "loaded = [m for m in ('alfworld', 'textworld', 'fast_downward') if m in sys.modules]; "
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
