"""Grouped rollouts: every task played ``group_size`` times in a row, from one seed, in one call.

GRPO-style methods compare the episodes of one task with each other, so the algorithms expand a
batch of tasks into groups, seed the sampling and play them. ``play_groups`` does that for every
algorithm: copies of a task are adjacent and carry their task's index as ``group_id``, and the
seed sets torch's global RNG (transformers' sampling draws from it) and the loop's generator, so
the same weights and seed replay the same episodes (exact resume and rollback rely on it). Each
algorithm derives its seed its own way (step, rank, a salt) and passes it in.
"""

from __future__ import annotations

import torch

from coevo.core.agent.loop import AgentLoop
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Environment, Task


def expand_groups(tasks: list[Task], group_size: int) -> tuple[list[Task], list[int]]:
    """``group_size`` copies of every task in a row, and each copy's group id (its task's index)."""
    expanded = [task for task in tasks for _ in range(group_size)]
    group_ids = [i for i in range(len(tasks)) for _ in range(group_size)]
    return expanded, group_ids


def seeded_generator(seed: int) -> torch.Generator:
    """Seed torch's global RNG with ``seed`` and return a generator seeded with it too."""
    torch.manual_seed(seed)  # transformers' sampling draws from the global generator
    return torch.Generator().manual_seed(seed)


def play_groups(loop: AgentLoop, tasks: list[Task], group_size: int, envs: list[Environment], seed: int,
                contexts: list[str | None] | None = None) -> list[Episode]:
    """``len(tasks) * group_size`` episodes, task-major; ``contexts[i]`` (optional) goes before the
    first message of every episode of task ``i``. ``envs`` holds at least one environment per episode."""
    expanded, group_ids = expand_groups(tasks, group_size)
    if len(envs) < len(expanded):
        raise ValueError(f"{len(expanded)} episodes need as many environments, got {len(envs)}")
    per_episode = None if contexts is None else [c for c in contexts for _ in range(group_size)]
    generator = seeded_generator(seed)
    return loop.run(expanded, envs[: len(expanded)], group_ids, generator=generator, contexts=per_episode)
