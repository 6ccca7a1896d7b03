"""The alfworld environment on real games: loading, the expert, inadmissible commands,
admissible commands, snapshot/restore, task types, the step limit and the memory line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coevo.core import registry
from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.envs.alfworld.env import AlfworldEnv

# (split, index) of quick games, one per task type (the planner takes 0.05-2 s a step on kitchens)
EXPERT_GAMES = [
    ("eval_in_distribution", 0),  # pick_and_place_simple
    ("eval_in_distribution", 2),  # look_at_obj_in_light
    ("eval_in_distribution", 4),  # pick_heat_then_place_in_recep
    ("train", 9),  # pick_clean_then_place_in_recep
    ("train", 13),  # pick_two_obj_and_place
    ("train", 17),  # pick_cool_then_place_in_recep
]


def test_registered_and_built_from_the_preset(data_root):
    assert registry.envs.get("alfworld") is AlfworldEnv
    pytest.importorskip("textworld", reason="the ALFWorld engine is not installed: pip install 'coevo-envs[alfworld]'")
    env_cls, config, make_env = env_factory(compose_config("train", ["env=alfworld"]).env)
    env = make_env()
    assert env_cls is AlfworldEnv and config.max_steps == env.max_steps == 50
    assert env.num_tasks("eval_in_distribution") == 140 and env.num_tasks("train") == 200
    with pytest.raises(ValueError, match="valid_unseen"):
        env.num_tasks("eval_out_of_distribution")


@pytest.mark.parametrize("split,index", [("eval_in_distribution", 1), ("train", 0), ("train", 3)])
def test_real_games_load(alfworld_env, split, index):
    task = alfworld_env.task(split, index)
    observation = alfworld_env.reset(task)
    assert observation.startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.")
    assert observation.endswith(f"Your task is to: {alfworld_env.goal}.")
    assert alfworld_env.goal and task.task_id == f"alfworld/{split}/{index}"
    assert alfworld_env.memory().startswith("seen: nothing; unexplored: ")


def test_task_types_match_traj_data(alfworld_env):
    for split in ("train", "eval_in_distribution"):
        for index in range(alfworld_env.num_tasks(split)):
            task = alfworld_env.task(split, index)
            traj = json.loads((Path(alfworld_env.game(task).path).parent / "traj_data.json").read_text())
            assert task.task_type == traj["task_type"]
    assert [alfworld_env.task("train", i).task_type for i in range(6)] == list(AlfworldEnv.task_types)


@pytest.mark.parametrize("split,index", EXPERT_GAMES)
def test_expert_plans_win(alfworld_env, play_expert, split, index):
    task = alfworld_env.task(split, index)
    result, commands = play_expert(alfworld_env, task)
    assert result.won and result.done and result.reward == 1.0, (task, commands)
    assert alfworld_env.expert_action() is None  # the episode is over
    after = alfworld_env.step("look")
    assert after.done and after.invalid and after.observation == "Nothing happens."


def test_inadmissible_command_changes_nothing(alfworld_env):
    alfworld_env.reset(alfworld_env.task("eval_in_distribution", 0))
    before = (alfworld_env.admissible_actions(), alfworld_env.memory())
    for command in ("jump over the moon", "go to fridge 99", "take apple 1 from the moon", ""):
        result = alfworld_env.step(command)
        assert result.observation == "Nothing happens." and result.invalid and not result.done
        assert result.reward == 0.0
    assert (alfworld_env.admissible_actions(), alfworld_env.memory()) == before
    assert alfworld_env.steps_taken == 4  # inadmissible commands count as steps, as in ALFWorld
    admissible = alfworld_env.step("  Go   TO " + before[0][0].removeprefix("go to ").upper())
    assert not admissible.invalid  # commands are lower-cased and spaces collapsed


def test_admissible_commands_are_listed(alfworld_env):
    observation = alfworld_env.reset(alfworld_env.task("eval_in_distribution", 0))
    commands = alfworld_env.admissible_actions()
    assert commands == sorted(commands) and {"look", "inventory"} <= set(commands)
    overview = observation.split("you see ", 1)[1].split(".\n")[0]
    receptacles = [item.removeprefix("and ").removeprefix("a ") for item in overview.split(", ")]
    assert {f"go to {r}" for r in receptacles} == {c for c in commands if c.startswith("go to ")}
    alfworld_env.step(alfworld_env.expert_action())  # go to the object's receptacle
    commands = alfworld_env.admissible_actions()
    assert any(c.startswith("take ") for c in commands) and any(c.startswith("examine ") for c in commands)
    for command in commands:  # every listed command is accepted
        assert command in alfworld_env.admissible_actions()


def test_snapshot_restore_replays_the_same_state(alfworld_env):
    task = alfworld_env.task("eval_in_distribution", 4)  # heat: go, take, go, heat, go, put
    alfworld_env.reset(task)
    for _ in range(2):
        alfworld_env.step(alfworld_env.expert_action())
    alfworld_env.step("jump")  # an inadmissible step counts too
    snapshot = alfworld_env.snapshot()
    state = (alfworld_env.admissible_actions(), alfworld_env.memory(), alfworld_env.steps_taken, alfworld_env.goal)
    rest = []
    for _ in range(2):
        action = alfworld_env.expert_action()
        rest.append((action, alfworld_env.step(action).observation, alfworld_env.admissible_actions()))

    alfworld_env.restore(snapshot)  # replay from the initial state
    assert (alfworld_env.admissible_actions(), alfworld_env.memory(), alfworld_env.steps_taken, alfworld_env.goal) == state
    replayed = []
    for action, _, _ in rest:
        replayed.append((action, alfworld_env.step(action).observation, alfworld_env.admissible_actions()))
    assert replayed == rest

    alfworld_env.reset(alfworld_env.task("train", 0))  # another game in between
    alfworld_env.restore(snapshot)
    assert (alfworld_env.admissible_actions(), alfworld_env.memory(), alfworld_env.steps_taken, alfworld_env.goal) == state
    alfworld_env.restore(snapshot)  # restoring the current state again is a no-op
    assert alfworld_env.expert_action() == rest[0][0]


def test_step_limit_ends_the_episode(data_root):
    pytest.importorskip("textworld", reason="the ALFWorld engine is not installed: pip install 'coevo-envs[alfworld]'")
    env = AlfworldEnv(AlfworldEnv.Config(max_steps=2))
    try:
        env.reset(env.task("eval_in_distribution", 0))
        assert not env.step("look").done
        last = env.step("inventory")
        assert last.done and not last.won and last.reward == 0.0
    finally:
        env.close()


def test_memory_line_comes_from_observations(alfworld_env):
    alfworld_env.reset(alfworld_env.task("eval_in_distribution", 4))  # heat some apple ...
    go = alfworld_env.step(alfworld_env.expert_action())  # go to diningtable 2
    take = alfworld_env.step(alfworld_env.expert_action())  # take apple 1 from diningtable 2
    receptacle = go.observation.split("On the ", 1)[1].split(",", 1)[0]
    held = take.observation.removeprefix("You pick up the ").split(" from ", 1)[0]
    memory = alfworld_env.memory()
    assert memory.startswith(f"seen: {receptacle} (") and memory.endswith(f"; holding: {held}")
    assert "unexplored: " in memory and receptacle not in memory.split("unexplored: ")[1]
    alfworld_env.step(alfworld_env.expert_action())  # go to microwave 1
    alfworld_env.step(alfworld_env.expert_action())  # heat apple 1 with microwave 1
    assert alfworld_env.memory().endswith(f"holding: {held} (hot)")


def test_a_closed_environment_hands_its_engine_on(data_root):
    pytest.importorskip("textworld", reason="the ALFWorld engine is not installed: pip install 'coevo-envs[alfworld]'")
    from coevo.envs.alfworld import engine

    first = AlfworldEnv()
    first.reset(first.task("eval_in_distribution", 0))
    idle = len(engine._IDLE)
    first.close()
    assert len(engine._IDLE) == idle + 1
    second = AlfworldEnv()
    task = second.task("train", 2)
    observation = second.reset(task)  # the engine of `first`, now playing another game
    assert len(engine._IDLE) == idle and second.goal in observation
    result, _ = _play(second)
    assert result.won
    second.close()


def _play(env, limit: int = 30):
    result = None
    for _ in range(limit):
        result = env.step(env.expert_action())
        if result.done:
            break
    return result, env.steps_taken
