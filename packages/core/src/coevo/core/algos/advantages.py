"""Advantage estimators: plain functions with one signature, registered by name.

Signature: ``fn(rewards, group_ids, eps) -> advantages`` where every tensor is ``[num_episodes]``.
Episodes that share a ``group_id`` were rolled out from the same task (GRPO's group).
"""

from __future__ import annotations

import torch

from coevo.core import registry


@registry.advantages.register("grpo")
def grpo_advantages(
    rewards: torch.Tensor,  # [E] float, one scalar return per episode
    group_ids: torch.Tensor,  # [E] long, episodes of the same task share an id
    eps: float = 1e-6,
    scale_by_std: bool = True,
) -> torch.Tensor:  # [E]
    """Group-normalised advantage A_i = (R_i - mean_g R) / (std_g R + eps).

    ``std`` is the unbiased sample standard deviation within the group (as in DeepSeekMath's
    GRPO); a group whose rewards are all equal gets advantage 0 for every member. With
    ``scale_by_std=False`` only the mean is subtracted (Dr. GRPO).
    """
    rewards = rewards.float()
    _, inverse = torch.unique(group_ids, return_inverse=True)  # [E] group index 0..G-1
    num_groups = int(inverse.max().item()) + 1 if inverse.numel() else 0
    counts = torch.zeros(num_groups).index_add_(0, inverse, torch.ones_like(rewards))  # [G]
    sums = torch.zeros(num_groups).index_add_(0, inverse, rewards)  # [G]
    means = sums / counts  # [G]
    centred = rewards - means[inverse]  # [E]
    if not scale_by_std:
        return centred
    sq = torch.zeros(num_groups).index_add_(0, inverse, centred**2)  # [G]
    std = torch.sqrt(sq / (counts - 1).clamp(min=1))  # [G] unbiased
    return centred / (std[inverse] + eps)


@registry.advantages.register("rloo")
def rloo_advantages(
    rewards: torch.Tensor,  # [E]
    group_ids: torch.Tensor,  # [E]
    eps: float = 1e-6,
    scale_by_std: bool = False,
) -> torch.Tensor:  # [E]
    """Leave-one-out baseline: A_i = R_i - mean_{j != i in group} R_j (0 for singleton groups).

    With ``scale_by_std`` the result is divided by the group's unbiased reward std (+ eps).
    """
    rewards = rewards.float()
    _, inverse = torch.unique(group_ids, return_inverse=True)
    num_groups = int(inverse.max().item()) + 1 if inverse.numel() else 0
    counts = torch.zeros(num_groups).index_add_(0, inverse, torch.ones_like(rewards))
    sums = torch.zeros(num_groups).index_add_(0, inverse, rewards)
    others = (counts[inverse] - 1).clamp(min=1)
    baseline = (sums[inverse] - rewards) / others
    advantage = torch.where(counts[inverse] > 1, rewards - baseline, torch.zeros_like(rewards))
    if scale_by_std:
        means = sums / counts
        sq = torch.zeros(num_groups).index_add_(0, inverse, (rewards - means[inverse]) ** 2)
        std = torch.sqrt(sq / (counts - 1).clamp(min=1))
        advantage = advantage / (std[inverse] + eps)
    return advantage
