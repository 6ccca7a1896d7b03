"""``rollout=vllm`` with the policy sharded by FSDP over two real gloo processes
(``trainer=fsdp_cpu trainer.devices=2``): one in-process vLLM engine per rank, filled after every
optimizer step by streaming the FSDP units' full weights one unit at a time (or, with
``rollout.in_process=false``, one vLLM process per rank reloading per-unit files).

The log-prob self-check compares, on each rank, the engine's log-probs of the tokens it sampled
with the trainer's (the FSDP policy's) log-probs of the same tokens; with a threshold of 1e-3 a rank
whose engine held other weights than the FSDP full state would stop the run. So a run that
finishes with the check logged on every step proves both engines held the trained weights after
each step; the same run with each rank's second sync skipped (``skip_second_sync.py``) must stop.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vllm", reason="vLLM is not installed (make install-vllm; make test-vllm)")

import torch  # noqa: E402

from coevo.core.testing.ddp import FSDP, metrics_rows, train_ddp  # noqa: E402
from coevo.core.testing.fast_configs import FAST_BOXES, repository_configs  # noqa: E402

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) path of trainer=fsdp")

CONFIG_DIR = repository_configs(__file__)
# head_dim 64 / 2 = 32 (vLLM's CPU attention has no 16); 2 tasks per rank; no warm start (speed)
BASE = [*FAST_BOXES, "model.hidden_size=64", "model.intermediate_size=128", "algo.tasks_per_step=4",
        "algo.group_size=4", "rollout=vllm", "rollout.sync_check.max_abs_diff=1e-3", "eval.before=false",
        "warmstart.enabled=false", "algo.skip_zero_advantage=false", "agent.choice_score=mean",
        "trainer.max_steps=2", "trainer.checkpoint_every=100"]


def test_each_ranks_engine_holds_the_trained_weights_after_every_step(tmp_path):
    done = train_ddp(CONFIG_DIR, ["algo.optim.lr=1e-2", "eval.num_tasks=2"], tmp_path / "cache", tmp_path / "run",
                     BASE, timeout=900, trainer=FSDP)
    assert "2 processes" in done.stdout
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    diffs = [r["train/sync/logprob_abs_diff"] for r in rows]  # the mean of both ranks' checks
    assert all(d < 1e-4 for d in diffs), diffs  # fp32 engine and trainer agree to rounding
    assert rows[0]["train/grad_norm"] > 0  # step 1 moved the weights (seeded: its groups are not all tied)
    assert all(r["train/held_parameters_bytes"] > 0 for r in rows)  # the policy was sharded
    # after training the sharded policy was streamed into the evaluation's engine on every rank
    assert (tmp_path / "run" / "eval_after.json").is_file()


def test_worker_process_engines_reload_the_per_unit_folder(tmp_path):
    """``rollout.in_process=false`` (CPU): each rank's engine runs in its own vLLM process and reloads
    the folder that the sharded policy is written to one FSDP unit (one safetensors file) at a time."""
    train_ddp(CONFIG_DIR, ["algo.optim.lr=1e-2", "eval.after=false", "rollout.in_process=false"], tmp_path / "cache",
              tmp_path / "run", BASE, timeout=900, trainer=FSDP)
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2] and rows[0]["train/grad_norm"] > 0
    assert all(r["train/sync/logprob_abs_diff"] < 1e-4 for r in rows)


def test_a_skipped_sync_on_every_rank_fires_the_check(tmp_path):
    script = Path(__file__).with_name("skip_second_sync.py")
    cmd = [sys.executable, str(script), *BASE, *FSDP, f"warmstart.cache_dir={tmp_path / 'cache'}",
           f"run_dir={tmp_path / 'run'}", "algo.optim.lr=1e-2", "eval.after=false"]
    env = {**os.environ, "COEVO_CONFIG_DIR": CONFIG_DIR, "OMP_NUM_THREADS": "1"}
    for key in ("LOCAL_RANK", "NODE_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-4000:]
    assert "weight sync skipped on purpose" in output
    assert "weight sync self-check failed: engine 'vllm' and the trainer disagree" in output, output[-4000:]
    rows = metrics_rows(tmp_path / "run") if (tmp_path / "run" / "metrics.jsonl").is_file() else []
    assert [r["step"] for r in rows] == [1]  # step 1 passed; step 2 sampled with step 0's weights
    assert rows[0]["train/grad_norm"] > 0  # and step 1 did change them


def test_per_rank_engines_refuse_what_cannot_work_naming_the_key(monkeypatch):
    from coevo.core import distributed
    from coevo.core.config import ConfigError
    from coevo.core.rollout import vllm_engine
    from coevo.core.rollout.vllm_engine import VLLMEngineConfig, per_rank_engine_settings

    assert per_rank_engine_settings(VLLMEngineConfig()) == {}  # one process: vLLM's own executor
    monkeypatch.setattr(distributed, "world_size", lambda: 2)
    monkeypatch.setattr(distributed, "rank", lambda: 1)
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("RANK", "0")  # restored afterwards (the settings write RANK for vLLM)
    assert per_rank_engine_settings(VLLMEngineConfig()) == {"distributed_executor_backend": "external_launcher"}
    assert (os.environ["RANK"], os.environ["LOCAL_RANK"]) == ("1", "1")
    with pytest.raises(ConfigError, match="'rollout.tensor_parallel_size'.*set rollout.tensor_parallel_size=1"):
        per_rank_engine_settings(VLLMEngineConfig(tensor_parallel_size=2))
    assert per_rank_engine_settings(VLLMEngineConfig(in_process=False)) == {}  # CPU: a worker process per rank
    monkeypatch.setattr(vllm_engine.torch.cuda, "is_available", lambda: True)
    with pytest.raises(ConfigError, match="'rollout.in_process'.*set rollout.in_process=true"):
        per_rank_engine_settings(VLLMEngineConfig(in_process=False))
