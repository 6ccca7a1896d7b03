"""Pack variable-length (prompt, response) samples into padded micro-batches by token budget.

Samples are sorted by length and cut where that saves padding (``buckets.padded_buckets``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.data.buckets import padded_buckets


@dataclass
class Sample:
    input_ids: list[int]  # prompt + response
    agent_mask: list[int]  # 1 on response (agent) tokens
    advantage: float = 0.0
    rollout_logprobs: list[float] | None = None  # per input position (0 outside the response)


@dataclass
class MicroBatch:
    input_ids: torch.Tensor  # [b, T] right-padded
    attention_mask: torch.Tensor  # [b, T]
    agent_mask: torch.Tensor  # [b, T]
    advantages: torch.Tensor  # [b, T] the sample's advantage on every position
    rollout_logprobs: torch.Tensor  # [b, T]
    indices: list[int]  # positions of these samples in the input list


def micro_batches(samples: list[Sample], max_tokens: int, pad_id: int) -> list[MicroBatch]:
    """Micro-batches of at most ``max_tokens`` padded tokens (one longer sample goes alone),
    grouped by length with the least padding."""
    groups = padded_buckets([len(s.input_ids) for s in samples], max_tokens)
    return [collate_samples([samples[j] for j in group], group, pad_id) for group in groups]


def first_response_position(batch: MicroBatch) -> int:
    """The first column holding a response token in any row (log-probs before it are not needed)."""
    columns = batch.agent_mask.any(0)  # [T]
    return int(columns.float().argmax()) if bool(columns.any()) else batch.agent_mask.shape[1]


def collate_samples(samples: list[Sample], indices: list[int], pad_id: int) -> MicroBatch:
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
    return MicroBatch(ids, attn, mask, adv, old, list(indices))
