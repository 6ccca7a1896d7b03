"""What the asynchronous-rollout tests of every package compare: a run's metrics rows without the
timings, its exported weights, and the overrides that turn ``rollout.async`` on."""

from __future__ import annotations

import json
from pathlib import Path

import torch

#: metric keys that differ between a synchronous and an asynchronous run by design: wall times and
#: the async-only stamps (``rollout/*``)
TIMING = ("seconds", "rollout/")


def async_overrides(staleness: int) -> list[str]:
    """``rollout.async`` on, with ``max_staleness`` ``staleness`` and one worker thread."""
    return ["rollout.async.enabled=true", f"rollout.async.max_staleness={staleness}", "rollout.async.threads=1"]


def metrics_rows(run_dir: Path) -> list[dict]:
    """The run's ``metrics.jsonl`` rows."""
    return [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines() if line.strip()]


def comparable(rows: list[dict], timing: tuple[str, ...] = TIMING) -> list[dict]:
    """``rows`` without the keys that contain any of ``timing``."""
    return [{k: v for k, v in row.items() if not any(t in k for t in timing)} for row in rows]


def exported_weights(run_dir: Path) -> dict[str, torch.Tensor]:
    """The policy folder's weights the run exported."""
    from safetensors.torch import load_file

    return load_file(str(Path(run_dir) / "policy" / "model.safetensors"))
