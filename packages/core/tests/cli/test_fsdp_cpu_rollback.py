"""Commit/rollback with the policy sharded over two gloo processes (``trainer=fsdp_cpu``).

Each rank snapshots its own shards of the weights and of the AdamW state and restores them in place.
Scripted decisions every 2 steps (commit, roll back, commit) over 6 steps end with the same weights
as 4 steps without the excursion, bit for bit, and steps 5-6 replay steps 3-4. A run stopped at
step 3 (its root, taken at step 2, in the checkpoint: every rank's shards) and resumed to step 6
ends the same way: metrics and exported weights (exact resume over two ranks).
"""

import pytest
import torch
from conftest import CONFIG_DIR, FAST
from safetensors.torch import load_file

from coevo.core.testing.ddp import FSDP, assert_holds_half, metrics_rows, train_ddp, warm_start_parameters

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) path of trainer=fsdp")

BASE = [o for o in FAST if not o.startswith("algo.tasks_per_step")] + [
    "algo.tasks_per_step=4", "algo.skip_zero_advantage=false", "eval.before=false", "eval.after=false"]
SCRIPTED = ["+callbacks.scripted.name=scripted_commits", "+callbacks.scripted.script=[true,false,true]"]


def _weights(run):
    return load_file(str(run / "policy" / "model.safetensors"))


def _without_timing_and_decisions(rows):
    return [{k: v for k, v in r.items() if k != "step" and not k.startswith("train/commit")} for r in rows]


def test_sharded_rollback_is_bit_exact_and_survives_resume(tmp_path):
    cache = tmp_path / "cache"
    train_ddp(CONFIG_DIR, [*SCRIPTED, "trainer.max_steps=6"], cache, tmp_path / "excursion", BASE, trainer=FSDP)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=4"], cache, tmp_path / "straight", BASE, trainer=FSDP)
    train_ddp(CONFIG_DIR, [*SCRIPTED, "trainer.max_steps=3"], cache, tmp_path / "split", BASE, trainer=FSDP)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=6", f"resume={tmp_path / 'split'}"], cache, tmp_path / "unused", BASE,
              trainer=FSDP)

    excursion, straight = _weights(tmp_path / "excursion"), _weights(tmp_path / "straight")
    assert excursion.keys() == straight.keys() and all(torch.equal(excursion[k], straight[k]) for k in straight)
    rows = metrics_rows(tmp_path / "excursion")
    assert [r.get("train/commit/decision") for r in rows] == [None, 1.0, None, 0.0, None, 1.0]
    plain = _without_timing_and_decisions(rows)
    straight_rows = metrics_rows(tmp_path / "straight")
    assert plain[:2] + plain[4:] == _without_timing_and_decisions(straight_rows)
    assert all(r["train/samples"] > 0 for r in straight_rows)
    assert_holds_half(straight_rows, warm_start_parameters(cache))  # each rank held half of the parameters, gradients and AdamW state

    resumed = _weights(tmp_path / "split")
    assert all(torch.equal(resumed[k], excursion[k]) for k in excursion)
    assert metrics_rows(tmp_path / "split") == rows
