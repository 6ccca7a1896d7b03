"""The skill-conditioned teacher: same weights, no gradient, the skill inserted into the context.

Teacher and student contexts differ only by the skill: the teacher's prompt of a turn is the
student's own chat messages (``Turn.messages``) with ``"<prefix><skill>\\n"`` placed before the first
user message (``coevo.core.agent.prompt.with_context``, exactly what the agent loop does for a
replay), rendered with the same chat template; the response tokens scored are the student's own.

Truncation rule (bad input): the skill is cut, token by token from its end, to the longest prefix
for which the teacher prompt of *every* student turn of its task fits ``max_prompt_tokens``; the
same cut skill is then used for the replay, so replay and teacher see one text. A skill that does
not fit at all becomes empty (the teacher equals the student, a = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.agent.prompt import with_context
from coevo.core.agent.types import Turn
from coevo.core.algos.batching import Sample
from coevo.core.algos.choice_batching import ChoiceSample
from coevo.core.algos.micro_batches import LogprobScoring, split_micro_batches
from coevo.core.policy.conversation import render_prompt

Message = dict[str, str]


def skill_context(text: str, prefix: str = "Skill: ") -> str | None:
    """The context line carrying a skill (``None`` for no skill)."""
    return f"{prefix}{text}" if text else None


def teacher_messages(messages: list[Message], context: str | None) -> list[Message]:
    """``messages`` with ``context`` before the content of the first user message."""
    out = [dict(m) for m in messages]
    for message in out:
        if message["role"] == "user":
            message["content"] = with_context(message["content"], context)
            break
    return out


@dataclass
class FittedSkill:
    text: str
    truncated: bool
    teacher_prompts: list[list[int]]  # one per turn given, rendered with the (cut) skill


def fit_skill(tokenizer, text: str, prefix: str, turn_messages: list[list[Message]], max_tokens: int) -> FittedSkill:
    """The skill cut by the truncation rule, and the teacher prompt of every turn with it."""
    ids = tokenizer.encode(text, add_special_tokens=False) if text else []
    truncated = False
    while True:
        current = tokenizer.decode(ids).strip() if ids else ""
        prompts = [render_prompt(tokenizer, teacher_messages(m, skill_context(current, prefix))) for m in turn_messages]
        excess = max((len(p) for p in prompts), default=0) - max_tokens
        if excess <= 0 or not ids:
            return FittedSkill(current, truncated, prompts)
        ids = ids[: max(0, len(ids) - excess)]
        truncated = True


@torch.no_grad()
def teacher_token_logprobs(
    model: torch.nn.Module, teacher_prompts: list[list[int]], turns: list[Turn], pad_id: int, temperature: float,
    max_tokens: int,
) -> list[list[float]]:
    """log π_T of each turn's response tokens after its teacher prompt (generate mode)."""
    samples = [Sample(p + t.response_ids, [0] * len(p) + [1] * len(t.response_ids)) for p, t in zip(teacher_prompts, turns)]
    out: list[list[float]] = [[] for _ in turns]
    device = next(model.parameters()).device
    scoring = LogprobScoring(pad_id, temperature)
    for mb in split_micro_batches(samples, max_tokens, pad_id):
        lp = mb.logprobs(model, scoring, device)  # [b, T]
        for row, index in enumerate(mb.indices):
            n_prompt, n_resp = len(teacher_prompts[index]), len(turns[index].response_ids)
            out[index] = lp[row, n_prompt : n_prompt + n_resp].tolist()
    return out


@torch.no_grad()
def teacher_choice_logprobs(
    model: torch.nn.Module, teacher_prompts: list[list[int]], turns: list[Turn], pad_id: int, score: str,
    temperature: float, max_tokens: int,
) -> list[float]:
    """log π_T(pick) over the same candidates, with the teacher prompt (choice mode)."""
    samples = [ChoiceSample(p, t.candidates, t.choice) for p, t in zip(teacher_prompts, turns)]
    out = [0.0] * len(turns)
    scoring = LogprobScoring(pad_id, choice_score=score, choice_temperature=temperature)
    for mb in split_micro_batches(samples, max_tokens, pad_id):
        values = mb.logprobs(model, scoring)[:, 0]  # [b]
        for i, value in zip(mb.indices, values.tolist()):
            out[i] = value
    return out
