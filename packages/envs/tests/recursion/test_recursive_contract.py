"""What the RAO package relies on, checked the same way on all four recursive environments."""

import pytest

from coevo.core.env.protocol import ForkError
from coevo.envs.algebra.env import AlgebraEnv
from coevo.envs.craft.env import CraftEnv
from coevo.envs.expert_play import play_expert
from coevo.envs.longctx.env import LongCtxEnv
from coevo.envs.maze.env import MazeEnv
from coevo.envs.textcraft_synth.env import TextCraftSynthEnv

ENVS = [LongCtxEnv, AlgebraEnv, CraftEnv, MazeEnv, TextCraftSynthEnv]
SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _tasks(env, per_split=6):
    return [env.task(split, i) for split in SPLITS for i in range(per_split)]


def _play_first_only(env, level=0):
    """The oracle when only one child may be launched at a time (RAO's max_children=1)."""
    while not env.done:
        goals = env.expert_delegations()
        if goals:
            child, _ = env.fork(goals[0])
            _play_first_only(child, level + 1)
            env.join(child)
        else:
            env.step(env.expert_action())
    return env.won


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
def test_the_oracle_wins_with_one_child_at_a_time_and_under_a_depth_cap(cls):
    env = cls()
    for task in _tasks(env):
        env.reset(task)
        assert _play_first_only(env), task.task_id
        capped = play_expert(env, task, max_depth=1)
        assert capped.won and capped.depth <= 1, task.task_id


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
def test_every_suggested_subgoal_forks_and_every_expert_action_is_admissible_and_parses(cls):
    env = cls()
    for task in _tasks(env, per_split=3):
        nodes = [env]
        env.reset(task)
        while nodes:
            node = nodes.pop()
            assert node.forkable and node.goal_verifiable
            while not node.done:
                action = node.expert_action()
                assert action is not None
                assert node.parse_action(node.format_action(action)) == action
                if not node.free_form_actions:
                    assert action in node.admissible_actions()
                goals = node.expert_delegations()
                if not goals:
                    assert not node.step(action).invalid
                    continue
                for goal in goals:
                    child, first = node.fork(goal)
                    assert child.goal == goal and goal in first and not child.done
                    play_expert(child)
                    assert child.won
                    won_before = node.won
                    assert isinstance(node.join(child), str)
                    assert node.won == won_before  # a join never wins the parent's episode
            assert node.won


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
def test_a_finished_episode_refuses_steps_and_forks(cls):
    env = cls()
    play_expert(env, env.task("train", 0))
    result = env.step(env.admissible_actions()[0] if env.admissible_actions() else "x")
    assert result.done and result.invalid and not result.won
    assert env.expert_action() is None and env.expert_delegations() == []
    with pytest.raises(ForkError, match="episode is over"):
        env.fork("anything")


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
def test_unstarted_environments_say_so(cls):
    env = cls()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step("x")
    with pytest.raises(RuntimeError, match="call reset"):
        env.fork("x")


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
def test_reset_after_play_is_the_same_initial_state(cls):
    env = cls()
    task = env.task("eval_in_distribution", 1)
    first = env.reset(task)
    start = env.snapshot()
    play_expert(env, task)
    assert env.reset(task) == first and env.snapshot() == start


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
def test_malformed_goals_name_the_grammar(cls):
    env = cls()
    env.reset(env.task("train", 0))
    with pytest.raises(ForkError) as error:
        env.fork("?!")
    assert "expected" in str(error.value) or "unknown" in str(error.value)
    assert cls.goal_grammar.startswith("'")
