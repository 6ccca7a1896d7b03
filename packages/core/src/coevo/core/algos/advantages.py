"""Advantage estimators: plain functions with one signature, registered by name.

Signature: ``fn(rewards, group_ids, eps, scale_by_std) -> advantages`` where every tensor is
``[num_episodes]``. Episodes that share a ``group_id`` were rolled out from the same task (GRPO's
group).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core import registry


@dataclass
class GroupStats:
    index: torch.Tensor  # [E] long, group of each episode (0..G-1)
    count: torch.Tensor  # [E] size of the episode's group
    total: torch.Tensor  # [E] sum of the group's rewards
    mean: torch.Tensor  # [E] the group's mean reward
    std: torch.Tensor  # [E] the group's unbiased reward std (0 for singleton groups)


def group_stats(rewards: torch.Tensor, group_ids: torch.Tensor) -> GroupStats:
    """Per-episode statistics of its group, gathered back to ``[E]``."""
    _, index = torch.unique(group_ids, return_inverse=True)  # [E]
    num_groups = int(index.max().item()) + 1 if index.numel() else 0
    counts = torch.zeros(num_groups).index_add_(0, index, torch.ones_like(rewards))  # [G]
    sums = torch.zeros(num_groups).index_add_(0, index, rewards)  # [G]
    means = sums / counts  # [G]
    squares = torch.zeros(num_groups).index_add_(0, index, (rewards - means[index]) ** 2)  # [G]
    std = torch.sqrt(squares / (counts - 1).clamp(min=1))  # [G]
    return GroupStats(index, counts[index], sums[index], means[index], std[index])


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
    stats = group_stats(rewards, group_ids)
    centred = rewards - stats.mean
    return centred / (stats.std + eps) if scale_by_std else centred


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
    stats = group_stats(rewards, group_ids)
    baseline = (stats.total - rewards) / (stats.count - 1).clamp(min=1)
    advantage = torch.where(stats.count > 1, rewards - baseline, torch.zeros_like(rewards))
    return advantage / (stats.std + eps) if scale_by_std else advantage
