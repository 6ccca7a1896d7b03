"""The maze environment: tasks, the size knob, moves, the oracle, fork and join."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.protocol import ForkError
from coevo.envs.expert_play import play_expert
from coevo.envs.maze.env import MazeEnv
from coevo.envs.maze.grid import Maze

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")
# 3x3 "S": (0,0)→(0,1)→(0,2)↓(1,2)→(1,1)→(1,0)↓(2,0)→(2,1)→(2,2): every cell in one line of 8 steps
S = Maze(3, frozenset({((0, 0), (0, 1)), ((0, 1), (0, 2)), ((0, 2), (1, 2)), ((1, 1), (1, 2)),
                       ((1, 0), (1, 1)), ((1, 0), (2, 0)), ((2, 0), (2, 1)), ((2, 1), (2, 2))}))


def _env(**knobs) -> MazeEnv:
    return MazeEnv(MazeEnv.Config(**knobs))


def _s(env: MazeEnv, max_steps: int = 0) -> MazeEnv:
    env.reset(env.task("train", 0))
    env._begin(S, (0, 0), (2, 2), max_steps=max_steps)
    return env


def test_same_task_same_maze():
    a, b = _env(), _env()
    for split in SPLITS:
        assert a.reset(a.task(split, 2)) == b.reset(b.task(split, 2))
        assert (a.maze, a.start, a.goal_cell) == (b.maze, b.start, b.goal_cell)
    assert a.reset(a.task("train", 0)) != a.reset(a.task("train", 1))


def test_size_knob_train_and_out_of_distribution():
    env = _env(size=5)
    env.reset(env.task("train", 0))
    assert env.maze.size == 5 and len(env.maze.passages) == 24
    env.reset(env.task("eval_out_of_distribution", 0))
    assert env.maze.size == 10
    env = _env(size=5, ood_size=7)
    env.reset(env.task("eval_out_of_distribution", 0))
    assert env.maze.size == 7
    with pytest.raises(ValueError, match="ood_size must be larger"):
        _env(size=5, ood_size=4)


def test_oracle_wins_every_task_on_the_shortest_route():
    env = _env()
    tasks = [env.task("train", i) for i in range(60)] + [env.task(s, i) for s in SPLITS[1:] for i in range(15)]
    for task in tasks:
        recursive = play_expert(env, task)
        shortest = env.maze.distances(env.start)[env.goal_cell]
        flat = play_expert(env, task, recursive=False)
        assert recursive.won and flat.won, task.task_id
        assert recursive.steps == flat.steps == shortest == env.steps_taken
        assert recursive.children_won == recursive.children > 0


def test_the_first_observation_and_moves():
    env = _s(_env())
    assert env.goal == "reach (2, 2)" and env.max_steps == 2 * 8 + 3
    assert env.admissible_actions() == ["go east"]
    result = env.step("go east")
    assert result.observation == "You are at (0, 1). Open: east, west." and not result.done
    for direction in ("east", "south", "west", "west", "south", "east"):
        env.step(f"go {direction}")
    result = env.step("go east")
    assert result.won and result.done and result.observation.endswith("You reached (2, 2).")
    first_text = _env().reset(_env().task("train", 0))
    assert "Map (# wall, . floor, @ you, X goal):" in first_text and "Goal: reach (" in first_text
    assert "Map" not in _env(show_map=False).reset(_env().task("train", 0))


@pytest.mark.parametrize(("action", "reason"), [("go south", "a wall blocks south at (0, 0)"),
                                                ("go up", "unknown command"), ("walk east", "unknown command")])
def test_invalid_moves_count_but_do_not_move(action, reason):
    env = _s(_env())
    result = env.step(action)
    assert result.invalid and reason in result.info["error"] and env.position == (0, 0) and env.steps_taken == 1


def test_running_out_of_steps():
    env = _s(_env(), max_steps=2)
    env.step("go east")
    result = env.step("go west")
    assert result.done and not result.won


def test_fork_starts_the_child_here_and_join_moves_the_parent():
    env = _s(_env())
    env.step("go east")
    assert env.expert_delegations() == ["reach (1, 0)"]  # 7 steps left: the cell 4 steps on
    child, first = env.fork("Reach (1,0)")
    assert child.position == (0, 1) and child.goal == "reach (1, 0)"
    assert child.max_steps == env.max_steps - 1 and "You are at (0, 1)" in first
    for direction in ("east", "south", "west", "west"):
        result = child.step(f"go {direction}")
    assert result.won and env.position == (0, 1) and env.steps_taken == 1
    assert env.join(child) == "moved to (1, 0) in 4 steps (reached)"
    assert env.position == (1, 0) and env.steps_taken == 5 and not env.done
    assert env.expert_delegations() == [] and env.expert_action() == "go south"  # 3 steps: it walks


def test_a_child_forked_before_the_parent_moved_changes_nothing():
    env = _s(_env())
    first, _ = env.fork("reach (0, 2)")
    second, _ = env.fork("reach (1, 2)")
    first.step("go east")
    first.step("go east")
    second.step("go east")
    assert env.join(first) == "moved to (0, 2) in 2 steps (reached)"
    assert env.join(second) == "ignored: that sub-route started at (0, 0), but you are at (0, 2) now"
    assert env.position == (0, 2) and env.steps_taken == 2


def test_a_join_that_uses_up_the_steps_ends_the_episode():
    env = _s(_env(), max_steps=3)
    child, _ = env.fork("reach (1, 1)")
    assert child.max_steps == 3
    for direction in ("east", "east", "east"):
        child.step(f"go {direction}")
    assert env.join(child) == "moved to (0, 2) in 3 steps ((1, 1) not reached); no steps left"
    assert env.done and not env.won
    with pytest.raises(ForkError, match="episode is over"):
        env.fork("reach (1, 1)")


def test_a_join_onto_the_goal_does_not_win_and_the_oracle_steps_off_and_back():
    env = _env()
    env.reset(env.task("train", 0))
    u = Maze(2, frozenset({((0, 0), (0, 1)), ((0, 1), (1, 1)), ((1, 0), (1, 1))}))
    env._begin(u, (0, 0), (0, 1), max_steps=10)
    child, _ = env.fork("reach (1, 1)")
    child.step("go east")  # the child stops on the parent's goal, short of its own waypoint
    env.join(child)
    assert env.position == (0, 1) and not env.won and not env.done
    assert env.expert_action() == "go south"
    env.step("go south")
    assert env.step(env.expert_action()).won


@pytest.mark.parametrize(
    ("goal", "reason"),
    [("", "empty goal; expected 'reach"), ("reach somewhere", "malformed goal"), ("reach (1)", "malformed goal"),
     ("reach (3, 0)", "outside the maze"), ("reach (0, 0)", "already at (0, 0)"), ("reach (2, 2)", "your own goal")],
)
def test_refused_goals_say_why(goal, reason):
    env = _s(_env())
    with pytest.raises(ForkError, match=re.escape(reason)):
        env.fork(goal)


@settings(deadline=None, max_examples=60)
@given(index=st.integers(0, 100), moves=st.lists(st.sampled_from(["go north", "go south", "go east", "go west"]),
                                                 max_size=12))
def test_stepping_a_child_never_changes_the_parent(index, moves):
    env = _env()
    env.reset(env.task("train", index))
    env.step(env.expert_action())
    before = env.snapshot()
    child, _ = env.fork(env.expert_delegations()[0] if env.expert_delegations() else "reach (0, 0)")
    for move in moves:
        child.step(move)
    assert env.snapshot() == before


def test_snapshot_and_restore():
    env = _s(_env())
    env.step("go east")
    saved = env.snapshot()
    env.step("go east")
    env.restore(saved)
    assert env.position == (0, 1) and env.steps_taken == 1
