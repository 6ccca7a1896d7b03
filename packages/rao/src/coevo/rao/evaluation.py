"""Play recursion trees with the policy: training rollouts and greedy held-out evaluation.

``play_trees`` is the one place that turns (policy, tasks) into trees: it resolves the decoding
mode for the environment as core's agent loop does (``agent.mode``), makes one ``ModelDecider``
and lets the runner play the batch. ``evaluate_trees`` plays the first tasks of a split greedily
and summarises them; ``scaled_env_factory`` builds environments whose size knob (a field of the
environment's config dataclass) is set to another value, for generalisation beyond training.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from typing import Any

import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.config import ConfigError
from coevo.core.env.protocol import Environment, Task
from coevo.core.rollout.engine import RolloutEngine
from coevo.rao.deciders import ModelDecider
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import RecursionSettings
from coevo.rao.tree import Tree
from coevo.rao.treestats import success_by_type, tree_stats


def decoding_mode(engine: RolloutEngine, tokenizer, agent: AgentSettings, env: Environment) -> str:
    """"generate" or "choose" for ``env``, resolved exactly as core's agent loop resolves ``agent.mode``."""
    return AgentLoop(engine, tokenizer, agent).mode_for(env)


def play_trees(
    engine: RolloutEngine, tokenizer, agent: AgentSettings, recursion: RecursionSettings, tasks: list[Task],
    envs: list[Environment], group_ids: list[int] | None = None, greedy: bool = False,
    generator: torch.Generator | None = None,
) -> tuple[list[Tree], float]:
    """``(trees, wall-clock seconds)`` of ``tasks`` played by the policy behind ``engine``."""
    if not tasks:
        return [], 0.0
    runner = TreeRunner(agent.prompt, recursion, tokenizer, agent.max_turns)
    decider = ModelDecider(engine, tokenizer, agent, greedy=greedy, generator=generator)
    mode = decoding_mode(engine, tokenizer, agent, envs[0])
    start = time.perf_counter()
    trees = runner.run(tasks, envs, decider, group_ids, mode)
    return trees, time.perf_counter() - start


def evaluate_trees(
    engine: RolloutEngine, tokenizer, agent: AgentSettings, recursion: RecursionSettings,
    make_env: Callable[[], Environment], split: str, num_tasks: int, batch_size: int,
) -> tuple[dict[str, float], list[Tree]]:
    """Greedy play of the first ``num_tasks`` tasks of ``split``: ``(summary, trees)``."""
    probe = make_env()
    if split not in probe.splits:
        raise ConfigError(f"algo.report.split: env '{probe.name}' has no split '{split}'; choose one of "
                          f"{list(probe.splits)}")
    total = probe.num_tasks(split)
    n = num_tasks if total is None else min(num_tasks, total)
    tasks = [probe.task(split, i) for i in range(n)]
    envs = [probe] + [make_env() for _ in range(min(batch_size, n) - 1)]
    trees, wall = [], 0.0
    for start in range(0, n, batch_size):
        chunk = tasks[start : start + batch_size]
        played, seconds = play_trees(engine, tokenizer, agent, recursion, chunk, envs[: len(chunk)], greedy=True)
        trees += played
        wall += seconds
    stats = tree_stats(trees, wall)
    stats.update(success_by_type(trees, type(probe).task_types))
    return stats, trees


def scaled_env_factory(make_env: Callable[[], Environment], knob: str, value: Any) -> Callable[[], Environment]:
    """A factory of ``make_env``'s environment with config field ``knob`` set to ``value``."""
    probe = make_env()
    config = getattr(probe, "config", None)
    if config is None or not dataclasses.is_dataclass(config):
        raise ConfigError(f"algo.report.knob: env '{probe.name}' has no config dataclass to scale")
    names = [f.name for f in dataclasses.fields(config)]
    if knob not in names:
        raise ConfigError(f"algo.report.knob: env '{probe.name}' has no config field '{knob}'; fields: {names}")
    changes = {knob: value}
    if f"ood_{knob}" in names:  # the scaled env plays in-distribution; its own ood value must stay larger
        changes[f"ood_{knob}"] = 0
    try:
        scaled = type(probe)(dataclasses.replace(config, **changes))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"algo.report.values: env '{probe.name}' refuses {knob}={value!r}: {exc}") from None
    return functools.partial(type(probe), scaled.config)


def beyond_range(make_env: Callable[[], Environment], knob: str) -> Any:
    """The env's explicitly set out-of-distribution value of ``knob`` (``env.ood_<knob>``, which
    ``eval.depth`` / ``eval.size`` set), or ``None`` when it is unset (0) or the env has none."""
    config = getattr(make_env(), "config", None)
    return getattr(config, f"ood_{knob}", None) or None
