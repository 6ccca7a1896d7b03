"""Export the policy as a Hugging Face folder (safetensors) next to every Lightning checkpoint.

The folder ``<run>/policy`` always holds the latest saved weights and tokenizer, written
atomically by ``coevo.core.policy.saving.save_policy_folder`` on rank 0. Under FSDP it is one full
folder whatever the checkpoint's format: with ``trainer.fsdp.state_dict_type=full`` the weights are
the checkpoint's own full state dict (Lightning gathered it on rank 0); with ``sharded`` the
checkpoint holds only each rank's shards, so every rank takes part in gathering a full state dict
on rank 0 (``CoevoFSDPStrategy.full_module_state_dict``: FSDP's ``FULL_STATE_DICT``, ``rank0_only``,
offloaded to the CPU on GPUs), never read back from the sharded checkpoint.
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
        strategy = trainer.strategy
        state_dict = None
        if isinstance(strategy, FSDPStrategy):  # trainer=fsdp and fsdp_cpu
            full = checkpoint["state_dict"] if strategy._state_dict_type == "full" \
                else strategy.full_module_state_dict()  # collective: every rank gathers, rank 0 keeps it
            state_dict = {k.removeprefix("policy."): v for k, v in full.items() if k.startswith("policy.")}
        if trainer.is_global_zero:
            save_policy_folder(pl_module.policy, self.tokenizer, self.folder, state_dict=state_dict)
