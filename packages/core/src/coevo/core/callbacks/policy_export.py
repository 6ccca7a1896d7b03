"""Export the policy as a Hugging Face folder (safetensors) next to every Lightning checkpoint.

The folder ``<run>/policy`` always holds the latest saved weights and tokenizer, written to a
temporary folder first and renamed into place, so a crash never leaves half a model behind.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import lightning as L

from coevo.core import registry


def save_policy_folder(model, tokenizer, folder: Path) -> Path:
    """Atomically replace ``folder`` with ``model``/``tokenizer`` saved by ``save_pretrained``."""
    folder = Path(folder)
    tmp = folder.with_name(folder.name + f".tmp-{os.getpid()}")
    old = folder.with_name(folder.name + f".old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)
    return folder


@registry.callbacks.register("policy_export")
class PolicyExport(L.Callback):
    def __init__(self, folder: str | Path, tokenizer):
        self.folder = Path(folder)
        self.tokenizer = tokenizer

    def on_save_checkpoint(self, trainer, pl_module, checkpoint) -> None:
        if trainer.is_global_zero:
            save_policy_folder(pl_module.policy, self.tokenizer, self.folder)
