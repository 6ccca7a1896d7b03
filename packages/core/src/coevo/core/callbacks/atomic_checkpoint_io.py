"""Checkpoint I/O that never leaves a truncated file: write to a temporary name, then rename.

The temporary name is ``<name>.tmp-<pid>``. A failed write removes it; a write cut short by a
kill leaves it behind, and the next run on the folder removes it when it claims the folder
(``coevo.core.cli.run_dir.claim_run_dir``).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO


class AtomicCheckpointIO(TorchCheckpointIO):
    def save_checkpoint(self, checkpoint, path, storage_options=None) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
        try:
            with open(tmp, "wb") as handle:
                torch.save(checkpoint, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise
