"""The weight-sync self-check: the arithmetic, and a whole GRPO run with an engine whose weights
are stale (a perturbed copy that is never synced), which must stop with ``WeightSyncError``.

No vLLM needed: the stale engine is the ``hf`` engine holding its own perturbed copy of the model.
"""

from __future__ import annotations

import copy
import json

import pytest
import torch

from coevo.core import registry
from coevo.core.cli import train
from coevo.core.rollout.hf_engine import HFEngine
from coevo.core.rollout.sync_check import SyncCheck, SyncCheckSettings, WeightSyncError
from coevo.core.testing.fast_configs import FAST_BOXES, compose_fast, repository_configs

CONFIG_DIR = repository_configs(__file__)
FAST = [*FAST_BOXES, "algo.tasks_per_step=2", "algo.group_size=4", "warmstart.enabled=false",
        "eval.before=false", "eval.after=false", "agent.choice_score=mean", "algo.skip_zero_advantage=false"]


def test_mean_abs_diff_over_agent_tokens_only():
    check = SyncCheck(SyncCheckSettings(max_abs_diff=1.0))
    trainer = torch.tensor([[0.0, -1.0, -2.0], [0.0, -0.5, 0.0]])  # [2, 3]
    engine = torch.tensor([[9.0, -1.5, -2.0], [0.0, -0.2, 7.0]])  # [2, 3]; 9 and 7 sit on masked tokens
    mask = torch.tensor([[0, 1, 1], [0, 1, 0]])
    check.add(trainer, engine, mask)
    # |diffs| on agent tokens: 0.5, 0.0, 0.3 -> mean 0.8 / 3
    assert check.finish()["sync/logprob_abs_diff"] == pytest.approx(0.8 / 3)
    assert check.finish() == {}  # reset after each step; no tokens -> nothing to log


def test_fires_above_the_threshold_with_a_message_that_says_what_to_check():
    check = SyncCheck(SyncCheckSettings(max_abs_diff=0.1), "engine 'vllm'")
    check.add(torch.zeros(1, 2), torch.full((1, 2), -0.3), torch.ones(1, 2))
    with pytest.raises(WeightSyncError, match="engine 'vllm' and the trainer disagree") as info:
        check.finish()
    assert "sync_weights" in str(info.value) and "rollout.sync_check.max_abs_diff" in str(info.value)


def test_disabled_check_logs_nothing():
    check = SyncCheck(SyncCheckSettings(enabled=False))
    check.add(torch.zeros(1, 2), torch.ones(1, 2), torch.ones(1, 2))
    assert check.finish() == {}
    with pytest.raises(ValueError, match="max_abs_diff"):
        SyncCheckSettings(max_abs_diff=0.0)


class StaleEngine(HFEngine):
    """Samples from a perturbed private copy of the policy and never syncs (a broken weight sync)."""

    def __init__(self, config, model, tokenizer):
        stale = copy.deepcopy(model)
        with torch.no_grad():
            for p in stale.parameters():
                p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(0)) * 0.05)
        super().__init__(config, stale, tokenizer)

    def sync_weights(self, model):
        pass


@pytest.fixture
def stale_engine():
    registry.rollout_engines.register("hf_stale", StaleEngine)
    yield
    registry.rollout_engines.unregister("hf_stale")


def _compose(tmp_path, *overrides):
    return compose_fast(CONFIG_DIR, overrides, tmp_path / "cache", tmp_path / "run", FAST)


@pytest.mark.parametrize("updates_per_batch", [1, 2])
def test_shared_weights_pass_the_check(tmp_path, updates_per_batch):
    train.run(_compose(tmp_path, "trainer.max_steps=2", f"algo.updates_per_batch={updates_per_batch}"))
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2 // updates_per_batch  # max_steps counts optimizer steps
    assert all(0 <= r["train/sync/logprob_abs_diff"] < 1e-4 for r in rows)


def test_stale_engine_weights_stop_the_run(tmp_path, stale_engine):
    with pytest.raises(WeightSyncError, match="disagree"):
        train.run(_compose(tmp_path, "trainer.max_steps=2", "rollout.name=hf_stale"))
