"""Tasks: target depth within its band, stock = need + 0-50% extra + 1-3 distractors, disjoint
train and test targets, and the same task always builds the same initial state."""

from __future__ import annotations

import pytest

from coevo.envs.textcraft_synth.bands import BANDS
from coevo.envs.textcraft_synth.env import TextCraftSynthEnv
from coevo.envs.textcraft_synth.planner import base_need, shortfall

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")
CONFIGS = [("easy", "medium", 0), ("medium", "hard", 1), ("medium", "extreme", 2), ("hard", "extreme", 3)]


def _env(band, ood_band, seed, **kw):
    return TextCraftSynthEnv(TextCraftSynthEnv.Config(band=band, ood_band=ood_band, seed=seed, **kw))


@pytest.mark.parametrize(("band", "ood_band", "seed"), CONFIGS)
def test_targets_depths_counts_and_stock(band, ood_band, seed):
    env = _env(band, ood_band, seed)
    for split in SPLITS:
        wanted = BANDS[ood_band if split == "eval_out_of_distribution" else band]
        depths, counts = set(), set()
        for i in range(40):
            env.reset(env.task(split, i))
            spec = env.spec
            assert wanted.low <= spec.depth <= wanted.high and spec.depth == env.world.depth(spec.target)
            assert 1 <= spec.count <= wanted.max_count
            depths.add(spec.depth)
            counts.add(spec.count)
            assert spec.need == base_need(env.world.recipes, spec.target, spec.count)
            assert all(env.world.is_base(name) for name in spec.stock)
            for name, n in spec.need.items():  # every needed material, with 0-50% (rounded down) extra
                assert n <= spec.stock[name] <= n + n // 2, name
            extra = set(spec.stock) - set(spec.need)
            assert extra == set(spec.distractors) and 1 <= len(extra) <= 3
            assert all(1 <= spec.stock[name] <= 5 for name in extra)
            assert shortfall(env.world.recipes, spec.target, spec.count, spec.stock)[1] == {}  # enough to win
        assert depths == set(range(wanted.low, wanted.high + 1)), (split, depths)
        assert counts == set(range(1, wanted.max_count + 1)), (split, counts)


@pytest.mark.parametrize("seed", [0, 5])
def test_train_and_test_targets_are_disjoint(seed):
    env = _env("medium", "hard", seed)
    train = {n for items in env.targets_of("train").values() for n in items}
    test = {n for items in env.targets_of("eval_out_of_distribution").values() for n in items}
    assert train and test and not train & test
    assert train | test == set(env.world.recipes)
    assert env.targets_of("eval_in_distribution") is env.targets_of("eval_out_of_distribution")
    for tier, items in env.targets_of("eval_in_distribution").items():  # 20% of each tier, at least one
        assert len(items) == max(1, round(0.2 * len(env.world.tiers[tier])))
    seen = {split: set() for split in SPLITS}
    for split in SPLITS:
        for i in range(60):
            env.reset(env.task(split, i))
            seen[split].add(env.spec.target)
    assert seen["train"] <= train and not seen["train"] & test
    assert seen["eval_in_distribution"] | seen["eval_out_of_distribution"] <= test


def test_a_task_is_deterministic_across_instances_and_resets():
    first = _env("medium", "hard", 11)
    second = _env("medium", "hard", 11)
    for split in SPLITS:
        task = first.task(split, 3)
        assert first.reset(task) == second.reset(second.task(split, 3))
        assert first.spec == second.spec
        start = first.snapshot()
        first.step(first.expert_action())
        assert first.reset(task) and first.snapshot() == start
    other = _env("medium", "hard", 12)
    other.reset(other.task("train", 3))
    first.reset(first.task("train", 3))
    assert other.world.recipes != first.world.recipes


def test_the_first_observation_states_goal_stock_and_commands():
    env = _env("medium", "hard", 0)
    first = env.reset(env.task("train", 0))
    spec = env.spec
    assert f"Goal: craft {spec.count} {spec.target}." in first
    assert all(f"{n} {name}" in first for name, n in spec.stock.items())
    assert "info <item>" in first and "finish" in first and "Steps: 25" in first
    assert " = " not in first  # no recipe is given away
