"""Training samples for choice mode: the policy's action is a pick among candidate replies.

In choice mode the agent samples a candidate from ``softmax(score / T)`` over the admissible
commands, so the log-probability of its action is ``log_softmax(score / T)[chosen]``, not the
chosen candidate's token log-likelihood. Training that quantity (``algo.choice_loss=softmax``)
is the exact policy gradient of the choice policy: it raises the chosen command *relative to the
other candidates*. Training the chosen tokens like generated ones (``choice_loss=tokens``) also
moves tokens every candidate shares (e.g. "go to"), which shifts probability towards commands
that do not contain them.

A ``ChoiceMicroBatch`` holds several choice samples; its "tokens" are the picks, one per row
(``[b, 1]`` tensors), so it serves the same loss code as a token micro-batch (``micro_batches.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from coevo.core.policy.candidates import candidate_scores, choice_log_softmax, packed_candidate_token_logprobs

if TYPE_CHECKING:
    from coevo.core.algos.micro_batches import LogprobScoring


@dataclass
class ChoiceSample:
    prompt_ids: list[int]
    candidates: list[list[int]]  # every candidate reply's token ids
    choice: int  # index of the chosen candidate
    advantage: float = 0.0
    rollout_logprob: float = 0.0  # log pi_old(choice) = log softmax(score / T)[choice] at rollout time
    tis_weight: float | None = None  # truncated importance weight of the pick (off_policy.py); None: 1

    @property
    def cost(self) -> int:
        """Tokens of its packed sequence: the prompt once, then every candidate."""
        return len(self.prompt_ids) + sum(len(c) for c in self.candidates)

    @property
    def loss_units(self) -> int:
        """One action, whatever the aggregation."""
        return 1

    @property
    def micro_batch_type(self) -> type[ChoiceMicroBatch]:
        return ChoiceMicroBatch


@dataclass
class ChoiceMicroBatch:
    samples: list[ChoiceSample]  # one row each
    indices: list[int]  # positions of these samples in the input list
    agent_mask: torch.Tensor  # [b, 1] the loss mask: 1 (the pick)
    advantages: torch.Tensor  # [b, 1]
    rollout_logprobs: torch.Tensor  # [b, 1] log pi_old(choice)

    @classmethod
    def collate(cls, samples: list[ChoiceSample], indices: list[int], pad_id: int = 0) -> ChoiceMicroBatch:
        """``pad_id`` is unused (candidates are packed when scored); it keeps the token batch's signature."""
        advantages = torch.tensor([[s.advantage] for s in samples])  # [b, 1]
        old = torch.tensor([[s.rollout_logprob] for s in samples])  # [b, 1]
        return cls(list(samples), list(indices), torch.ones_like(advantages), advantages, old)

    @property
    def forward_tokens(self) -> int:
        """Tokens of the packed sequences the forward pass reads."""
        return sum(s.cost for s in self.samples)

    def logprobs(self, model: torch.nn.Module, scoring: LogprobScoring, device=None) -> torch.Tensor:  # [b, 1]
        """log softmax(score / T)[choice] of each row (the packed forward runs on ``model``'s device)."""
        return chosen_logprobs(model, self.samples, scoring.pad_id, scoring.choice_score,
                               scoring.choice_temperature)[:, None]

    def store_rollout_logprobs(self, logprobs: torch.Tensor) -> None:  # logprobs: [b, 1]
        """Write ``logprobs`` back into the samples as their rollout (old) log-probs."""
        for sample, value in zip(self.samples, logprobs[:, 0].tolist()):
            sample.rollout_logprob = value

    def store_tis_weights(self, weights: torch.Tensor) -> None:  # weights: [b, 1]
        """Write the picks' truncated importance weights into the samples (read back by ``tis_weights``)."""
        for sample, value in zip(self.samples, weights[:, 0].tolist()):
            sample.tis_weight = value

    def tis_weights(self) -> torch.Tensor:  # [b, 1]
        """The picks' stored truncated importance weights (1 where none is stored)."""
        return torch.tensor([[1.0 if s.tis_weight is None else s.tis_weight] for s in self.samples])


def chosen_logprobs(
    model: torch.nn.Module, samples: list[ChoiceSample], pad_id: int, score: str, temperature: float
) -> torch.Tensor:  # [n] log softmax(score / T)[choice] of each sample, differentiable
    """The log-probability of each sample's chosen candidate under ``model``'s choice distribution."""
    result = packed_candidate_token_logprobs(model, [s.prompt_ids for s in samples], [s.candidates for s in samples], pad_id)
    if result is None:
        raise ValueError("choice samples without candidates")
    scores = candidate_scores(result.logprobs, result.mask, score)  # [R]
    log_probs = choice_log_softmax(scores, result.owner, len(samples), temperature)  # [R]
    row = {key: r for r, key in enumerate(result.index)}
    picked = torch.tensor([row[(i, s.choice)] for i, s in enumerate(samples)], device=log_probs.device)  # [n]
    return log_probs[picked]
