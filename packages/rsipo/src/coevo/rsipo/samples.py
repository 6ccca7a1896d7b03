"""Training samples of one RSIPO update: student turns that carry both an RLVR advantage and an
OPSD target (teacher log-probs and the task's ω), and the skill-writing samples.

A student turn is one sample, as in GRPO (``coevo.core.algos.grpo.episode_samples``): a token
sequence (prompt masked, response trained) or, in choice mode with ``choice_loss=softmax``, a
choice among candidates. ``in_pg`` says whether it takes part in the RLVR term (GRPO drops turns
whose advantage is 0); ``teacher_row`` holds the teacher's values at the sample's own trained
positions (a pick: one), so that ``teacher_tensor`` lines them up with any micro-batch's log-probs
(``coevo.core.algos.micro_batches``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.agent.types import Turn
from coevo.core.algos.batching import Sample
from coevo.core.algos.choice_batching import ChoiceSample
from coevo.core.algos.micro_batches import MicroBatch


@dataclass
class DistilledSample(Sample):
    teacher_logprobs: list[float] | None = None  # per input position (0 outside the response); None: no teacher
    omega: float = 0.0  # ω of the sample's task
    in_pg: bool = True  # part of the RLVR term

    @property
    def teacher_row(self) -> list[float] | None:
        return self.teacher_logprobs


@dataclass
class DistilledChoiceSample(ChoiceSample):
    teacher_logprob: float | None = None  # log π_T(pick) over the same candidates; None: no teacher
    omega: float = 0.0
    in_pg: bool = True

    @property
    def teacher_row(self) -> list[float] | None:
        return None if self.teacher_logprob is None else [self.teacher_logprob]


def turn_sample(turn: Turn, advantage: float, choice_loss: str, teacher, omega: float, in_pg: bool):
    """The sample of one student turn (``teacher``: a float in choice mode, per-token list otherwise, or None)."""
    # the RSIPO fields by keyword: core's samples may gain fields (with defaults) after their own
    if choice_loss == "softmax" and turn.candidates is not None:
        return DistilledChoiceSample(turn.prompt_ids, turn.candidates, turn.choice, advantage, turn.choice_logprob,
                                     teacher_logprob=teacher, omega=omega, in_pg=in_pg)
    n_prompt = len(turn.prompt_ids)
    aligned = None if teacher is None else [0.0] * n_prompt + list(teacher)
    return DistilledSample(turn.prompt_ids + turn.response_ids, [0] * n_prompt + [1] * len(turn.response_ids),
                           advantage, [0.0] * n_prompt + list(turn.response_logprobs), teacher_logprobs=aligned,
                           omega=omega, in_pg=in_pg)


def has_teacher(sample) -> bool:
    return sample.teacher_row is not None


def opsd_units(sample) -> int:
    """Tokens the OPSD mean runs over: the response tokens, or 1 for a choice."""
    return sample.loss_units if has_teacher(sample) else 0


def teacher_tensor(mb: MicroBatch, device) -> torch.Tensor:  # [b, T] (choice: [b, 1]), 0 where no teacher
    out = torch.zeros(mb.agent_mask.shape, dtype=torch.float32)
    for row, sample in enumerate(mb.samples):
        if sample.teacher_row is not None:
            out[row, : len(sample.teacher_row)] = torch.tensor(sample.teacher_row, dtype=torch.float32)
    return out.to(device)
