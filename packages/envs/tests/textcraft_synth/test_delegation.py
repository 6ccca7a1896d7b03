"""Sub-goals the model writes (targets, counts, budget, context), the shared stock, one child at
a time, per-agent and shared (reserved) budgets, and the recursive expert winning deep tasks with
every agent inside the paper's 25 steps under a depth cap of 6."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.protocol import ForkError
from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.envs.textcraft_synth.delegation import MAX_CONTEXT_CHARS, SubGoal, parse_subgoal
from coevo.envs.textcraft_synth.env import TextCraftSynthEnv


def _started(split="train", index=0, **config) -> TextCraftSynthEnv:
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(**config))
    env.reset(env.task(split, index))
    return env


def _ingredient(env) -> tuple[str, int]:
    """A crafted ingredient of the target's recipe and its count per craft."""
    return next((n, k) for n, k in env.world.recipes[env.spec.target].ingredients if n in env.world.recipes)


def test_the_grammar_reads_targets_budget_and_context():
    world = _started().world
    sub = parse_subgoal("CRAFT 2 m1_i5,  1 c0_i4 in 12 steps: the recipe of m1_i5 is 1 m0_i4 + 2 m3_i3", world)
    assert sub == SubGoal((("m1_i5", 2), ("c0_i4", 1)), 12, "the recipe of m1_i5 is 1 m0_i4 + 2 m3_i3")
    assert sub.text == "craft 2 m1_i5, 1 c0_i4"
    assert parse_subgoal("craft 3 a2_i7 in 1 step", world) == SubGoal((("a2_i7", 3),), 1, "")
    cross = next(n for n in world.tiers[10] if n.startswith("x"))
    assert parse_subgoal(f"craft 1 {cross}:", world) == SubGoal(((cross, 1),), None, "")


@pytest.mark.parametrize(("goal", "why"), [
    ("make 2 m1_i5", "malformed goal"), ("craft", "malformed goal"), ("craft m1_i5", "malformed target"),
    ("craft 2 m1_i0", "base material"), ("craft 2 zz_i5", "zz_i5 is no item"), ("craft 0 m1_i5", "at least 1"),
    ("craft 2 m1_i5, 1 m1_i5", "named twice"), ("craft 1 m1_i5 in 0 steps", "at least 1 step"),
    ("craft " + ", ".join(f"1 m{i}_i3" for i in range(9)), "at most 8 targets"),
    ("craft 1 m1_i5: " + "x" * (MAX_CONTEXT_CHARS + 1), "context is at most"),
    ("craft 1" + "0" * 12 + " m1_i5", "at most 9 digits"), ("craft 1 m1_i5 in ² steps", "at most 9 digits"),
])
def test_malformed_sub_goals_are_refused_with_a_reason(goal, why):
    with pytest.raises(ForkError, match=why):
        _started().fork(goal)


def test_the_child_shares_the_stock_and_its_work_comes_back_at_the_join():
    parent = _started()
    name, _ = _ingredient(parent)
    stock = parent.inventory
    child, first = parent.fork(f"craft 1 {name} in 20 steps: make it from your stock")
    assert child.goal == f"craft 1 {name}" and f"Goal: craft 1 {name}." in first
    assert "Context from your parent: make it from your stock" in first and "Steps: 20" in first
    assert child.inventory == stock and child.max_steps == 20
    while not child.done:
        child.step(child.expert_action())
    assert child.won and child.crafted(name) >= 1
    used = {k: v for k, v in stock.items() if child.inventory.get(k, 0) < v}
    assert used and parent.inventory == stock  # isolated until the join
    report = parent.join(child)
    assert report.startswith("stock changed: +") and f"{name}" in report  # the expert's finish says nothing
    assert parent.inventory == child.inventory and parent.steps_taken == 0  # per-agent: the child's steps are its own
    assert not parent.won and not parent.done  # a join never wins the parent's episode


def test_one_child_at_a_time_so_the_shared_stock_cannot_race():
    parent = _started()
    name, _ = _ingredient(parent)
    child, _ = parent.fork(f"craft 1 {name}")
    with pytest.raises(ForkError, match="one sub-agent at a time"):
        parent.fork(f"craft 1 {name}")
    assert parent.expert_delegations() == []  # the expert waits for the report too
    parent.join(child)
    assert parent.fork(f"craft 1 {name}")[0].goal == f"craft 1 {name}"


