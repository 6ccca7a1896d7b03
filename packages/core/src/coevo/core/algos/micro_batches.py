"""One micro-batch interface for the policy-gradient updates, whatever the decoding mode.

A training sample is a token sequence (``batching.Sample``: prompt masked, response trained) or,
in choice mode with ``choice_loss="softmax"``, a pick among candidates (``choice_batching.ChoiceSample``).
``split_micro_batches`` packs a list of them into micro-batches of one kind each, by token budget;
every micro-batch, ``TokenMicroBatch`` or ``ChoiceMicroBatch``, offers the same:

- ``logprobs(model, scoring, device)``: ``[b, T]`` log-probs of the trained positions under ``model``
  (a choice micro-batch has one position per row, the pick: ``T = 1``);
- ``agent_mask``, ``advantages``, ``rollout_logprobs``: ``[b, T]`` loss mask, advantage and old
  (rollout) log-prob of every position (``loss_tensors`` moves the three to a device);
- ``samples`` and ``indices``: its rows' samples and their positions in the split list;
- ``forward_tokens``: tokens its forward pass reads; ``store_rollout_logprobs``: writes recomputed
  old log-probs back into the samples; ``store_tis_weights`` / ``tis_weights``: the truncated
  importance weights computed then (``off_policy.py``; 1 where none is stored).

Each sample says what its loss averages over (``loss_units``: response tokens, or 1 for a pick);
``loss_normalizer`` sums them into the denominator that makes micro-batch gradients add up exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.algos.batching import Sample, TokenMicroBatch
from coevo.core.algos.choice_batching import ChoiceMicroBatch, ChoiceSample
from coevo.core.data.buckets import padded_buckets

MicroBatch = TokenMicroBatch | ChoiceMicroBatch


@dataclass(frozen=True)
class LogprobScoring:
    """How log-probs are computed: token sequences at ``temperature``, picks by the choice softmax."""

    pad_id: int
    temperature: float = 1.0  # of the token log-probs (generate mode: the sampling temperature)
    choice_score: str = "sum"  # sum | mean of a candidate's token log-probs
    choice_temperature: float = 1.0  # of the softmax over the candidates' scores
    skip_prompt: bool = True  # token log-probs from the first response column on (False: from position 1)


def split_micro_batches(samples: list[Sample | ChoiceSample], max_tokens: int, pad_id: int) -> list[MicroBatch]:
    """``samples`` packed into micro-batches of at most ``max_tokens`` padded tokens each (one longer
    sample goes alone), grouped by cost with the least padding; every micro-batch holds samples of
    one kind (kinds in order of first appearance), ``indices`` are positions in ``samples``."""
    by_kind: dict[type, list[int]] = {}
    for position, sample in enumerate(samples):
        by_kind.setdefault(sample.micro_batch_type, []).append(position)
    out: list[MicroBatch] = []
    for kind, positions in by_kind.items():
        for group in padded_buckets([samples[p].cost for p in positions], max_tokens):
            indices = [positions[j] for j in group]
            out.append(kind.collate([samples[i] for i in indices], indices, pad_id))
    return out


def loss_normalizer(samples: list[Sample | ChoiceSample], aggregation: str) -> float:
    """The denominator of a (mini)batch's loss, at least 1: its loss units under ``token_mean``
    (response tokens; a pick counts 1), else its number of samples."""
    if aggregation == "token_mean":
        return float(max(1, sum(s.loss_units for s in samples)))
    return float(max(1, len(samples)))


def loss_tensors(mb: MicroBatch, device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(mask, advantages, rollout log-probs)`` of ``mb`` on ``device``, each ``[b, T]``."""
    return mb.agent_mask.to(device), mb.advantages.to(device), mb.rollout_logprobs.to(device)


def padding_micro_batch(pad_id: int) -> TokenMicroBatch:
    """A two-token micro-batch with advantage 0: the forward a rank without work runs in lockstep."""
    return TokenMicroBatch.collate([Sample([pad_id, pad_id], [0, 1], 0.0, [0.0, 0.0])], [0], pad_id)
