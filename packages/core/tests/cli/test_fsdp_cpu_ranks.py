"""``trainer=fsdp_cpu``: GRPO with its policy sharded over two real gloo processes (FSDP FULL_SHARD).

Each rank holds half of the parameters, gradients and AdamW state (``train/held_*_bytes``, against
the warm-started model's parameter count). In choice mode, with tied groups skipped, one rank is
left with no sample at all while the other has 8 (seeded): the lockstep padding runs 8 forwards
and backwards there (each with a forward of the KL reference, sharded too: half of it per rank),
and the run neither hangs nor crashes. Exact resume and rollback over two
ranks: ``test_fsdp_cpu_rollback.py``.
"""

import pytest
import torch
from conftest import CONFIG_DIR, FAST
from safetensors.torch import load_file

from coevo.core.testing.ddp import FSDP, assert_holds_half, metrics_rows, train_ddp, warm_start_parameters

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) path of trainer=fsdp")

BASE = [o for o in FAST if not o.startswith("algo.tasks_per_step")] + [
    "algo.tasks_per_step=4", "algo.micro_batch_tokens=1"]  # a micro-batch per turn
UNEQUAL = ["agent.mode=choose", "algo.skip_zero_advantage=true"]  # one rank without a sample


def test_a_rank_without_samples_runs_in_lockstep(tmp_path):
    cache = tmp_path / "cache"
    done = train_ddp(CONFIG_DIR, ["trainer.max_steps=2", *UNEQUAL, "eval.num_tasks=4", "algo.kl_coef=0.05"], cache,
                     tmp_path / "run", BASE, trainer=FSDP)
    assert "2 processes" in done.stdout
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    assert_holds_half(rows, warm_start_parameters(cache))
    for row in rows:  # the frozen float32 reference copy: half of it per rank too
        assert 0.45 * 4 * warm_start_parameters(cache) <= row["train/held_reference_bytes"] <= row["train/held_parameters_bytes"]
    # step 2 (seeded): every group of one rank tied, 8 samples on the other, 8 padding forwards
    assert [(r["train/samples"], r["train/padding_micro_batches"]) for r in rows] == [(0, 0), (8, 8)]
    exported = load_file(str(tmp_path / "run" / "policy" / "model.safetensors"))
    assert sum(t.numel() for k, t in exported.items() if k != "lm_head.weight") == warm_start_parameters(cache)
    assert (tmp_path / "run" / "eval_after.json").is_file()
