"""Optional LoRA adapters through peft, and the reference policy that goes with them."""

from __future__ import annotations

import copy
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

import torch

from coevo.core.fields import bounded, free_text


@dataclass
class LoraSettings:
    enabled: bool = False  # train LoRA adapters instead of all weights
    r: int = bounded(8, ge=1)  # adapter rank
    alpha: int = bounded(16, ge=1)  # scaling numerator (scale = alpha / r)
    dropout: float = bounded(0.0, ge=0, lt=1)  # dropout on the adapter input
    # names of the model's modules to adapt (the model's own names: free text, at least one)
    target_modules: list[str] = free_text(["q_proj", "k_proj", "v_proj", "o_proj"], length=(1, None))


def apply_lora(model: torch.nn.Module, settings: LoraSettings) -> torch.nn.Module:
    """Wrap ``model`` with peft LoRA adapters when enabled; otherwise return it unchanged."""
    if not settings.enabled:
        return model
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=list(settings.target_modules),
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, config)


def is_peft(model: torch.nn.Module) -> bool:
    return hasattr(model, "disable_adapter") and hasattr(model, "peft_config")


class ReferencePolicy:
    """The policy before training: adapters switched off (LoRA), or a frozen copy (full fine-tuning)."""

    def __init__(self, model: torch.nn.Module):
        self._live = model
        self._frozen = None
        if not is_peft(model):
            self._frozen = copy.deepcopy(model).eval()
            for p in self._frozen.parameters():
                p.requires_grad_(False)

    def shard(self, wrap) -> None:
        """Replace the frozen copy (full fine-tuning) by ``wrap(copy)``, e.g. sharded over the ranks."""
        if self._frozen is not None:
            self._frozen = wrap(self._frozen)

    @property
    def frozen(self) -> torch.nn.Module | None:
        """The frozen copy (full fine-tuning), or None (LoRA: the live model with adapters off)."""
        return self._frozen

    @contextmanager
    def model(self):
        """Yields a module that computes reference log-probs (no grad)."""
        if self._frozen is not None:
            device = next(self._live.parameters()).device
            if next(self._frozen.parameters()).device != device:  # the trainer moved the live policy (GPU)
                self._frozen.to(device)
            with torch.no_grad():
                yield self._frozen
        else:
            with torch.no_grad(), self._live.disable_adapter() if is_peft(self._live) else nullcontext():
                yield self._live
