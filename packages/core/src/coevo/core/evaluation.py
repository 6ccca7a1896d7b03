"""Evaluate a policy on a split of an environment, per task type: greedy decoding (each task once),
or sampled from the policy as it is trained (several episodes per task, a fixed sampling seed)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from coevo.core import registry
from coevo.core.agent.loop import AgentLoop, AgentSettings, summarize
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Environment, Task

#: ``eval.mode``: sampled as in training (several episodes per task) or greedily (each task once)
EVAL_MODES = ("greedy", "sample")


def check_mode(mode: str) -> None:
    if mode not in EVAL_MODES:
        raise ValueError(f"eval.mode: unknown '{mode}'; choose one of {list(EVAL_MODES)}")


def eval_tasks(probe: Environment, split: str, num_tasks: int, repeats: int = 1,
               share: tuple[int, int] = (0, 1)) -> list[Task]:
    """The first ``num_tasks`` tasks of ``split``, each ``repeats`` times in a row; of those, only
    positions ``rank, rank + world, …`` for ``share=(rank, world)``."""
    if split not in probe.splits:
        raise ValueError(f"eval.split: env '{probe.name}' has no split '{split}'; choose one of {list(probe.splits)}")
    total = probe.num_tasks(split)
    n = num_tasks if total is None else min(num_tasks, total)
    everything = [probe.task(split, i) for i in range(n) for _ in range(repeats)]
    return everything[share[0] :: share[1]]


def play_tasks(loop: AgentLoop, tasks: list[Task], envs: list[Environment], batch_size: int, greedy: bool,
               seed: int, context: Callable[[Task], str | None] | None = None) -> list[Episode]:
    """Play ``tasks`` in batches of ``batch_size`` (``envs`` holds at least one batch's worth).

    Sampling draws from a generator seeded with ``seed`` inside a forked RNG, so the same weights
    replay the same episodes and the caller's random state (a training run's, which exact resume
    relies on) is untouched. ``context(task)``: text before the task's first message (e.g. a skill).
    """
    episodes: list[Episode] = []
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        generator = torch.Generator().manual_seed(seed)
        for start in range(0, len(tasks), batch_size):
            chunk = tasks[start : start + batch_size]
            contexts = [context(t) for t in chunk] if context is not None else None
            episodes += loop.run(chunk, envs[: len(chunk)], greedy=greedy, generator=generator, contexts=contexts)
    return episodes


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
    context: Callable[[Task], str | None] | None = None,
) -> tuple[dict[str, float], list[Episode]]:
    """Play the first ``num_tasks`` tasks of ``split``; return (summary, episodes).

    ``mode="greedy"``: each task once with argmax decoding. ``mode="sample"``: ``samples_per_task``
    episodes per task, sampled as in training (``agent.sampling`` / the choice softmax), seeded with
    ``sample_seed`` (:func:`play_tasks`). ``share=(rank, world)``: only episodes ``rank, rank + world, …``
    of them (one process's share of a distributed evaluation; the caller combines the shares).
    ``context(task)``: text before each task's first message (e.g. a skill; :func:`play_tasks`)."""
    check_mode(mode)
    probe = make_env()
    tasks = eval_tasks(probe, split, num_tasks, samples_per_task if mode == "sample" else 1, share)
    engine = registry.rollout_engines.get(engine_name)(engine_config, model, tokenizer)
    loop = AgentLoop(engine, tokenizer, agent)
    envs = [probe] + [make_env() for _ in range(min(batch_size, len(tasks)) - 1)]
    episodes = play_tasks(loop, tasks, envs, batch_size, mode == "greedy", sample_seed + share[0], context)
    return summarize(episodes, type(probe).task_types), episodes


def with_greedy(play: Callable[[str, int], dict[str, float]], mode: str, samples_per_task: int,
                also_greedy: bool) -> dict[str, float]:
    """``play(mode, samples_per_task)``'s summary; for ``mode="sample"`` with ``also_greedy``, plus a
    greedy pass under keys ``greedy/…`` (the table's "ALL, greedy" row)."""
    summary = play(mode, samples_per_task)
    if mode == "sample" and also_greedy:
        summary.update({f"greedy/{key}": value for key, value in play("greedy", 1).items()})
    return summary
