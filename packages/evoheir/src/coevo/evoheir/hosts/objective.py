"""The on-policy policy-gradient step both hosts use, and episode → record conversion.

One optimizer step: loss = −Σ_tokens A·log π(token) / (number of agent tokens), the clipped
objective of GRPO at ratio 1 (one update per batch), with global grad-norm clipping.
"""

from __future__ import annotations

import torch

from coevo.core.agent.types import Episode
from coevo.core.algos.batching import Sample, micro_batches
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.evoheir.records import Record


def policy_gradient_step(
    model: torch.nn.Module,
    samples: list[Sample],
    optimizer: torch.optim.Optimizer,
    pad_id: int,
    temperature: float = 1.0,
    grad_clip: float = 1.0,
    max_tokens: int = 8192,
) -> tuple[float, int]:
    """One optimizer step on ``samples``; returns ``(loss, tokens processed)``."""
    samples = [s for s in samples if s.advantage != 0.0]
    optimizer.zero_grad(set_to_none=True)
    if not samples:
        return 0.0, 0
    model.train()
    normalizer = float(max(1, sum(sum(s.agent_mask) for s in samples)))
    total, tokens = 0.0, 0
    for mb in micro_batches(samples, max_tokens, pad_id):
        logprobs = sequence_token_logprobs(model, mb.input_ids, mb.attention_mask, temperature)  # [b, T]
        loss = -(logprobs * mb.advantages * mb.agent_mask).sum() / normalizer
        loss.backward()
        total += float(loss.detach())
        tokens += int(mb.attention_mask.sum())
    params = [p for p in model.parameters() if p.requires_grad and p.grad is not None]
    torch.nn.utils.clip_grad_norm_(params, grad_clip if grad_clip > 0 else float("inf"))
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return total, 3 * tokens


def episode_tokens(episodes: list[Episode]) -> int:
    """Forward-token cost of generating ``episodes`` (prompt + response per turn)."""
    return sum(len(t.prompt_ids) + len(t.response_ids) for ep in episodes for t in ep.turns)


def winning_record(episode: Episode, question: str, answer: str, round_: int, source: str) -> Record | None:
    """A record from a won episode: its last (answering) reply is the reference."""
    if not episode.won or not episode.turns:
        return None
    return Record(question, answer, episode.turns[-1].response_text, episode.task.task_type, round_, source)
