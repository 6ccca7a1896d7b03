"""RSIPO's two extra loss terms as plain functions (the RLVR term is core's clipped PG loss).

On-policy self-distillation, trust-weighted. The teacher is the same weights with the skill in the
context (no gradient); on each student token y_t it gives the gap

    a_t = sg( log π_T(y_t | s_x, c_t) − log π_θ(y_t | c_t) )

and L_OPSD(ω) = −mean_t ω_x · a_t · log π_θ(y_t | c_t). Its gradient −ω a_t ∇log π_θ(y_t) is the
sampled reverse-KL gradient towards the teacher: tokens the teacher likes more than the student
are pushed up, the others down; ω_x = 0 removes task x from the gradient.

In choice mode a "token" is the pick among the candidate commands and the log-probs are those of
the choice distribution log softmax(score / T)[pick] (student and teacher over the same candidates).
"""

from __future__ import annotations

import torch


def opsd_loss(
    logprobs: torch.Tensor,  # [B, T] log π_θ(y_t | c_t), with grad
    teacher_logprobs: torch.Tensor,  # [B, T] log π_T(y_t | s_x, c_t), no grad
    omega: torch.Tensor,  # [B] trust coefficient of each row's task
    mask: torch.Tensor,  # [B, T] 1 on student (agent) tokens
    normalizer: float | None = None,  # denominator of the token mean (default: mask.sum())
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """−Σ_t ω a_t log π_θ(y_t) / normalizer, and stats (mean gap, share of tokens the teacher prefers)."""
    mask = mask.to(logprobs.dtype)
    gap = (teacher_logprobs - logprobs).detach()  # [B, T] a_t
    weight = omega[:, None].to(logprobs.dtype) * gap  # [B, T] ω a_t, no grad
    denominator = normalizer if normalizer is not None else mask.sum().clamp(min=1.0)
    loss = -(weight * logprobs * mask).sum() / denominator
    n = mask.sum().clamp(min=1.0)
    with torch.no_grad():
        stats = {
            "gap_sum": (gap * mask).sum(),
            "teacher_prefers_sum": ((gap > 0).to(mask.dtype) * mask).sum(),
            "tokens": mask.sum(),
            "gap_mean": (gap * mask).sum() / n,
        }
    return loss, stats
