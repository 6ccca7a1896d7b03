"""RAO's update is GRPO's: ``algo.loss`` chooses its policy loss and ``algo.advantage`` its node
advantages, from core's registries (a spy of each registered for one tiny run)."""

import json
import math

from coevo.core import registry
from coevo.core.algos.advantages import grpo_advantages
from coevo.core.algos.grpo import GRPO
from coevo.core.algos.losses import cispo_loss, clipped_policy_gradient_loss
from coevo.core.cli import train
from coevo.rao.module import RAO


def test_rao_trains_with_the_loss_and_advantage_the_config_names(compose_train, tmp_path):
    losses, estimates = [], []

    def spy_loss(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer):
        losses.append((clip_low, clip_high, aggregate_mode, bool(old_logprobs.requires_grad)))
        return cispo_loss(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer)

    def spy_advantage(rewards, group_ids, eps=1e-6, scale_by_std=True):
        estimates.append(len(rewards))
        return grpo_advantages(rewards, group_ids, eps=eps, scale_by_std=scale_by_std)

    registry.losses.register("spy_rao", spy_loss)
    registry.advantages.register("spy_rao_adv", spy_advantage)
    try:
        cfg = compose_train("trainer.max_steps=1", "warmstart.enabled=false", "algo.skip_zero_advantage=false",
                            "algo.loss=spy_rao", "algo.advantage=spy_rao_adv", "algo.clip_low=0.1",
                            "algo.clip_high=0.3", "algo.loss_aggregation=seq_mean_token_mean",
                            "agent.mode=choose", env={"length": 4, "max_digit": 1})
        result = train.run(cfg)
    finally:
        registry.losses.unregister("spy_rao")
        registry.advantages.unregister("spy_rao_adv")
    assert result["steps"] == 1
    assert losses and set(losses) == {(0.1, 0.3, "seq_mean_token_mean", False)}
    assert estimates and all(n > 0 for n in estimates)
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert rows and all(math.isfinite(r["train/loss"]) for r in rows)


def test_rao_update_is_grpos_so_the_default_loss_is_unchanged():
    # no override of the update path: the default algo.loss=clipped_pg gives GRPO's loss values
    assert RAO.update is GRPO.update and RAO._micro_loss is GRPO._micro_loss
    assert RAO.Config().loss == "clipped_pg" and RAO.Config().advantage == "grpo"
    assert registry.losses.get(RAO.Config().loss) is clipped_policy_gradient_loss


def test_rao_trains_with_the_papers_credit_root_loo_inverse_frequency_and_root_propagation(compose_train, tmp_path):
    """One step with algo.baseline=root_loo, algo.depth_weighting=inverse_frequency, propagation and
    CISPO: the update runs, and the trees of tasks whose roots all tie are counted as dropped."""
    cfg = compose_train("trainer.max_steps=1", "warmstart.enabled=false", "algo.baseline=root_loo",
                        "algo.depth_weighting=inverse_frequency", "algo.credit.propagate_root_success=true",
                        "algo.loss=cispo", "agent.mode=choose", env={"length": 4, "max_digit": 1})
    assert train.run(cfg)["steps"] == 1
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    dropped = [r["train/trees_dropped"] for r in rows if "train/trees_dropped" in r]
    assert dropped and all(0 <= d for d in dropped) and all(math.isfinite(r["train/loss"]) for r in rows
                                                            if "train/loss" in r)
