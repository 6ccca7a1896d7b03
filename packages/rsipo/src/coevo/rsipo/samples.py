"""Training samples of one RSIPO update: student turns that carry both an RLVR advantage and an
OPSD target (teacher log-probs and the task's ω), and the skill-writing samples.

A student turn is one sample, as in GRPO (``coevo.core.algos.grpo.episode_samples``): a token
sequence (prompt masked, response trained) or, in choice mode with ``choice_loss=softmax``, a
choice among candidates. ``in_pg`` says whether it takes part in the RLVR term (GRPO drops turns
whose advantage is 0); ``teacher`` values are aligned with the sample's own positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.agent.types import Turn
from coevo.core.algos.batching import MicroBatch, Sample
from coevo.core.algos.choice_batching import ChoiceSample


@dataclass
class DistilledSample(Sample):
    teacher_logprobs: list[float] | None = None  # per input position (0 outside the response); None: no teacher
    omega: float = 0.0  # ω of the sample's task
    in_pg: bool = True  # part of the RLVR term


@dataclass
class DistilledChoiceSample(ChoiceSample):
    teacher_logprob: float | None = None  # log π_T(pick) over the same candidates; None: no teacher
    omega: float = 0.0
    in_pg: bool = True


def turn_sample(turn: Turn, advantage: float, choice_loss: str, teacher, omega: float, in_pg: bool):
    """The sample of one student turn (``teacher``: a float in choice mode, per-token list otherwise, or None)."""
    if choice_loss == "softmax" and turn.candidates is not None:
        return DistilledChoiceSample(turn.prompt_ids, turn.candidates, turn.choice, advantage, turn.choice_logprob,
                                     teacher, omega, in_pg)
    n_prompt = len(turn.prompt_ids)
    aligned = None if teacher is None else [0.0] * n_prompt + list(teacher)
    return DistilledSample(turn.prompt_ids + turn.response_ids, [0] * n_prompt + [1] * len(turn.response_ids),
                           advantage, [0.0] * n_prompt + list(turn.response_logprobs), aligned, omega, in_pg)


def has_teacher(sample) -> bool:
    if isinstance(sample, DistilledChoiceSample):
        return sample.teacher_logprob is not None
    return sample.teacher_logprobs is not None


def opsd_units(sample) -> int:
    """Tokens the OPSD mean runs over: the response tokens, or 1 for a choice."""
    if not has_teacher(sample):
        return 0
    return 1 if isinstance(sample, ChoiceSample) else sum(sample.agent_mask)


def micro_rows(mb, samples: list) -> list:
    """The samples of a micro-batch (a choice micro-batch is already a list of samples)."""
    return mb if isinstance(mb, list) else [samples[i] for i in mb.indices]


def teacher_tensor(mb: MicroBatch | list, rows: list, device) -> torch.Tensor:  # [b, T] (choice: [b, 1])
    if isinstance(mb, list):
        return torch.tensor([[s.teacher_logprob or 0.0] for s in rows], device=device)
    out = torch.zeros(mb.input_ids.shape, dtype=torch.float32)
    for row, s in enumerate(rows):
        if s.teacher_logprobs is not None:
            out[row, : len(s.teacher_logprobs)] = torch.tensor(s.teacher_logprobs, dtype=torch.float32)
    return out.to(device)
