"""Off-policy correction between the rollout engine and the trainer: truncated importance sampling.

The engine that samples the episodes (vllm, sglang, or hf with other kernels and precision) does not
compute exactly the trainer's probabilities, so the "on-policy" samples come from a slightly different
policy pi_engine. TIS (Yao et al. 2025, "Your efficient RL framework secretly brings you off-policy
RL training"; verl's ``tis_imp_ratio_cap``) reweights every agent token's policy-gradient loss by

    w_t = min(exp(lp_old_trainer_t - lp_engine_t), cap)        (detached: a constant of the loss)

where ``lp_engine`` is the log-prob the engine recorded at rollout (``Sample.rollout_logprobs``,
``ChoiceSample.rollout_logprob`` for a pick in choice mode: the choice softmax the agent sampled
from) and ``lp_old_trainer`` the trainer's log-prob of the same token under the weights that sampled
it: the current weights with one update per batch (the forward the loss runs anyway), the
recomputed old log-probs with ``updates_per_batch > 1`` (``GRPO._recompute_old_logprobs``). The cap
bounds the variance; the weights multiply the per-token loss of every registered loss
(``token_weights``), not the KL term.

Diagnostics over the batch's agent tokens (N of them): the effective sample size
``ESS = (sum w)^2 / (N sum w^2)`` (1: every weight equal, e.g. on-policy; near 1/N: one token
dominates) and the fraction of tokens whose weight the cap truncated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from coevo.core import distributed as dist
from coevo.core.fields import bounded


@dataclass
class OffPolicySettings:
    # truncated importance sampling cap (e.g. 2.0): each agent token's loss is weighted by
    # min(exp(lp_old_trainer - lp_engine), tis_cap); null: no correction (the loss is unchanged)
    tis_cap: float | None = bounded(None, gt=0)


def tis_weights(
    trainer_logprobs: torch.Tensor,  # [b, T] lp_old_trainer of each position
    engine_logprobs: torch.Tensor,  # [b, T] lp_engine recorded at rollout
    cap: float,
) -> torch.Tensor:  # [b, T] detached weights min(exp(trainer - engine), cap)
    """Truncated importance weights of the engine's samples under the trainer's policy."""
    with torch.no_grad():
        return torch.exp(trainer_logprobs.detach().float() - engine_logprobs.float()).clamp(max=cap)


@dataclass
class TISStats:
    """Running sums of one step's weights over agent tokens (``add``), reduced to ESS (``metrics``)."""

    cap: float
    sums: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])  # sum w, sum w^2, N, clipped

    def add(self, weights: torch.Tensor, mask: torch.Tensor) -> None:  # [b, T] each
        w, m = weights.detach().double(), mask.double()  # float64 sums: ESS <= 1 up to rounding
        at_cap = (w >= self.cap) & (m > 0)  # truncated (or exactly at the cap)
        for i, value in enumerate(((w * m).sum(), (w**2 * m).sum(), m.sum(), at_cap.sum())):
            self.sums[i] += float(value)

    def metrics(self) -> dict[str, float]:
        """``tis_ess`` and ``tis_clipped_fraction`` over every rank's agent tokens (collective:
        every rank calls it once per step); 1 and 0 when no token was weighted."""
        total_w, total_w2, n, clipped = (sum(col) for col in zip(*dist.gather_objects(self.sums)))
        self.sums = [0.0, 0.0, 0.0, 0.0]
        return {"tis_ess": effective_sample_size(total_w, total_w2, n), "tis_clipped_fraction": clipped / n if n else 0.0}


def effective_sample_size(sum_w: float, sum_w2: float, n: float) -> float:
    """Normalised ESS ``(sum w)^2 / (n sum w^2)`` in (0, 1]; 1 for no tokens or all-zero weights."""
    return (sum_w * sum_w) / (n * sum_w2) if n > 0 and sum_w2 > 0 else 1.0
