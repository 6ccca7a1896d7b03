"""Token samples and their micro-batches: variable-length (prompt, response) sequences, right-padded.

A ``Sample`` is one sequence whose response (agent) tokens are trained; a ``TokenMicroBatch`` holds
several of them padded to one width and computes their per-token log-probabilities under a model.
``micro_batches.split_micro_batches`` sorts samples by length and cuts where that saves padding.
The common interface of token and choice micro-batches is ``micro_batches.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from coevo.core.policy.logprobs import sequence_token_logprobs

if TYPE_CHECKING:
    from coevo.core.algos.micro_batches import LogprobScoring


@dataclass
class Sample:
    input_ids: list[int]  # prompt + response
    agent_mask: list[int]  # 1 on response (agent) tokens
    advantage: float = 0.0
    rollout_logprobs: list[float] | None = None  # per input position (0 outside the response)
    # truncated importance weights per input position (off_policy.py), stored when old log-probs are
    # recomputed; None: 1 everywhere
    tis_weights: list[float] | None = None

    @property
    def cost(self) -> int:
        """Tokens of its sequence (what a micro-batch's token budget counts)."""
        return len(self.input_ids)

    @property
    def loss_units(self) -> int:
        """Positions its loss averages over under ``token_mean``: the response tokens."""
        return sum(self.agent_mask)

    @property
    def micro_batch_type(self) -> type[TokenMicroBatch]:
        return TokenMicroBatch


@dataclass
class TokenMicroBatch:
    input_ids: torch.Tensor  # [b, T] right-padded
    attention_mask: torch.Tensor  # [b, T]
    agent_mask: torch.Tensor  # [b, T] the loss mask: 1 on response tokens
    advantages: torch.Tensor  # [b, T] the sample's advantage on every position
    rollout_logprobs: torch.Tensor  # [b, T]
    indices: list[int]  # positions of these samples in the input list
    samples: list[Sample] = field(default_factory=list)  # the samples of the rows, in order

    @classmethod
    def collate(cls, samples: list[Sample], indices: list[int], pad_id: int) -> TokenMicroBatch:
        return collate_samples(samples, indices, pad_id)

    @property
    def forward_tokens(self) -> int:
        """Tokens the forward pass reads (padding excluded)."""
        return int(self.attention_mask.sum())

    def logprobs(self, model: torch.nn.Module, scoring: LogprobScoring, device) -> torch.Tensor:  # [b, T]
        """log p of every token given its prefix at ``scoring.temperature`` (0 before the first
        response column when ``scoring.skip_prompt``, always at position 0)."""
        first = first_response_position(self) if scoring.skip_prompt else 1
        return sequence_token_logprobs(model, self.input_ids.to(device), self.attention_mask.to(device),
                                       scoring.temperature, first)

    def store_rollout_logprobs(self, logprobs: torch.Tensor) -> None:  # logprobs: [b, T]
        """Write ``logprobs`` back into the samples as their rollout (old) log-probs."""
        for row, sample in enumerate(self.samples):
            sample.rollout_logprobs = logprobs[row, : len(sample.input_ids)].tolist()

    def store_tis_weights(self, weights: torch.Tensor) -> None:  # weights: [b, T]
        """Write truncated importance weights into the samples (read back by ``tis_weights``)."""
        for row, sample in enumerate(self.samples):
            sample.tis_weights = weights[row, : len(sample.input_ids)].tolist()

    def tis_weights(self) -> torch.Tensor:  # [b, T]
        """The samples' stored truncated importance weights (1 where none is stored, and on padding)."""
        out = torch.ones_like(self.rollout_logprobs)
        for row, sample in enumerate(self.samples):
            if sample.tis_weights is not None:
                out[row, : len(sample.tis_weights)] = torch.tensor(sample.tis_weights, dtype=out.dtype)
        return out


def first_response_position(batch: TokenMicroBatch) -> int:
    """The first column holding a response token in any row (log-probs before it are not needed)."""
    columns = batch.agent_mask.any(0)  # [T]
    return int(columns.float().argmax()) if bool(columns.any()) else batch.agent_mask.shape[1]


def collate_samples(samples: list[Sample], indices: list[int], pad_id: int) -> TokenMicroBatch:
    width = max(len(s.input_ids) for s in samples)
    b = len(samples)
    ids = torch.full((b, width), pad_id, dtype=torch.long)
    attn = torch.zeros((b, width), dtype=torch.long)
    mask = torch.zeros((b, width), dtype=torch.float32)
    adv = torch.zeros((b, width), dtype=torch.float32)
    old = torch.zeros((b, width), dtype=torch.float32)
    for row, s in enumerate(samples):
        n = len(s.input_ids)
        ids[row, :n] = torch.tensor(s.input_ids)
        attn[row, :n] = 1
        mask[row, :n] = torch.tensor(s.agent_mask, dtype=torch.float32)
        adv[row, :n] = s.advantage
        if s.rollout_logprobs is not None:
            old[row, :n] = torch.tensor(s.rollout_logprobs, dtype=torch.float32)
    return TokenMicroBatch(ids, attn, mask, adv, old, list(indices), list(samples))
