"""Run ``coevo-train`` as a real multi-process job (``trainer=ddp_cpu`` or ``fsdp_cpu``: 2 processes, gloo) in tests.

The CLI must run as its own program: Lightning's launcher starts the second rank by re-running
the command line (``python -m coevo.core.cli.train …``), which inside pytest would be pytest.
It runs ``python -m coevo.core.testing.train``: the CLI with the test components
(``coevo.core.testing.components``: ``scripted_commits``, ``unequal_forwards``) registered.
``train_ddp`` runs the CLI with the fast test settings (``fast_configs.FAST_BOXES``) plus the
caller's overrides and returns the finished process (fails the test with the output if it failed);
``trainer=FSDP`` runs the same job sharded (``trainer=fsdp_cpu``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from coevo.core.testing.fast_configs import FAST_BOXES

DDP = ["trainer=ddp_cpu", "trainer.checkpoint_every=1"]
FSDP = ["trainer=fsdp_cpu", "trainer.checkpoint_every=1"]


def train_ddp(config_dir: str, overrides: Iterable[str], cache_dir: Path, run_dir: Path,
              base: Iterable[str] = FAST_BOXES, timeout: float = 300,
              trainer: Iterable[str] = DDP) -> subprocess.CompletedProcess:
    overrides = list(overrides)
    resuming = any(o.startswith("resume=") for o in overrides)  # a resume continues in its own folder
    cmd = [sys.executable, "-m", "coevo.core.testing.train", *base, *trainer, f"warmstart.cache_dir={cache_dir}",
           *([] if resuming else [f"run_dir={run_dir}"]), *overrides]
    env = {**os.environ, "COEVO_CONFIG_DIR": config_dir, "OMP_NUM_THREADS": "1"}
    for key in ("LOCAL_RANK", "NODE_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)  # a fresh job: Lightning launches the second process itself
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"coevo-train exited {done.returncode}\n--- stdout\n{done.stdout[-4000:]}\n"
                             f"--- stderr\n{done.stderr[-6000:]}")
    return done


def metrics_rows(run_dir: Path, drop: Iterable[str] = ("train/rollout_seconds", "train/update_seconds")) -> list[dict]:
    """``metrics.jsonl`` rows without the timing keys (which differ between runs)."""
    rows = [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if k not in drop} for row in rows]


def warm_start_parameters(cache_dir: Path) -> int:
    """The parameter count of the (one) warm-started model in a test's cache folder."""
    (stats,) = Path(cache_dir).glob("*/warmstart.json")
    return json.loads(stats.read_text())["parameters"]


def assert_holds_half(rows: list[dict], parameters: int) -> None:
    """Under FSDP over 2 ranks: every step's largest per-rank share of the float32 parameters is about
    half the model's, and after a backward the gradients and AdamW's two moments match it."""
    full = 4 * parameters
    for row in rows:
        assert 0.45 * full <= row["train/held_parameters_bytes"] <= 1.1 * full / 2, row
        if row.get("train/samples", 0) > 0:  # a step with a backward (every group tied on both ranks: none)
            assert row["train/held_gradients_bytes"] == row["train/held_parameters_bytes"]  # full fine-tuning
            assert row["train/held_optimizer_bytes"] == 2 * row["train/held_parameters_bytes"]  # AdamW's moments
