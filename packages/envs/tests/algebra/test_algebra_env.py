"""The algebra environment: tasks, the depth knob, answers, the oracle, fork and join."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.protocol import ForkError
from coevo.envs.algebra.env import AlgebraEnv
from coevo.envs.algebra.expression import Num, Op, depth, render
from coevo.envs.expert_play import play_expert

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _env(**knobs) -> AlgebraEnv:
    return AlgebraEnv(AlgebraEnv.Config(**knobs))


def _with(env: AlgebraEnv, expression) -> AlgebraEnv:
    """``env`` in an episode over a hand-written expression."""
    env.reset(env.task("train", 0))
    env._begin(expression)
    return env


def test_same_task_same_expression():
    a, b = _env(), _env()
    for split in SPLITS:
        assert a.reset(a.task(split, 3)) == b.reset(b.task(split, 3))
        assert a.expression == b.expression
    assert a.reset(a.task("train", 0)) != a.reset(a.task("train", 1))


def test_depth_knob_train_and_out_of_distribution():
    env = _env(depth=3)
    for index in range(10):
        env.reset(env.task("train", index))
        assert depth(env.expression) == 3
        env.reset(env.task("eval_out_of_distribution", index))
        assert depth(env.expression) == 6
    env = _env(depth=3, ood_depth=5)
    env.reset(env.task("eval_out_of_distribution", 0))
    assert depth(env.expression) == 5
    with pytest.raises(ValueError, match="ood_depth must be larger"):
        _env(depth=3, ood_depth=2)


@pytest.mark.parametrize("recursive", [True, False], ids=["recursive", "flat"])
def test_oracle_wins_every_task(recursive):
    env = _env()
    tasks = [env.task("train", i) for i in range(60)] + [env.task(s, i) for s in SPLITS[1:] for i in range(20)]
    plays = [play_expert(env, t, recursive=recursive) for t in tasks]
    assert [t.task_id for t, p in zip(tasks, plays) if not p.won] == []
    if recursive:
        assert all(p.children_won == p.children > 0 for p in plays)


def test_answers():
    env = _with(_env(), Op("*", Op("+", Num(3), Num(4)), Op("-", Num(2), Num(9))))  # 7 * -7 = -49 → 1
    assert env.value == 1 and env.goal == "evaluate (3 + 4) * (2 - 9)"
    assert env.admissible_actions() == [f"answer {n}" for n in range(10)]
    result = env.step("answer 1")
    assert result.won and result.done and result.reward == 1.0
    env = _with(_env(), Op("+", Num(3), Num(4)))
    result = env.step("answer 8")
    assert result.done and not result.won and result.observation == "Wrong answer."


@pytest.mark.parametrize(("action", "reason"), [("answer 10", "from 0 to 9"), ("answer x", "from 0 to 9"),
                                                ("compute", "unknown command"), ("", "unknown command")])
def test_invalid_actions(action, reason):
    env = _with(_env(max_steps=2), Op("+", Num(3), Num(4)))
    result = env.step(action)
    assert result.invalid and not result.done and reason in result.info["error"]
    assert env.step(action).done  # max_steps


def test_fork_and_join_put_the_child_value_in():
    env = _with(_env(), Op("*", Op("+", Num(3), Num(4)), Op("-", Num(2), Num(9))))
    assert env.expert_delegations() == ["evaluate 3 + 4", "evaluate 2 - 9"]
    child, first = env.fork("Evaluate (3+4) modulo 10")
    assert child.goal == "evaluate 3 + 4" and first.startswith("Goal: evaluate 3 + 4\nGive its value modulo 10")
    assert child.step("answer 7").won
    assert env.memory() is None
    assert env.join(child) == "3 + 4 = 7; the expression is now 7 * (2 - 9)"
    assert env.current_expression == Op("*", Num(7), Op("-", Num(2), Num(9)))
    assert env.memory() == "expression now: 7 * (2 - 9)"
    assert env.expert_delegations() == ["evaluate 2 - 9"]
    other, _ = env.fork("2 - 9")
    other.step("answer 3")
    assert env.join(other) == "2 - 9 = 3; the expression is now 7 * 3"
    assert env.expert_delegations() == [] and env.expert_action() == "answer 1"  # depth 1: it answers
    with pytest.raises(ForkError, match="not a part of your expression"):
        env.fork("evaluate 3 + 4")  # no longer there


def test_a_wrong_child_answer_misleads_the_parent_but_not_the_check():
    env = _with(_env(), Op("*", Op("+", Num(3), Num(4)), Num(2)))  # 14 → 4
    child, _ = env.fork("3 + 4")
    assert not child.step("answer 8").won
    env.join(child)
    assert render(env.current_expression) == "8 * 2"
    assert not env.step("answer 6").won


def test_join_without_answer_and_of_a_part_already_replaced():
    env = _with(_env(), Op("+", Op("*", Num(1), Num(2)), Op("*", Num(1), Num(2))))
    first, _ = env.fork("evaluate 1 * 2")
    second, _ = env.fork("evaluate 1 * 2")
    idle, _ = env.fork("evaluate 1 * 2")
    first.step("answer 2")
    second.step("answer 2")
    assert env.join(first) == "1 * 2 = 2; the expression is now 2 + 2"
    assert env.join(second) == "1 * 2 = 2 (no longer in the expression)"
    assert env.join(idle) == "1 * 2: no answer"


@pytest.mark.parametrize(
    ("goal", "reason"),
    [("", "empty goal; expected 'evaluate <expression>'"), ("evaluate", "malformed expression"),
     ("evaluate 3 +", "malformed expression"), ("evaluate 7", "single number"),
     ("evaluate (3 + 4) * (2 - 9)", "whole expression"), ("evaluate 3 + 5", "not a part"),
     ("evaluate 3 + 4 modulo 7", "modulo 10, not modulo 7"), ("go north", "malformed expression")],
)
def test_refused_goals_say_why(goal, reason):
    env = _with(_env(), Op("*", Op("+", Num(3), Num(4)), Op("-", Num(2), Num(9))))
    with pytest.raises(ForkError, match=reason):
        env.fork(goal)


@settings(deadline=None, max_examples=60)
@given(index=st.integers(0, 50), answers=st.lists(st.sampled_from(["answer 3", "answer 12", "x", "answer 0"]),
                                                  max_size=4))
def test_stepping_children_never_changes_the_parent(index, answers):
    env = _env()
    env.reset(env.task("train", index))
    before = env.snapshot()
    children = [env.fork(goal)[0] for goal in env.expert_delegations()]
    for child in children:
        grandchildren = [child.fork(goal)[0] for goal in child.expert_delegations()]
        for node in [child, *grandchildren]:
            for action in answers:
                node.step(action)
        for grandchild in grandchildren:
            child.join(grandchild)
    assert env.snapshot() == before
