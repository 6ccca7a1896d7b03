"""``algo.host=grpo`` takes its advantage estimator and policy loss from core's registries by the
names in ``algo.advantage`` and ``algo.loss`` (a spy of each registered for one short run)."""

import pytest
from conftest import FAST_MATH

from coevo.core import registry
from coevo.core.algos.advantages import grpo_advantages
from coevo.core.algos.losses import cispo_loss
from coevo.core.cli import train
from coevo.evoheir.config import EvoHeirConfig

SMALL = ["algo.host=grpo", "algo.rounds=1", "algo.branches=1", "algo.explore_steps=1", "algo.tasks_per_step=2",
         "algo.group_size=2", "algo.screen.pool_size=2", "algo.screen.samples=1", "algo.commit.pool_size=2",
         "algo.commit.samples=1", "algo.heldout_tasks=0", "algo.recovery.steps=1", "eval.before=false",
         "eval.after=false", "trainer.max_steps=1"]


def test_grpo_host_uses_the_advantage_and_loss_the_config_names(compose_train):
    losses, estimates = [], []

    def spy_loss(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer):
        losses.append((bool(old_logprobs.requires_grad), aggregate_mode))
        return cispo_loss(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer)

    def spy_advantage(rewards, group_ids, eps=1e-6, scale_by_std=True):
        estimates.append(scale_by_std)
        # a fixed non-zero spread, so that the loss sees samples whatever the tiny policy answers
        return grpo_advantages(rewards, group_ids, eps, scale_by_std) + group_ids.float() + 1.0

    registry.losses.register("spy_evoheir", spy_loss)
    registry.advantages.register("spy_evoheir_adv", spy_advantage)
    try:
        result = train.run(compose_train(*SMALL, "algo.loss=spy_evoheir", "algo.advantage=spy_evoheir_adv",
                                         base=FAST_MATH))
    finally:
        registry.losses.unregister("spy_evoheir")
        registry.advantages.unregister("spy_evoheir_adv")
    assert result["steps"] == 1
    assert estimates and set(estimates) == {True}
    assert losses and set(losses) == {(False, "token_mean")}


def test_the_defaults_are_the_update_the_host_always_took():
    config = EvoHeirConfig()
    assert (config.advantage, config.loss) == ("grpo", "clipped_pg")
    with pytest.raises(ValueError, match="algo.loss"):
        EvoHeirConfig(loss="bogus")
    with pytest.raises(ValueError, match="algo.advantage"):
        EvoHeirConfig(advantage="bogus")
