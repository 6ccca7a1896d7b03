"""Export the policy as a Hugging Face folder (safetensors) next to every Lightning checkpoint.

The folder ``<run>/policy`` always holds the latest saved weights and tokenizer, written
atomically by ``coevo.core.policy.saving.save_policy_folder`` on rank 0. Under FSDP the weights are
the checkpoint's full state dict (Lightning gathers the shards for it), not the sharded modules'.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
from lightning.pytorch.strategies import FSDPStrategy

from coevo.core import registry
from coevo.core.policy.saving import save_policy_folder


@registry.callbacks.register("policy_export")
class PolicyExport(L.Callback):
    def __init__(self, folder: str | Path, tokenizer):
        self.folder = Path(folder)
        self.tokenizer = tokenizer

    def on_save_checkpoint(self, trainer, pl_module, checkpoint) -> None:
        if not trainer.is_global_zero:
            return
        state_dict = None
        if isinstance(trainer.strategy, FSDPStrategy):  # trainer=fsdp and fsdp_cpu
            state_dict = {k.removeprefix("policy."): v for k, v in checkpoint["state_dict"].items()
                          if k.startswith("policy.")}
        save_policy_folder(pl_module.policy, self.tokenizer, self.folder, state_dict=state_dict)
