"""``trainer=fsdp_cpu``: GRPO with its policy sharded over two real gloo processes (FSDP FULL_SHARD).

Each rank holds half of the parameters, gradients and AdamW state (``train/held_*_bytes``, against
the warm-started model's parameter count). In choice mode, with tied groups skipped, one rank is
left with no sample at all while the other has 8 (seeded): the lockstep padding runs 8 forwards
and backwards there, and the run neither hangs nor crashes. A run of 4 steps and a run of 2 steps
resumed to 4 end with the same metrics and the same exported weights.
"""

import json

import pytest
import torch
from conftest import CONFIG_DIR, FAST
from safetensors.torch import load_file

from coevo.core.testing.ddp import FSDP, metrics_rows, train_ddp

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) path of trainer=fsdp")

QUIET = ["eval.before=false", "eval.after=false"]
BASE = [o for o in FAST if not o.startswith("algo.tasks_per_step")] + [
    "algo.tasks_per_step=4", "algo.micro_batch_tokens=1"]  # a micro-batch per turn
UNEQUAL = ["agent.mode=choose", "algo.skip_zero_advantage=true"]  # one rank without a sample
EVERY_SAMPLE = ["agent.mode=generate", "algo.skip_zero_advantage=false"]


def _parameters(cache) -> int:
    (stats,) = cache.glob("*/warmstart.json")
    return json.loads(stats.read_text())["parameters"]


def _holds_half(rows, cache) -> None:
    full = 4 * _parameters(cache)  # float32 bytes of the whole model
    for row in rows:
        assert 0.45 * full <= row["train/held_parameters_bytes"] <= 1.1 * full / 2
        if row["train/samples"] > 0:  # a step with a backward (every group tied on both ranks: none)
            assert row["train/held_gradients_bytes"] == row["train/held_parameters_bytes"]  # full fine-tuning
            assert row["train/held_optimizer_bytes"] == 2 * row["train/held_parameters_bytes"]  # AdamW's moments


def test_a_rank_without_samples_runs_in_lockstep(tmp_path):
    cache = tmp_path / "cache"
    done = train_ddp(CONFIG_DIR, ["trainer.max_steps=2", *UNEQUAL, "eval.num_tasks=4"], cache,
                     tmp_path / "run", BASE, trainer=FSDP)
    assert "2 processes" in done.stdout
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    _holds_half(rows, cache)
    # step 2 (seeded): every group of one rank tied, 8 samples on the other, 8 padding forwards
    assert [(r["train/samples"], r["train/padding_micro_batches"]) for r in rows] == [(0, 0), (8, 8)]
    exported = load_file(str(tmp_path / "run" / "policy" / "model.safetensors"))
    assert sum(t.numel() for k, t in exported.items() if k != "lm_head.weight") == _parameters(cache)
    assert (tmp_path / "run" / "eval_after.json").is_file()


def test_sharded_grpo_holds_half_and_resumes_exactly(tmp_path):
    cache = tmp_path / "cache"
    base = [*BASE, *EVERY_SAMPLE]
    train_ddp(CONFIG_DIR, ["trainer.max_steps=4", *QUIET], cache, tmp_path / "straight", base, trainer=FSDP)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=2", *QUIET], cache, tmp_path / "split", base, trainer=FSDP)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=4", f"resume={tmp_path / 'split'}"], cache, tmp_path / "unused", base,
              trainer=FSDP)
    straight, split = metrics_rows(tmp_path / "straight"), metrics_rows(tmp_path / "split")
    assert [r["step"] for r in straight] == [1, 2, 3, 4]
    assert all(r["train/samples"] > 0 for r in straight)
    _holds_half(straight, cache)
    assert straight == split
    a = load_file(str(tmp_path / "straight" / "policy" / "model.safetensors"))
    b = load_file(str(tmp_path / "split" / "policy" / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
