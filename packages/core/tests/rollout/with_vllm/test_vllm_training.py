"""GRPO runs with ``rollout=vllm`` (the train CLI's ``run``, as ``make train ALGO=grpo
ARGS="rollout=vllm …"`` calls it): the self-check passes every step, and a weight sync skipped on
purpose makes it fire."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("vllm", reason="vLLM is not installed (make install-vllm; make test-vllm)")

from coevo.core.cli import train  # noqa: E402
from coevo.core.rollout.sync_check import WeightSyncError  # noqa: E402
from coevo.core.rollout.vllm_engine import VLLMEngine  # noqa: E402
from coevo.core.testing.fast_configs import FAST_BOXES, compose_fast, repository_configs  # noqa: E402

CONFIG_DIR = repository_configs(__file__)
# head_dim 64 / 2 = 32 (vLLM's CPU attention has no 16)
FAST = [*FAST_BOXES, "model.hidden_size=64", "model.intermediate_size=128", "algo.tasks_per_step=2",
        "algo.group_size=4", "rollout=vllm", "eval.before=false"]


def _metrics(run_dir):
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def warmstart_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("warmstart")  # one warm start for both modes


@pytest.mark.parametrize("mode", ["choose", "generate"])
def test_grpo_with_vllm_rollouts_passes_the_self_check(tmp_path, warmstart_cache, mode):
    extra = ["agent.sampling.temperature=0.8", "agent.sampling.max_new_tokens=12"] if mode == "generate" else []
    cfg = compose_fast(CONFIG_DIR, ["trainer.max_steps=3", "algo.optim.lr=1e-3", "algo.skip_zero_advantage=false",
                                    f"agent.mode={mode}", *extra,
                                    *(["eval.after=false"] if mode == "generate" else ["eval.num_tasks=4"])],
                       warmstart_cache, tmp_path / "run", FAST)
    result = train.run(cfg)
    assert result["steps"] == 3
    rows = _metrics(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2, 3]
    diffs = [r["train/sync/logprob_abs_diff"] for r in rows]
    assert all(d < 1e-4 for d in diffs), diffs  # fp32 engine and trainer agree to rounding
    if mode == "choose":
        assert (tmp_path / "run" / "eval_after.json").is_file()


def test_a_skipped_weight_sync_fires_the_check(tmp_path, monkeypatch):
    real_sync = VLLMEngine.sync_weights
    calls = []

    def skip_second_sync(self, model):
        calls.append(self.syncs)
        if len(calls) == 2:  # the sync after step 1's optimizer step: skipped on purpose
            return
        real_sync(self, model)

    monkeypatch.setattr(VLLMEngine, "sync_weights", skip_second_sync)
    cfg = compose_fast(CONFIG_DIR, ["trainer.max_steps=3", "warmstart.enabled=false", "eval.after=false",
                                    "algo.optim.lr=1e-2", "algo.skip_zero_advantage=false",
                                    "agent.choice_score=mean"], tmp_path / "cache", tmp_path / "run", FAST)
    with pytest.raises(WeightSyncError, match="engine 'vllm' and the trainer disagree") as info:
        train.run(cfg)
    assert len(calls) == 2  # it fired on the step whose sync was skipped
    print(info.value)
