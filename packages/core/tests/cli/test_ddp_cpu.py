"""``trainer=ddp_cpu``: GRPO end to end in two gloo processes, with exact resume and rank-0 files."""

import torch
from conftest import CONFIG_DIR, FAST
from safetensors.torch import load_file

from coevo.core.testing.ddp import metrics_rows, train_ddp

QUIET = ["eval.before=false", "eval.after=false"]


def test_grpo_under_ddp_resumes_exactly(tmp_path):
    # 4 tasks per step, 2 per rank; straight 4 steps vs 2 steps + resume to 4: same weights, same metrics
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")] + ["algo.tasks_per_step=4"]
    cache = tmp_path / "cache"
    done = train_ddp(CONFIG_DIR, ["trainer.max_steps=4", "eval.num_tasks=4"], cache, tmp_path / "straight", base)
    assert "2 processes" in done.stdout
    train_ddp(CONFIG_DIR, ["trainer.max_steps=2", *QUIET], cache, tmp_path / "split", base)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=4", f"resume={tmp_path / 'split'}"], cache, tmp_path / "unused", base)

    straight, split = metrics_rows(tmp_path / "straight"), metrics_rows(tmp_path / "split")
    assert [r["step"] for r in straight] == [1, 2, 3, 4]  # one row per step: only rank 0 writes
    assert straight == split
    a = load_file(str(tmp_path / "straight" / "policy" / "model.safetensors"))
    b = load_file(str(tmp_path / "split" / "policy" / "model.safetensors"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    for name in ("config.yaml", "eval_before.json", "eval_after.json", "training.png", "checkpoints/last.ckpt"):
        assert (tmp_path / "straight" / name).is_file(), name
    assert not (tmp_path / "unused").exists()