def test_per_agent_budgets_are_capped_at_max_steps():
    parent = _started(max_steps=25)
    name, _ = _ingredient(parent)
    with pytest.raises(ForkError, match="at most 25 steps, not 26"):
        parent.fork(f"craft 1 {name} in 26 steps")
    assert parent.fork(f"craft 1 {name}")[0].max_steps == 25  # no budget written: the per-agent budget


def test_shared_budget_reserves_the_childs_steps_and_charges_its_subtree():
    parent = _started(budget_mode="shared", max_steps=25)
    name, _ = _ingredient(parent)
    parent.step("inventory")
    parent.step("inventory")  # 23 left: at most 22 for a child (the parent keeps a step to finish)
    with pytest.raises(ForkError, match="at most 22 steps, not 23"):
        parent.fork(f"craft 1 {name} in 23 steps")
    child, _ = parent.fork(f"craft 1 {name} in 10 steps")
    grandchild_goal = next((f"craft 1 {n}" for n, _ in child.world.recipes[name].ingredients
                            if n in child.world.recipes), None)
    if grandchild_goal is not None:  # the child reserves from its own 10
        with pytest.raises(ForkError, match="at most 9 steps"):
            child.fork(grandchild_goal + " in 10 steps")
    child.step("inventory")
    child.step("inventory")
    parent.join(child)
    assert parent.steps_taken == 4  # its own 2 and the child's 2
    almost = _started(budget_mode="shared", max_steps=3)
    almost.step("inventory")
    almost.step("inventory")
    with pytest.raises(ForkError, match="no steps left"):
        almost.fork(f"craft 1 {_ingredient(almost)[0]}")


def _solve(env, level, turns, cap):
    """The recursive expert as RAO's runner plays it (one turn per step or launch); per-node turns."""
    taken = 0
    while not env.done:
        goals = env.expert_delegations() if level < cap else []
        if goals:
            assert len(goals) == 1
            child, _ = env.fork(goals[0])
            taken += 1
            _solve(child, level + 1, turns, cap)
            assert child.won, child.goal
            env.join(child)
            continue
        assert not env.step(env.expert_action()).invalid
        taken += 1
    turns.append((level, taken))
    return env.won


@pytest.mark.parametrize(("band", "ood_band", "seed", "count"), [("medium", "hard", 0, 20), ("medium", "hard", 1, 20),
                                                                 ("medium", "extreme", 2, 3)])
def test_the_recursive_expert_wins_with_every_agent_within_25_steps_and_depth_6(band, ood_band, seed, count):
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(band=band, ood_band=ood_band, seed=seed, max_steps=25))
    for split in ("train", "eval_out_of_distribution"):
        for i in range(count):
            env.reset(env.task(split, i))
            turns: list[tuple[int, int]] = []
            assert _solve(env, 0, turns, cap=6), (split, i)
            assert max(t for _, t in turns) <= 25 and max(level for level, _ in turns) <= 6


def test_on_hard_the_expert_delegates_and_the_tree_stays_small():
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(seed=3, expert_leaf_depth=6))
    sizes = []
    for i in range(15):
        env.reset(env.task("eval_out_of_distribution", i))
        turns: list[tuple[int, int]] = []
        assert _solve(env, 0, turns, cap=6)
        sizes.append(len(turns))
    assert min(sizes) > 1 and max(sizes) <= 64  # RAO's default max_nodes


@settings(max_examples=150, deadline=1000, database=None)
@given(goal=st.one_of(st.text(max_size=80), st.lists(st.sampled_from(
    ["craft", "in", "steps", ":", ",", "m1_i5", "m0_i0", "x0_i10", "0", "3", "99999999999", "²"]), max_size=12).map(" ".join)))
def test_any_goal_forks_or_is_refused_with_fork_error(goal):
    env = _started()
    try:
        child, observation = timed(env.fork, goal)
    except ForkError:
        return
    assert isinstance(observation, str) and not child.done


@pytest.mark.parametrize("goal", SMALL_HOSTILE, ids=lambda g: g[:20])
def test_short_bombs_are_refused(goal):
    with pytest.raises(ForkError):
        timed(_started().fork, goal)


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000)[:4], ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_goal_is_refused_in_under_a_second(name, text):
    with pytest.raises(ForkError):
        timed(_started().fork, text)


def test_a_childs_finish_message_is_its_report_to_the_parent():
    parent = _started()
    name, _ = _ingredient(parent)
    child, _ = parent.fork(f"craft 1 {name}")
    message = "could not read the recipe, sorry " + "x" * 300
    assert not child.step("finish " + message).invalid and child.done and not child.won
    assert parent.join(child) == f"report: {message[:200]}; stock unchanged"  # 200 characters are kept
