"""GiGPO: group-in-group advantages, per turn (Feng et al. 2025, "Group-in-Group Policy Optimization
for LLM Agent Training", arXiv 2505.10978; verl-agent's ``gigpo/core_gigpo.py``).

Choose it with ``algo.advantage=gigpo`` (``make train ALGO=grpo ARGS="algo.advantage=gigpo"``).
A turn's advantage is the sum of two group-relative terms:

1. Episode level (the paper's Eq. 3, GRPO's): the episode's return R normalised within its group
   of episodes of the same task, ``A_E = (R - mean_g R) / (std_g R + eps)`` (only ``R - mean`` with
   ``scale_by_std=False``), ``grpo_advantages`` exactly.
2. Step level (Eqs. 5-7): the turns of a group's episodes met at the same environment state
   (equal ``Turn.state_key``, the state before the turn's action: the "anchor state") form an anchor
   group. Each such turn's discounted return from that step on, ``G_t = r_t + gamma * G_{t+1}``
   (``G`` past the last turn is 0), is normalised within its anchor group the same way:
   ``A_S = (G_t - mean_a G) / (std_a G + eps)`` (or ``G_t - mean``). A state met once (an anchor
   group of one turn), a turn without a state key, and an anchor group whose returns are all
   equal get ``A_S = 0`` exactly (``advantages.group_stats``' ties).

The turn's advantage is ``A_E + omega * A_S`` (Eq. 8), omega = ``GiGPOSettings.step_weight``.

The step rewards ``r_t`` are the environment's rewards of the turns, with the episode's
invalid-action penalties (``Episode.reward - sum of the turn rewards``) shared equally by its
invalid turns (by its last turn when none is invalid), so that they sum to the return R that the
episode level uses. An invalid action leaves the state unchanged, so the next turn is met at the
same state and the two fall into one anchor group, where the penalty tells them apart.

Anchor groups are only formed inside an episode group (same task): two tasks' equal keys are
different states. An environment without state keys (``Environment.state_key`` returns ``None``)
gets the episode-level advantages alone, said once in the log. Called with the episode signature
of ``registry.advantages`` (RSIPO, RAO), the estimator returns its episode level.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from coevo.core import registry
from coevo.core.agent.types import Episode
from coevo.core.algos.advantages import broadcast, grpo_advantages
from coevo.core.fields import bounded

log = logging.getLogger(__name__)
_without_keys: set[str] = set()  # environments already named in the fallback message


@dataclass
class GiGPOSettings:
    """``algo.gigpo``: read only with ``algo.advantage=gigpo``."""

    gamma: float = bounded(0.95, ge=0, le=1)  # discount of the step-level returns (paper: 0.95)
    step_weight: float = bounded(1.0, ge=0)  # omega, the step-level term's weight (paper: 1.0)


def step_rewards(episode: Episode) -> list[float]:
    """The turns' rewards, the episode's invalid-action penalties on its invalid turns: they sum to R."""
    rewards = [turn.reward for turn in episode.turns]
    if not rewards:
        return rewards
    residual = episode.reward - sum(rewards)  # -invalid_penalty * num_invalid
    if residual == 0.0:
        return rewards
    invalid = [t for t, turn in enumerate(episode.turns) if turn.invalid] or [len(rewards) - 1]
    for t in invalid:
        rewards[t] += residual / len(invalid)
    return rewards


def discounted_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """``G_t = r_t + gamma * G_{t+1}``, from the last turn back (Eq. 5)."""
    returns, running = [0.0] * len(rewards), 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


def anchor_groups(episodes: Sequence[Episode]) -> list[list[int]]:
    """``ids[i][t]``: the anchor group of turn t of episode i: equal for the turns of one episode
    group met at equal state keys, its own for a turn without a key (Eq. 6)."""
    index: dict[tuple, int] = {}
    ids = []
    for episode in episodes:
        row = []
        for turn in episode.turns:
            key = (episode.group_id, turn.state_key) if turn.state_key is not None else ("alone", len(index))
            row.append(index.setdefault(key, len(index)))
        ids.append(row)
    return ids


def step_advantages(
    episodes: Sequence[Episode], gamma: float, scale_by_std: bool, eps: float = 1e-6
) -> list[list[float]]:
    """``A_S`` of every turn: its discounted return normalised within its anchor group (Eq. 7)."""
    returns = [discounted_returns(step_rewards(ep), gamma) for ep in episodes]
    groups = anchor_groups(episodes)
    flat_returns = torch.tensor([g for row in returns for g in row], dtype=torch.float64)  # [turns]
    flat_groups = torch.tensor([a for row in groups for a in row], dtype=torch.long)  # [turns]
    if not flat_groups.numel():
        return [[] for _ in episodes]
    flat = grpo_advantages(flat_returns, flat_groups, eps=eps, scale_by_std=scale_by_std).tolist()
    out, start = [], 0
    for row in returns:
        out.append(flat[start : start + len(row)])
        start += len(row)
    return out


class GiGPOEstimator:
    """The ``gigpo`` advantage estimator: GRPO's episode advantages called as ``fn(rewards,
    group_ids, eps, scale_by_std)``; per turn, ``A_E + omega * A_S`` (``per_turn``)."""

    def __call__(
        self, rewards: torch.Tensor, group_ids: torch.Tensor, eps: float = 1e-6, scale_by_std: bool = True
    ) -> torch.Tensor:  # [E] float32
        return grpo_advantages(rewards, group_ids, eps=eps, scale_by_std=scale_by_std)

    def per_turn(
        self, episodes: Sequence[Episode], scale_by_std: bool, settings: GiGPOSettings | None = None,
        eps: float = 1e-6,
    ) -> list[list[float]]:
        settings = settings if settings is not None else GiGPOSettings()
        rewards = torch.tensor([ep.reward for ep in episodes])  # [E]
        group_ids = torch.tensor([ep.group_id for ep in episodes])  # [E]
        episode_level = self(rewards, group_ids, eps=eps, scale_by_std=scale_by_std).tolist()  # [E]
        self._say_fallback(episodes)
        if not any(turn.state_key is not None for ep in episodes for turn in ep.turns):
            return broadcast(episodes, episode_level)
        steps = step_advantages(episodes, settings.gamma, scale_by_std, eps)
        omega = settings.step_weight
        return [[a_e + omega * a_s for a_s in row] for a_e, row in zip(episode_level, steps)]

    @staticmethod
    def _say_fallback(episodes: Sequence[Episode]) -> None:
        """Log once per environment whose turns carry no state key (its step level is all 0)."""
        keyed = {ep.task.env for ep in episodes if any(turn.state_key is not None for turn in ep.turns)}
        for env in sorted({ep.task.env for ep in episodes if ep.turns} - keyed - _without_keys):
            _without_keys.add(env)
            log.warning(
                "algo.advantage=gigpo: env '%s' gives no state keys (Environment.state_key() is None), so "
                "there are no anchor states: its turns get GRPO's episode-level advantages alone", env,
            )


registry.advantages.register("gigpo", GiGPOEstimator())
