"""Checkpoint I/O that never leaves a truncated file: write to a temporary name, then rename."""

from __future__ import annotations

import os
from pathlib import Path

import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO


class AtomicCheckpointIO(TorchCheckpointIO):
    def save_checkpoint(self, checkpoint, path, storage_options=None) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
        with open(tmp, "wb") as handle:
            torch.save(checkpoint, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
