"""``fork``, ``step`` and the goal parsers of the four recursive environments on hostile text:
a refusal is a ``ForkError`` (or an invalid step), never another exception, and each call takes
well under a second. Before: maze ``reach (<5,000 digits>, 2)`` and a 5,000-digit longctx chunk
raised ValueError, algebra ``evaluate 1 + 1 + … + 1`` (1,000 terms) raised RecursionError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.protocol import ForkError
from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.envs.algebra.env import AlgebraEnv
from coevo.envs.algebra.goals import parse_goal as algebra_goal
from coevo.envs.craft.env import CraftEnv
from coevo.envs.craft.goals import parse_goal as craft_goal
from coevo.envs.longctx.env import LongCtxEnv
from coevo.envs.longctx.goals import parse_goal as longctx_goal
from coevo.envs.maze.env import MazeEnv
from coevo.envs.maze.goals import parse_goal as maze_goal
from coevo.envs.recursive import MAX_GOAL_CHARS, small_int
from coevo.envs.textcraft_synth.env import TextCraftSynthEnv

ENVS = [LongCtxEnv, AlgebraEnv, CraftEnv, MazeEnv, TextCraftSynthEnv]
_FUZZ = settings(max_examples=150, deadline=1000, database=None)
# goal-shaped text: each grammar's words and numbers, so that fuzzing reaches past the first check
_WORDS = st.sampled_from(["reach", "go to", "(", ")", ",", "evaluate", "modulo", "+", "*", "-", "craft", "gear",
                          "count", "records with", "colour=red", "in chunks", "to", "-", "tally", "city",
                          "answer", "read", "get", "wood", "²", "١٢"])
_NUMBERS = st.integers(min_value=0, max_value=10**12).map(str)
_GOALS = st.one_of(st.text(max_size=80), st.lists(st.one_of(_WORDS, _NUMBERS), max_size=12).map(" ".join))


def _started(cls):
    env = cls()
    env.reset(env.task("train", 0))
    return env


def _fork_or_refuse(env, goal):
    try:
        child, observation = env.fork(goal)
    except ForkError as exc:
        return str(exc)
    assert isinstance(observation, str) and not child.done
    return None


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
@_FUZZ
@given(goal=_GOALS)
def test_any_goal_forks_or_is_refused_with_fork_error(cls, goal):
    timed(_fork_or_refuse, _started(cls), goal)


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
@_FUZZ
@given(command=_GOALS)
def test_any_command_steps_or_is_invalid(cls, command):
    env = _started(cls)
    action = timed(env.parse_action, f"<action>{command}</action>")
    result = timed(env.step, action if action is not None else command)
    assert isinstance(result.observation, str)


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
@pytest.mark.parametrize("goal", SMALL_HOSTILE, ids=lambda g: g[:20])
def test_the_reported_crashes_and_other_short_bombs_are_refusals(cls, goal):
    timed(_fork_or_refuse, _started(cls), goal)
    env = _started(cls)
    timed(env.step, goal)


@pytest.mark.parametrize("cls", ENVS, ids=lambda c: c.name)
@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_goal_or_command_is_handled_in_under_a_second(cls, name, text):
    assert "longer than" in timed(_fork_or_refuse, _started(cls), text) or not text.split()
    timed(_started(cls).step, text)


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_the_goal_parsers_alone_refuse_a_megabyte_in_under_a_second(name, text):
    book = _started(CraftEnv).book
    for parse in (lambda t: algebra_goal(t, 97), maze_goal, longctx_goal, lambda t: craft_goal(t, book)):
        try:
            timed(parse, text)
        except ForkError:
            pass


def test_the_reported_goals_are_refused_with_a_reason():
    assert "at most 9 digits" in _fork_or_refuse(_started(MazeEnv), "reach (" + "1" * 400 + ", 2)")
    assert "longer than" in _fork_or_refuse(_started(MazeEnv), "reach (" + "1" * 5000 + ", 2)")
    assert "at most 9 digits" in _fork_or_refuse(_started(LongCtxEnv), "count colour=red in chunks 1-" + "9" * 50)
    assert "deeper than 128" in _fork_or_refuse(_started(AlgebraEnv), "evaluate " + "1+" * 200 + "1")  # 200 deep
    assert "longer than" in _fork_or_refuse(_started(AlgebraEnv), "evaluate " + "1 + " * 1000 + "1")
    assert len(_fork_or_refuse(_started(MazeEnv), "x" * 10**6)) < MAX_GOAL_CHARS  # the message stays short


@pytest.mark.parametrize(("text", "value"), [("7", 7), ("007", 7), ("999999999", 999999999), ("1" * 10, None),
                                             ("", None), ("²", None), ("١٢", None), ("-1", None), ("1.0", None)])
def test_small_int_reads_only_short_ascii_numbers(text, value):
    assert small_int(text) == value
