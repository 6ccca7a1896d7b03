"""Advantage estimators: plain functions with one signature, registered by name.

Signature: ``fn(rewards, group_ids, eps, scale_by_std) -> advantages`` where every tensor is
``[num_episodes]``. Episodes that share a ``group_id`` were rolled out from the same task (GRPO's
group).

Ties are exact: a group whose rewards are all equal gives every member an advantage of exactly 0,
whatever the reward's value. Floating-point statistics alone do not guarantee it (the float32 mean
of eight returns of 0.9 misses 0.9 by one ulp, and dividing that residue by ``std + eps`` with
std ≈ 0 turned it into A = −0.056 for the whole group). So the statistics are computed in float64,
and a group whose spread is within rounding of its scale (``TIE_TOLERANCE``) counts as tied:
no member is pushed in any direction, and ``skip_zero_advantage`` drops the group.

Per-turn advantages (``turn_advantages``): an estimator whose advantage differs between the turns
of one episode (GiGPO, ``coevo.core.algos.gigpo``) also has a ``per_turn(episodes, scale_by_std,
settings, eps) -> list[list[float]]`` method (one value per turn of each episode); every other
estimator's episode advantage is given to each turn of its episode. Called with the signature
above, such an estimator returns its episode-level part, so every user of the registry (RSIPO's
RLVR branch, RAO's node credit) can still call it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from coevo.core import registry

if TYPE_CHECKING:
    from coevo.core.agent.types import Episode

# rewards within 1e-6 of each other, relative to max(1, |reward|), are one value: float32 keeps ~7
# significant digits, so smaller spreads are rounding (0.1 + 0.2 vs 0.3), never a real difference
TIE_TOLERANCE = 1e-6


def is_tie(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` (e.g. a group's lowest and highest reward) are one value (``TIE_TOLERANCE``)."""
    return abs(a - b) <= TIE_TOLERANCE * max(1.0, abs(a), abs(b))


def tie_exact_mean(values: Sequence[float]) -> float:
    """The mean of plain floats, exactly the common value when they are tied (``is_tie``).

    For baselines outside tensors (e.g. RSIPO's per-type centring): ``sum/len`` of three gains of 0.1
    is 0.10000000000000002, so "gain − mean" would leave −1.4e-17 instead of 0.
    """
    if not values:
        raise ValueError("the mean of no values")
    low, high = min(values), max(values)
    if is_tie(low, high):
        return values[0] if low == high else (low + high) / 2
    return min(max(math.fsum(values) / len(values), low), high)


@dataclass
class GroupStats:
    index: torch.Tensor  # [E] long, group of each episode (0..G-1)
    count: torch.Tensor  # [E] float64, size of the episode's group
    total: torch.Tensor  # [E] float64, sum of the group's rewards
    mean: torch.Tensor  # [E] float64, the group's mean reward (the common value for a tied group)
    std: torch.Tensor  # [E] float64, the group's unbiased reward std (0 for tied and singleton groups)
    tied: torch.Tensor  # [E] bool, the episode's group has (within TIE_TOLERANCE) one reward value


def group_stats(rewards: torch.Tensor, group_ids: torch.Tensor) -> GroupStats:
    """Per-episode statistics of its group, in float64, gathered back to ``[E]``."""
    values = rewards.double()  # [E]
    _, index = torch.unique(group_ids, return_inverse=True)  # [E]
    num_groups = int(index.max().item()) + 1 if index.numel() else 0
    zeros = torch.zeros(num_groups, dtype=torch.float64)  # [G]
    counts = zeros.index_add(0, index, torch.ones_like(values))  # [G]
    sums = zeros.index_add(0, index, values)  # [G]
    low = zeros.scatter_reduce(0, index, values, "amin", include_self=False)  # [G]
    high = zeros.scatter_reduce(0, index, values, "amax", include_self=False)  # [G]
    scale = torch.maximum(low.abs(), high.abs()).clamp(min=1.0)  # [G]
    tied = (high - low) <= TIE_TOLERANCE * scale  # [G]
    means = torch.where(tied, low, (sums / counts).clamp(low, high))  # [G] a mean lies within the group
    squares = zeros.index_add(0, index, (values - means[index]) ** 2)  # [G]
    std = torch.where(tied, zeros, torch.sqrt(squares / (counts - 1).clamp(min=1)))  # [G]
    return GroupStats(index, counts[index], sums[index], means[index], std[index], tied[index])


@registry.advantages.register("grpo")
def grpo_advantages(
    rewards: torch.Tensor,  # [E] float, one scalar return per episode
    group_ids: torch.Tensor,  # [E] long, episodes of the same task share an id
    eps: float = 1e-6,
    scale_by_std: bool = True,
) -> torch.Tensor:  # [E] float32
    """Group-normalised advantage A_i = (R_i - mean_g R) / (std_g R + eps).

    ``std`` is the unbiased sample standard deviation within the group (as in DeepSeekMath's
    GRPO); a group whose rewards are all equal gets advantage exactly 0 for every member. With
    ``scale_by_std=False`` only the mean is subtracted (Dr. GRPO).
    """
    stats = group_stats(rewards, group_ids)
    centred = rewards.double() - stats.mean  # [E]
    advantage = centred / (stats.std + eps) if scale_by_std else centred  # [E]
    return torch.where(stats.tied, torch.zeros_like(advantage), advantage).float()


@registry.advantages.register("rloo")
def rloo_advantages(
    rewards: torch.Tensor,  # [E]
    group_ids: torch.Tensor,  # [E]
    eps: float = 1e-6,
    scale_by_std: bool = False,
) -> torch.Tensor:  # [E] float32
    """Leave-one-out baseline: A_i = R_i - mean_{j != i in group} R_j (0 for singleton and tied groups).

    With ``scale_by_std`` the result is divided by the group's unbiased reward std (+ eps).
    """
    values = rewards.double()  # [E]
    stats = group_stats(values, group_ids)
    baseline = (stats.total - values) / (stats.count - 1).clamp(min=1)  # [E]
    advantage = values - baseline  # [E]
    if scale_by_std:
        advantage = advantage / (stats.std + eps)
    learns = (stats.count > 1) & ~stats.tied  # [E]
    return torch.where(learns, advantage, torch.zeros_like(advantage)).float()


def broadcast(episodes: Sequence[Episode], values: Sequence[float]) -> list[list[float]]:
    """``values[i]`` (episode i's advantage) once per turn of episode i."""
    return [[value] * len(episode.turns) for episode, value in zip(episodes, values)]


def turn_advantages(
    estimator, episodes: Sequence[Episode], scale_by_std: bool, settings: Any = None, eps: float = 1e-6
) -> list[list[float]]:
    """``advantages[i][t]``: the advantage of turn t of episode i under a registered estimator.

    An estimator with a ``per_turn`` method (GiGPO) computes them itself (``settings``: its own, e.g.
    ``GRPOConfig.gigpo``); any other gets the episode returns and group ids (as ``[E]`` tensors) and
    its episode advantage is given to every turn of the episode.
    """
    per_turn = getattr(estimator, "per_turn", None)
    if per_turn is not None:
        return per_turn(episodes, scale_by_std=scale_by_std, settings=settings, eps=eps)
    rewards = torch.tensor([ep.reward for ep in episodes])  # [E]
    group_ids = torch.tensor([ep.group_id for ep in episodes])  # [E]
    return broadcast(episodes, estimator(rewards, group_ids, eps=eps, scale_by_std=scale_by_std).tolist())
