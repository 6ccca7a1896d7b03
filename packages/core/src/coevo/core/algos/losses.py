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

The policy losses, in ``registry.losses`` (``algo.loss``), share one signature ``(logprobs,
old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer, token_weights=None)
-> (loss, stats)`` with stats ``clip_fraction`` and ``ratio_mean`` over agent tokens; ``token_weights``
(``[B, T]``, detached; None: all 1) multiplies each token's loss before aggregation (truncated
importance sampling between engine and trainer, ``off_policy.py``; GRPO passes it only when
``algo.off_policy.tis_cap`` is set):
- ``clipped_pg``: PPO/GRPO's token-level clipped surrogate;
- ``dapo``: the same with DAPO's clip-higher range (0.2, 0.28) and ``token_mean``;
- ``gspo``: the clipped surrogate on a sequence-level ratio (tiny clips, e.g. 3e-4 / 4e-4);
- ``cispo``: the policy gradient weighted by the clipped, stop-gradient token ratio.
"""

from __future__ import annotations

import torch
from torch import Tensor

from coevo.core import registry

AGGREGATIONS = ("token_mean", "seq_mean_token_mean", "seq_mean_token_sum")
LossAndStats = tuple[Tensor, dict[str, Tensor]]  # (scalar loss, {"clip_fraction", "ratio_mean"})


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
    token_weights: torch.Tensor | None = None,  # [B, T] detached per-token weights (TIS), None: 1
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """PPO/GRPO token-level clipped surrogate: -min(r A, clip(r, 1-cl, 1+ch) A), r = exp(lp - lp_old)."""
    ratio = torch.exp(logprobs - old_logprobs)  # [B, T]
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * advantages
    per_token = -torch.minimum(unclipped, clipped)  # [B, T]
    loss = aggregate(weighted(per_token, token_weights), mask, aggregate_mode, normalizer)
    return loss, _token_stats(ratio, unclipped != clipped, mask.to(per_token.dtype))


@registry.losses.register("dapo")
def dapo_loss(
    logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor,  # [B, T] each, as clipped_pg
    clip_low: float = 0.2, clip_high: float = 0.28, aggregate_mode: str = "token_mean",
    normalizer: float | None = None, token_weights: Tensor | None = None) -> LossAndStats:
    """DAPO's update rule (Yu et al. 2025) is ``clipped_pg`` with clip-higher and ``token_mean``:
    -min(r A, clip(r, 1-cl, 1+ch) A) with the asymmetric range cl = 0.2, ch = 0.28 (a raised upper
    clip lets unlikely tokens grow, against entropy collapse), averaged over all agent tokens; no KL
    (``algo.kl_coef=0``). A GRPO config passes its own clips: ``algo.loss=dapo algo.clip_high=0.28``.
    Dynamic sampling (refilling groups whose rewards are all equal) is not a loss and is not here."""
    return clipped_policy_gradient_loss(
        logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer, token_weights
    )


GSPO_MAX_LOG_RATIO = 20.0  # cap on GSPO's log s_i: exp(20) ~ 4.9e8, finite in fp32 and bf16


@registry.losses.register("gspo")
def gspo_loss(
    logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor,  # [B, T] each, as clipped_pg
    clip_low: float = 3e-4, clip_high: float = 4e-4, aggregate_mode: str = "seq_mean_token_mean",
    normalizer: float | None = None, token_weights: Tensor | None = None) -> LossAndStats:
    """GSPO (Zheng et al. 2025): the clipped surrogate on a sequence-level importance ratio.

    s_i = exp( (1/|y_i|) sum_{t in y_i} (lp_t - lp_old_t) )   (geometric mean of the token ratios
    over row i's agent tokens y_i); per-token loss on every t in y_i: -min(s_i A_t, clip(s_i,
    1-cl, 1+ch) A_t). With one advantage per sequence (GRPO) and ``seq_mean_token_mean`` (the
    paper's average over sequences) this is GSPO exactly; ``token_mean`` weighs sequences by length.
    The gradient reaches every token through the mean: d(-s_i A)/d lp_t = -s_i A / |y_i|; a clipped
    sequence gives no token a gradient. s_i is a per-token geometric mean, so the clip range is
    tiny (the paper: 3e-4 / 4e-4; ``algo.clip_low=3e-4 algo.clip_high=4e-4``). log s_i is capped at
    ``GSPO_MAX_LOG_RATIO`` so that a huge log-ratio gives a finite loss.
    """
    m = mask.to(logprobs.dtype)  # [B, T]
    tokens = m.sum(-1).clamp(min=1.0)  # [B] |y_i| (an all-masked row: 1, its s_i = 1)
    log_ratio = torch.where(m > 0, logprobs - old_logprobs, torch.zeros_like(logprobs))  # [B, T]
    seq_log_ratio = (log_ratio.sum(-1) / tokens).clamp(max=GSPO_MAX_LOG_RATIO)  # [B]
    ratio = torch.exp(seq_log_ratio).unsqueeze(-1).expand_as(logprobs)  # [B, T] s_i on each token
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * advantages
    per_token = -torch.minimum(unclipped, clipped)  # [B, T]
    loss = aggregate(weighted(per_token, token_weights), mask, aggregate_mode, normalizer)
    return loss, _token_stats(ratio, unclipped != clipped, m)


@registry.losses.register("cispo")
def cispo_loss(
    logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor,  # [B, T] each, as clipped_pg
    clip_low: float = 1.0, clip_high: float = 0.28, aggregate_mode: str = "token_mean",
    normalizer: float | None = None, token_weights: Tensor | None = None) -> LossAndStats:
    """CISPO (MiniMax-M1, Chen et al. 2025): clip the importance weight, not the update.

    per-token loss = -sg(clip(r_t, 1-cl, 1+ch)) A_t lp_t, r_t = exp(lp_t - lp_old_t), sg = stop-gradient;
    d/d lp_t = -clip(r_t) A_t: every token keeps a gradient, a clipped one with a bounded weight
    (PPO's min drops it). At r = 1 this is the plain policy gradient -A grad lp. The loss value
    is -w A lp, not a surrogate near -A: compare runs by reward, not by this loss. The paper sets no
    lower bound (cl = 1: the weight is only clipped above) and tunes ch.
    """
    ratio = torch.exp(logprobs - old_logprobs)  # [B, T]
    weight = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high).detach()  # [B, T] sg(clip(r))
    per_token = -weight * advantages * logprobs  # [B, T]
    loss = aggregate(weighted(per_token, token_weights), mask, aggregate_mode, normalizer)
    return loss, _token_stats(ratio, weight != ratio, mask.to(per_token.dtype))


def weighted(per_token: Tensor, token_weights: Tensor | None) -> Tensor:  # [B, T]
    """``per_token`` times the detached ``token_weights`` (TIS, ``off_policy.py``); unchanged when None."""
    return per_token if token_weights is None else per_token * token_weights.detach().to(per_token.dtype)


def _token_stats(
    ratio: torch.Tensor,  # [B, T] importance ratio of each token
    clipped: torch.Tensor,  # [B, T] bool: the clip changed it
    m: torch.Tensor,  # [B, T] float mask
) -> dict[str, torch.Tensor]:
    """``clip_fraction`` and ``ratio_mean`` over the agent tokens (as ``clipped_pg`` reports them)."""
    n = m.sum().clamp(min=1.0)
    with torch.no_grad():
        return {"clip_fraction": (clipped.to(m.dtype) * m).sum() / n, "ratio_mean": (ratio * m).sum() / n}


def k3_kl(
    logprobs: torch.Tensor,  # [B, T] log pi_theta, with grad
    ref_logprobs: torch.Tensor,  # [B, T] log pi_ref, no grad
) -> torch.Tensor:  # [B, T] per-token KL estimate, >= 0
    """Low-variance unbiased estimator of KL(pi_theta || pi_ref) (Schulman's k3).

    k3 = exp(ref - lp) - (ref - lp) - 1; it is >= 0 and zero where the two agree.
    """
    log_ratio = ref_logprobs - logprobs
    return torch.exp(log_ratio) - log_ratio - 1.0
