"""Supervised fine-tuning on agent-masked conversations (the warm start), as a LightningModule.

Loss: mean negative log-likelihood over agent tokens (mask 1) of the batch; prompt and
observation tokens never get loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import lightning as L
import torch

from coevo.core.algos.batching import Sample, collate_samples
from coevo.core.algos.optim import OptimSettings, build_optimizer
from coevo.core.fields import bounded
from coevo.core.policy.logprobs import sequence_token_logprobs


@dataclass
class SFTSettings:
    epochs: int = bounded(3, ge=1)  # passes over the expert examples (0 would cache an untrained model)
    batch_size: int = bounded(32, ge=1)  # sequences per optimizer step
    # true: batches of similar-length turns. Padding (21% of tokens) goes, one SFT epoch took 23 s
    # instead of 30 s here, but the household warm start fell from 33.8% to 7.9% held-out success
    group_by_length: bool = False
    # true: torch.compile the model for the SFT (inductor, dynamic shapes; needs a C++ compiler on CPU).
    # 11-25 s of compiling, then 1.23x faster steps on the RAO longctx warm start (bench/throughput/sft_compile.py);
    # the result differs from eager only by float rounding, which can still change what a seed learns; over
    # more than one CPU thread two compiled builds differ from each other (inductor's parallel kernels; eager and
    # 1-thread compiled builds repeat to the bit, measured on the RAO longctx warm start), so it warns then
    compile: bool = False
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=3e-3, warmup_steps=20, decay_steps=0))


def masked_nll(
    logprobs: torch.Tensor,  # [B, T] log p of each token given its prefix
    mask: torch.Tensor,  # [B, T] 1 on agent tokens
) -> torch.Tensor:  # scalar: mean NLL per agent token
    mask = mask.to(logprobs.dtype)
    return -(logprobs * mask).sum() / mask.sum().clamp(min=1.0)


def first_trained_position(agent_mask: torch.Tensor) -> int:  # agent_mask: [B, T]
    """The first column holding an agent token in any row (1 when none): earlier positions get no
    loss, so the LM head and log-softmax skip them (the prompt, most of a turn's tokens)."""
    columns = agent_mask.any(dim=0).nonzero()
    return max(1, int(columns[0])) if len(columns) else 1


def sft_loss(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:  # scalar
    """The warm start's loss on a collated batch (``sft_collate``): mean NLL of its agent tokens."""
    logprobs = sequence_token_logprobs(model, batch["input_ids"], batch["attention_mask"],  # [B, T]
                                       first_position=first_trained_position(batch["agent_mask"]))
    return masked_nll(logprobs, batch["agent_mask"])


class SFTModule(L.LightningModule):
    def __init__(self, model: torch.nn.Module, optim: OptimSettings):
        super().__init__()
        self.policy = model
        self.optim_settings = optim

    def configure_optimizers(self):
        return build_optimizer(self.policy.parameters(), self.optim_settings)

    def training_step(self, batch, batch_idx):
        loss = sft_loss(self.policy, batch)
        self.log("sft_loss", loss, prog_bar=True, on_step=True)
        return loss


def sft_collate(pad_id: int):
    """A DataLoader collate function turning Samples into a right-padded batch dict."""

    def collate(samples: list[Sample]) -> dict[str, torch.Tensor]:
        mb = collate_samples(samples, list(range(len(samples))), pad_id)
        return {"input_ids": mb.input_ids, "attention_mask": mb.attention_mask, "agent_mask": mb.agent_mask}

    return collate
