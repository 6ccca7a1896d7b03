"""The expert, which reads recipes through the same commands as an agent, wins every task within
its budget: the env's 25 steps on medium; on hard and extreme the steps it needs (``expert_steps``),
which the test prints per band (``-s``) and bounds."""

from __future__ import annotations

import pytest

from coevo.envs.textcraft_synth.env import TextCraftSynthEnv
from coevo.envs.textcraft_synth.expert import expert_steps

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")
# band -> the most steps the expert took over the seeds and tasks below (8 commands a step)
MOST_STEPS = {"easy": 6, "medium": 16, "hard": 30, "extreme": 100}


def _play(env, task) -> int:
    env.reset(task)
    planned = expert_steps(env.world.recipes, env.spec.target, env.spec.count, env.spec.stock,
                           env.config.commands_per_step)
    while not env.done:
        result = env.step(env.expert_action())
        assert not result.invalid, (task.task_id, result.info)
    assert env.won and env.crafted() >= env.spec.count, task.task_id
    assert env.steps_taken == planned, task.task_id
    return planned


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_expert_wins_every_medium_task_in_the_default_25_steps(seed):
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(seed=seed, ood_band="hard", max_steps=25))
    steps = [_play(env, env.task(split, i)) for split in SPLITS[:2] for i in range(30)]
    assert max(steps) <= MOST_STEPS["medium"] <= 25


@pytest.mark.parametrize(("band", "ood_band", "seed", "per_split"),
                         [("easy", "hard", 0, 25), ("medium", "hard", 4, 25), ("medium", "hard", 5, 25),
                          ("hard", "extreme", 6, 8), ("hard", "extreme", 7, 8)])
def test_the_expert_wins_every_task_of_every_band_given_the_steps_it_needs(band, ood_band, seed, per_split):
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(band=band, ood_band=ood_band, seed=seed, max_steps=1000))
    for split in SPLITS:
        name = ood_band if split == "eval_out_of_distribution" else band
        steps = [_play(env, env.task(split, i)) for i in range(per_split)]
        print(f"{name} ({split}, seed {seed}): expert steps min {min(steps)} max {max(steps)}")
        assert max(steps) <= MOST_STEPS[name], (name, steps)


def test_with_fewer_commands_a_step_the_expert_needs_more_steps_and_still_wins():
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(seed=0, commands_per_step=1, max_steps=1000))
    wide = TextCraftSynthEnv(TextCraftSynthEnv.Config(seed=0, commands_per_step=8))
    for i in range(5):
        assert _play(env, env.task("train", i)) > _play(wide, wide.task("train", i))


def test_the_expert_reads_before_it_crafts_and_a_budget_below_its_need_loses():
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(seed=0, max_steps=25))
    env.reset(env.task("train", 0))
    assert env.expert_action() == f"info {env.spec.target}"  # it knows no recipe yet
    need = expert_steps(env.world.recipes, env.spec.target, env.spec.count, env.spec.stock, 8)
    short = TextCraftSynthEnv(TextCraftSynthEnv.Config(seed=0, max_steps=need - 1))
    short.reset(short.task("train", 0))
    while not short.done:
        short.step(short.expert_action())
    assert not short.won and short.steps_taken == need - 1


def test_finishing_early_loses_and_ends_the_episode():
    env = TextCraftSynthEnv()
    env.reset(env.task("train", 0))
    result = env.step("finish I am done")
    assert result.done and not result.won and result.reward == 0.0 and not result.invalid
    after = env.step("inventory")
    assert after.done and after.invalid and env.expert_action() is None
