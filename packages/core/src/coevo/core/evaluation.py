"""Evaluate a policy on a split of an environment, per task type: greedy decoding (each task once),
or sampled from the policy as it is trained (several episodes per task, a fixed sampling seed)."""

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
    mode: str = "greedy",
    samples_per_task: int = 1,
    sample_seed: int = 0,
) -> tuple[dict[str, float], list[Episode]]:
    """Play the first ``num_tasks`` tasks of ``split``; return (summary, episodes).

    ``mode="greedy"``: each task once with argmax decoding. ``mode="sample"``: ``samples_per_task``
    episodes per task, sampled as in training (``agent.sampling`` / the choice softmax), from a
    generator seeded with ``sample_seed`` inside a forked RNG, so the caller's random state (a
    training run's, which exact resume relies on) is untouched. ``share=(rank, world)``: only
    episodes ``rank, rank + world, …`` of them (one process's share of a distributed evaluation;
    the caller combines the shares)."""
    if mode not in ("greedy", "sample"):
        raise ValueError(f"eval.mode: unknown '{mode}'; choose greedy or sample")
    probe = make_env()
    if split not in probe.splits:
        raise ValueError(f"eval.split: env '{probe.name}' has no split '{split}'; choose one of {list(probe.splits)}")
    total = probe.num_tasks(split)
    n = num_tasks if total is None else min(num_tasks, total)
    repeats = samples_per_task if mode == "sample" else 1
    everything = [probe.task(split, i) for i in range(n) for _ in range(repeats)]
    tasks = everything[share[0] :: share[1]]
    n = len(tasks)
    engine = registry.rollout_engines.get(engine_name)(engine_config, model, tokenizer)
    loop = AgentLoop(engine, tokenizer, agent)
    envs = [probe] + [make_env() for _ in range(min(batch_size, n) - 1)]
    episodes: list[Episode] = []
    with torch.random.fork_rng():
        torch.manual_seed(sample_seed + share[0])
        generator = torch.Generator().manual_seed(sample_seed + share[0])
        for start in range(0, n, batch_size):
            chunk = tasks[start : start + batch_size]
            episodes += loop.run(chunk, envs[: len(chunk)], greedy=mode == "greedy", generator=generator)
    return summarize(episodes, type(probe).task_types), episodes
