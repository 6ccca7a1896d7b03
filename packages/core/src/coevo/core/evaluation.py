"""Evaluate a policy on a split of an environment with greedy decoding; per-type success."""

from __future__ import annotations

from collections.abc import Callable

import torch

from coevo.core import registry
from coevo.core.agent.loop import AgentLoop, AgentSettings, summarize
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Environment


def evaluate(
    model: torch.nn.Module,
    tokenizer,
    make_env: Callable[[], Environment],
    agent: AgentSettings,
    split: str,
    num_tasks: int,
    batch_size: int = 64,
    engine_name: str = "hf",
    engine_config=None,
    share: tuple[int, int] = (0, 1),
) -> tuple[dict[str, float], list[Episode]]:
    """Play the first ``num_tasks`` tasks of ``split`` greedily; return (summary, episodes).

    ``share=(rank, world)``: only tasks ``rank, rank + world, …`` of them (one process's share of a
    distributed evaluation; the caller combines the shares)."""
    probe = make_env()
    if split not in probe.splits:
        raise ValueError(f"eval.split: env '{probe.name}' has no split '{split}'; choose one of {list(probe.splits)}")
    total = probe.num_tasks(split)
    n = num_tasks if total is None else min(num_tasks, total)
    tasks = [probe.task(split, i) for i in range(share[0], n, share[1])]
    n = len(tasks)
    engine = registry.rollout_engines.get(engine_name)(engine_config, model, tokenizer)
    loop = AgentLoop(engine, tokenizer, agent)
    envs = [probe] + [make_env() for _ in range(min(batch_size, n) - 1)]
    episodes: list[Episode] = []
    for start in range(0, n, batch_size):
        chunk = tasks[start : start + batch_size]
        episodes += loop.run(chunk, envs[: len(chunk)], greedy=True)
    return summarize(episodes, type(probe).task_types), episodes
