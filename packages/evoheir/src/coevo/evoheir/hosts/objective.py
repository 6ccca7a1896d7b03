"""The on-policy policy-gradient step both hosts use, and episode → record conversion.

One optimizer step: loss = −Σ_tokens A·log π(token) / (number of agent tokens), the clipped
objective of GRPO at ratio 1 (one update per batch), with global grad-norm clipping.

``loss_fn`` (the grpo host's ``algo.loss``, from ``registry.losses``) replaces that objective by a
registered loss, called on-policy: old log-probs = the log-probs, detached (ratio 1), ``token_mean``
over the same normaliser. ``clipped_pg`` (the default) keeps the objective above as it is: at ratio
1 its gradient is the same (−A ∇log π per token), but its value is −ΣA / n, not −ΣA·log π / n, and
the reported ``loss`` stays the value it always was.

Sharded over ranks, ``lockstep`` (the module's) makes every rank run the same number of
micro-batches: a rank with fewer runs padding forwards whose loss is multiplied by 0.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from coevo.core.agent.types import Episode
from coevo.core.algos.batching import Sample
from coevo.core.algos.losses import clipped_policy_gradient_loss
from coevo.core.algos.micro_batches import (
    LogprobScoring,
    loss_normalizer,
    loss_tensors,
    padding_micro_batch,
    split_micro_batches,
)
from coevo.core.policy.sharding import clip_grad_norm
from coevo.evoheir.experience import Record

ON_POLICY_CLIP = 0.2  # clip_low = clip_high passed to a registered loss (no effect at ratio 1)


def policy_gradient_step(
    model: torch.nn.Module,
    samples: list[Sample],
    optimizer: torch.optim.Optimizer,
    pad_id: int,
    temperature: float = 1.0,
    grad_clip: float = 1.0,
    max_tokens: int = 8192,
    lockstep: Callable[[int], int] | None = None,  # count -> the count every rank runs (collective)
    loss_fn: Callable | None = None,  # a registry.losses loss; None or clipped_pg: the objective above
) -> tuple[float, int]:
    """One optimizer step on ``samples``; returns ``(loss, tokens processed)``."""
    lockstep = lockstep or (lambda count: count)
    samples = [s for s in samples if s.advantage != 0.0]
    optimizer.zero_grad(set_to_none=True)
    if not lockstep(len(samples)):
        return 0.0, 0
    model.train()
    normalizer = loss_normalizer(samples, "token_mean")
    scoring = LogprobScoring(pad_id, temperature, skip_prompt=False)
    total, tokens = 0.0, 0
    mbs = split_micro_batches(samples, max_tokens, pad_id) if samples else []
    padding = lockstep(len(mbs)) - len(mbs)  # agreed before any forward
    device = next(model.parameters()).device
    for mb in mbs:
        mask, advantages, _ = loss_tensors(mb, device)  # [b, T]
        logprobs = mb.logprobs(model, scoring, device)  # [b, T]
        if loss_fn is None or loss_fn is clipped_policy_gradient_loss:
            loss = -(logprobs * advantages * mask).sum() / normalizer
        else:  # on-policy: ratio 1, so the clip range changes nothing (GRPO's default 0.2 passed)
            loss, _ = loss_fn(logprobs, logprobs.detach(), advantages, mask, ON_POLICY_CLIP, ON_POLICY_CLIP,
                              "token_mean", normalizer)
        loss.backward()
        total += float(loss.detach())
        tokens += mb.forward_tokens
    for _ in range(padding):  # the forward and backward of a two-token sequence, loss x 0
        (padding_micro_batch(pad_id).logprobs(model, scoring, device).sum() * 0.0).backward()
    clip_grad_norm(model, grad_clip)  # sharded: the norm over every rank's shards
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
