"""Pack variable-length (prompt, response) samples into padded micro-batches by token budget."""

from __future__ import annotations

from dataclasses import dataclass

import torch


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
    """Sort by length, then fill each micro-batch up to ``max_tokens`` padded tokens."""
    order = sorted(range(len(samples)), key=lambda i: len(samples[i].input_ids))
    batches, current = [], []
    for i in order:
        width = len(samples[i].input_ids)  # sorted ascending: the newest is the widest
        if current and width * (len(current) + 1) > max_tokens:
            batches.append(collate_samples([samples[j] for j in current], current, pad_id))
            current = []
        current.append(i)
    if current:
        batches.append(collate_samples([samples[j] for j in current], current, pad_id))
    return batches


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
