"""MathEnv end to end: single- and multi-turn episodes, invalid replies, snapshot/restore, the
expert on every generated task, parse_action, registry discovery and config checks."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core import registry
from coevo.core.env.protocol import Environment
from coevo.envs.math.env import CORRECT, INCORRECT_FINAL, INCORRECT_RETRY, MathEnv
from coevo.envs.math.generator import DEFAULT_PROBLEM_TYPES, PROBLEM_TYPES

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _env(**overrides) -> MathEnv:
    return MathEnv(MathEnv.Config(**overrides))


def _wrong(gold: str) -> str:
    return "1000001" if gold != "1000001" else "3"


def test_registered_and_protocol_surface():
    assert registry.envs.get("math") is MathEnv
    env = _env()
    assert isinstance(env, Environment)
    assert env.free_form_actions and env.task_types == PROBLEM_TYPES
    assert env.num_tasks("train") is None and env.num_tasks("eval_in_distribution") == 100
    env.reset(env.task("train", 0))
    assert env.admissible_actions() == []


def test_task_types_round_robin_and_deterministic():
    env = _env()
    assert [env.task("train", i).task_type for i in range(5)] == [*DEFAULT_PROBLEM_TYPES, DEFAULT_PROBLEM_TYPES[0]]
    first = env.reset(env.task("eval_in_distribution", 3))
    assert _env().reset(_env().task("eval_in_distribution", 3)) == first
    assert "\\boxed{answer}" in first and env.goal in first
    assert env.reset(env.task("train", 3)) != first  # splits get unrelated seeds


def test_single_turn_correct_and_wrong():
    env = _env()
    env.reset(env.task("train", 0))
    gold = env.gold_answer
    result = env.step(gold)
    assert (result.observation, result.reward, result.done, result.won, result.invalid) == (
        CORRECT,
        1.0,
        True,
        True,
        False,
    )
    env.reset(env.task("train", 0))
    result = env.step(_wrong(gold))
    assert (result.observation, result.reward, result.done, result.won) == (INCORRECT_FINAL, 0.0, True, False)
    after = env.step(gold)  # the episode is over
    assert after.invalid and after.done and after.reward == 0.0


def test_multi_turn_feedback_and_reward_only_for_the_correct_answer():
    env = _env(max_attempts=3)
    assert env.max_steps == 3
    first = env.reset(env.task("train", 1))
    assert "3 attempts" in first
    gold = env.gold_answer
    r1 = env.step(_wrong(gold))
    assert (r1.observation, r1.reward, r1.done) == (INCORRECT_RETRY, 0.0, False)
    assert env.memory() == f"wrong answers: {_wrong(gold)}; attempts left: 2"
    r2 = env.step(gold)
    assert (r2.observation, r2.reward, r2.done, r2.won) == (CORRECT, 1.0, True, True)
    assert r2.info["attempts"] == 2
    env.reset(env.task("train", 1))
    results = [env.step(_wrong(gold)) for _ in range(3)]
    assert [r.observation for r in results] == [INCORRECT_RETRY, INCORRECT_RETRY, INCORRECT_FINAL]
    assert [r.done for r in results] == [False, False, True] and sum(r.reward for r in results) == 0


def test_empty_answer_is_invalid_and_counts_as_an_attempt():
    env = _env(max_attempts=2)
    env.reset(env.task("train", 0))
    result = env.step("  ")
    assert result.invalid and result.observation == env.invalid_observation and not result.done
    assert env.step("").done


def test_step_accepts_a_whole_reply_too():
    env = _env()
    env.reset(env.task("train", 0))
    assert env.step(env.format_action(env.gold_answer)).won


def test_snapshot_restore():
    env = _env(max_attempts=3)
    env.reset(env.task("train", 2))
    gold = env.gold_answer
    env.step(_wrong(gold))
    snap = env.snapshot()
    memory = env.memory()
    env.step("999")
    assert env.step(gold).won and env.done
    env.restore(snap)
    assert env.snapshot() == snap and env.memory() == memory and not env.done
    again = env.step(gold)
    assert again.won and again.info["attempts"] == 2
    other = _env(max_attempts=3)  # a snapshot restores into another instance as well
    other.restore(snap)
    assert other.snapshot() == snap and other.goal == env.goal


@pytest.mark.parametrize("difficulty", [1, 3, 5])
def test_expert_wins_every_generated_task(difficulty):
    env = _env(difficulty=difficulty, max_attempts=2)
    for split in SPLITS:
        for index in range(12):
            env.reset(env.task(split, index))
            reply = env.format_action(env.expert_action())
            result = env.step(env.parse_action(reply))
            assert result.won and result.done, (split, index, reply)
            assert env.expert_action() is None


@pytest.mark.parametrize(
    "reply,expected",
    [
        ("2 + 2 = 4, so \\boxed{4}", "4"),
        ("<think>easy</think> The answer is \\boxed{\\frac{1}{2}}.", "\\frac{1}{2}"),
        ("The answer is 4.", None),
        ("\\boxed{}", None),
        ("\\boxed{4", None),
        ("<action>4</action>", None),
    ],
)
def test_parse_action(reply, expected):
    assert _env().parse_action(reply) == expected


def test_format_action_round_trips():
    env = _env()
    for answer in ("42", "-\\frac{3}{4}", "2\\sqrt{3}"):
        assert env.parse_action(env.format_action(answer)) == answer


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_parse_action_never_raises(text):
    result = _env().parse_action(text)
    assert result is None or isinstance(result, str)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=50))
def test_step_never_raises(text):
    env = _env(max_attempts=2)
    env.reset(env.task("train", 0))
    result = env.step(text)
    assert isinstance(result.reward, float)


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"problem_types": ["geometry"]}, "problem_types"),
        ({"problem_types": []}, "problem_types"),
        ({"difficulty": 0}, "difficulty"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"eval_data_file": "x.jsonl"}, "needs env.data_file"),
    ],
)
def test_bad_config_raises(overrides, message):
    with pytest.raises(ValueError, match=message):
        _env(**overrides)


def test_config_fields_are_simple_types():
    types = {f.type for f in dataclasses.fields(MathEnv.Config)}
    assert types <= {"int", "float", "bool", "str", "list[str]"}
