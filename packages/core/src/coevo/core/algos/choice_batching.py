"""Training samples for choice mode: the policy's action is a pick among candidate replies.

In choice mode the agent samples a candidate from ``softmax(score / T)`` over the admissible
commands, so the log-probability of its action is ``log_softmax(score / T)[chosen]``, not the
chosen candidate's token log-likelihood. Training that quantity (``algo.choice_loss=softmax``)
is the exact policy gradient of the choice policy: it raises the chosen command *relative to the
other candidates*. Training the chosen tokens like generated ones (``choice_loss=tokens``) also
moves tokens every candidate shares (e.g. "go to"), which shifts probability towards commands
that do not contain them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.data.buckets import padded_buckets
from coevo.core.policy.candidates import candidate_scores, choice_log_softmax, packed_candidate_token_logprobs


@dataclass
class ChoiceSample:
    prompt_ids: list[int]
    candidates: list[list[int]]  # every candidate reply's token ids
    choice: int  # index of the chosen candidate
    advantage: float = 0.0
    rollout_logprob: float = 0.0  # log pi_old(choice) = log softmax(score / T)[choice] at rollout time

    @property
    def cost(self) -> int:
        """Tokens of its packed sequence: the prompt once, then every candidate."""
        return len(self.prompt_ids) + sum(len(c) for c in self.candidates)


def choice_micro_batches(samples: list[ChoiceSample], max_tokens: int) -> list[list[int]]:
    """Indices of ``samples`` grouped by packed length with the least padding, each group at most
    ``max_tokens`` padded tokens (``count x longest``; one longer sample goes alone)."""
    return padded_buckets([s.cost for s in samples], max_tokens)


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
