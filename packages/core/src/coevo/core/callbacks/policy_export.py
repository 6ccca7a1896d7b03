"""Export the policy as a Hugging Face folder (safetensors) next to every Lightning checkpoint.

The folder ``<run>/policy`` always holds the latest saved weights and tokenizer, written
atomically by ``coevo.core.policy.saving.save_policy_folder``.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L

from coevo.core import registry
from coevo.core.policy.saving import save_policy_folder


@registry.callbacks.register("policy_export")
class PolicyExport(L.Callback):
    def __init__(self, folder: str | Path, tokenizer):
        self.folder = Path(folder)
        self.tokenizer = tokenizer

    def on_save_checkpoint(self, trainer, pl_module, checkpoint) -> None:
        if trainer.is_global_zero:
            save_policy_folder(pl_module.policy, self.tokenizer, self.folder)
