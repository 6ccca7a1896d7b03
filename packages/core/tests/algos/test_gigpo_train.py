"""``algo.advantage=gigpo`` end to end: a 2-step GRPO run on boxes trains with GiGPO's per-turn advantages."""

from __future__ import annotations

import json
import math

from coevo.core.algos.gigpo import GiGPOEstimator
from coevo.core.cli import train
from coevo.core.testing.fast_configs import FAST_BOXES, compose_fast, repository_configs

FAST = [*FAST_BOXES, "algo.tasks_per_step=2", "algo.group_size=4", "algo.optim.lr=1e-3"]


def test_two_training_steps_with_gigpo(tmp_path, monkeypatch):
    calls = []
    per_turn = GiGPOEstimator.per_turn

    def spy(self, episodes, scale_by_std, settings=None, eps=1e-6):
        calls.append(([[t.state_key for t in ep.turns] for ep in episodes], settings))
        return per_turn(self, episodes, scale_by_std, settings, eps)

    monkeypatch.setattr(GiGPOEstimator, "per_turn", spy)
    cfg = compose_fast(repository_configs(__file__),
                       ["trainer.max_steps=2", "warmstart.enabled=false", "eval.before=false", "eval.after=false",
                        "algo=grpo", "algo.advantage=gigpo", "algo.gigpo.gamma=0.9", "algo.gigpo.step_weight=0.5"],
                       tmp_path / "cache", tmp_path / "run", FAST)
    result = train.run(cfg)
    assert result["steps"] == 2
    assert len(calls) == 2  # one per training step
    for keys, settings in calls:
        assert (settings.gamma, settings.step_weight) == (0.9, 0.5)
        assert keys and all(k is not None for row in keys for k in row)  # boxes gives every turn a key
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert rows and all(math.isfinite(r["train/loss"]) for r in rows)
