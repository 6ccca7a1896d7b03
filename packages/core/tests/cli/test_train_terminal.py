"""What a user's terminal shows for a short ``coevo-train`` run: no third-party notices, and the
warm-start line says "(building…)" while it builds and "(cached)" only when the cache was read."""

import os
import subprocess
import sys

from conftest import CONFIG_DIR, FAST

from coevo.core.cli.notices import NOTICES

NOTICE_TEXTS = ("LeafSpec", "is_gradient_checkpointing", "transfer_batch_to_device")


def _cli(*args, cwd):
    env = {**os.environ, "COEVO_CONFIG_DIR": CONFIG_DIR, "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, "-m", "coevo.core.cli.train", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_short_run_shows_no_third_party_notice_and_the_true_cache_state(tmp_path):
    assert len(NOTICES) == len(NOTICE_TEXTS)
    # LoRA on: peft reads transformers' deprecated is_gradient_checkpointing when it wraps the policy
    args = [*FAST, "trainer.max_steps=1", "eval.before=false", "eval.num_tasks=2", "model.lora.enabled=true",
            f"warmstart.cache_dir={tmp_path / 'cache'}"]
    first = _cli(*args, f"run_dir={tmp_path / 'a'}", cwd=tmp_path)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    out = first.stdout + first.stderr
    assert "expert trajectories (building…)" in out and "(cached)" not in out
    assert not [t for t in NOTICE_TEXTS if t in out], out
    header = next(line for line in first.stdout.splitlines() if "task type" in line)
    assert "after" in header and "before" not in header and "change" not in header  # eval.before=false
    second = _cli(*args, "eval.after=false", f"run_dir={tmp_path / 'b'}", cwd=tmp_path)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "expert trajectories (cached)" in second.stdout and "building" not in second.stdout
