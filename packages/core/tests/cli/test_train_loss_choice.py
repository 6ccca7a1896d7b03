"""``algo.loss`` reaches GRPO's update: a run trains with the registered loss the config names."""

import json
import math

from coevo.core import registry
from coevo.core.algos.losses import cispo_loss
from coevo.core.cli import train


def test_algo_loss_chooses_the_loss_grpo_trains_with(compose_train, tmp_path):
    calls = []

    def spy(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer):
        calls.append((clip_low, clip_high, aggregate_mode, bool(old_logprobs.requires_grad)))
        return cispo_loss(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer)

    registry.losses.register("spy_cispo", spy)
    try:
        # 2 updates of one rollout batch: old log-probs recomputed, the second update off-policy
        cfg = compose_train("trainer.max_steps=2", "warmstart.enabled=false", "eval.before=false",
                            "eval.after=false", "algo.updates_per_batch=2", "algo.skip_zero_advantage=false",
                            "algo.loss=spy_cispo", "algo.clip_low=0.1", "algo.clip_high=0.3",
                            "algo.loss_aggregation=seq_mean_token_mean", "agent.choice_score=mean")
        result = train.run(cfg)
    finally:
        registry.losses.unregister("spy_cispo")
    assert result["steps"] == 2
    assert calls and set(calls) == {(0.1, 0.3, "seq_mean_token_mean", False)}
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert rows and all(math.isfinite(r["train/loss"]) for r in rows)
