"""Policy-gradient losses on agent tokens: plain functions with shape comments.

Every tensor argument is ``[batch, seq]`` over the *response* positions with ``mask`` = 1 on
agent-generated tokens (prompt, observation and padding positions are 0 and never get loss).

Loss aggregation (``aggregate``):
- ``"token_mean"``: sum of per-token losses over all agent tokens / number of agent tokens in the
  (mini)batch. Every token weighs the same, so long responses weigh more (DAPO, Dr. GRPO).
- ``"seq_mean_token_mean"``: mean over sequences of each sequence's token mean (the original
  GRPO paper): every sequence weighs the same, whatever its length.
- ``"seq_mean_token_sum"``: mean over sequences of each sequence's token sum.
``normalizer`` overrides the denominator of ``token_mean`` (used when a minibatch is split into
micro-batches: pass the minibatch's total agent-token count so the gradients add up exactly).
"""

from __future__ import annotations

import torch

from coevo.core import registry

AGGREGATIONS = ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum")


def aggregate(
    per_token: torch.Tensor,  # [B, T] loss per token
    mask: torch.Tensor,  # [B, T] 1 on agent tokens
    mode: str = "token_mean",
    normalizer: float | None = None,
) -> torch.Tensor:  # scalar
    mask = mask.to(per_token.dtype)
    if mode == "token_mean":
        denominator = normalizer if normalizer is not None else mask.sum().clamp(min=1.0)
        return (per_token * mask).sum() / denominator
    if mode == "seq_mean_token_mean":
        per_seq = (per_token * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)  # [B]
        return per_seq.mean() if normalizer is None else per_seq.sum() / normalizer
    if mode == "seq_mean_token_sum":
        per_seq = (per_token * mask).sum(-1)  # [B]
        return per_seq.mean() if normalizer is None else per_seq.sum() / normalizer
    raise ValueError(f"unknown loss aggregation '{mode}'; choose one of {AGGREGATIONS}")


@registry.losses.register("clipped_pg")
def clipped_policy_gradient_loss(
    logprobs: torch.Tensor,  # [B, T] log pi_theta(y_t | c_t), with grad
    old_logprobs: torch.Tensor,  # [B, T] log pi_old(y_t | c_t) at rollout time, no grad
    advantages: torch.Tensor,  # [B, T] (an episode's advantage broadcast over its tokens)
    mask: torch.Tensor,  # [B, T]
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    aggregate_mode: str = "token_mean",
    normalizer: float | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """PPO/GRPO token-level clipped surrogate: -min(r A, clip(r, 1-cl, 1+ch) A), r = exp(lp - lp_old)."""
    ratio = torch.exp(logprobs - old_logprobs)  # [B, T]
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * advantages
    per_token = -torch.minimum(unclipped, clipped)  # [B, T]
    loss = aggregate(per_token, mask, aggregate_mode, normalizer)
    m = mask.to(per_token.dtype)
    n = m.sum().clamp(min=1.0)
    with torch.no_grad():
        stats = {
            "clip_fraction": ((unclipped != clipped).to(m.dtype) * m).sum() / n,
            "ratio_mean": (ratio * m).sum() / n,
        }
    return loss, stats


def k3_kl(
    logprobs: torch.Tensor,  # [B, T] log pi_theta, with grad
    ref_logprobs: torch.Tensor,  # [B, T] log pi_ref, no grad
) -> torch.Tensor:  # [B, T] per-token KL estimate, >= 0
    """Low-variance unbiased estimator of KL(pi_theta || pi_ref) (Schulman's k3).

    k3 = exp(ref - lp) - (ref - lp) - 1; it is >= 0 and zero where the two agree.
    """
    log_ratio = ref_logprobs - logprobs
    return torch.exp(log_ratio) - log_ratio - 1.0
