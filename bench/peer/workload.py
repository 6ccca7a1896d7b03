"""The workload both frameworks run: same model folder, prompts, reward and hyper-parameters.

Prompts are coevo's single-turn math prompts (the ``math`` environment's generated problems,
rendered by the agent loop's prompt builder with the default ``train.yaml`` settings).
The reward is the environment's own: ``parse_action`` (the last ``\\boxed{}``; a reply without
one, or without an end-of-turn token, is invalid) and ``step`` (math-verify), minus
``invalid_penalty`` for an invalid reply, exactly as coevo's agent loop scores an episode.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from omegaconf import DictConfig

from coevo.core.agent.prompt import PromptSettings, build_messages, opening
from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import validate
from coevo.core.env.protocol import Environment, Task


@dataclass
class Workload:
    model_dir: str  # a local Hugging Face model folder (both sides load it)
    steps: int = 10  # optimizer steps per run
    tasks_per_step: int = 4  # distinct prompts per step
    group_size: int = 8  # completions per prompt (GRPO's G)
    max_new_tokens: int = 64  # completion length limit (both sides stop at the end-of-turn token)
    lr: float = 3e-4
    kl_coef: float = 0.0  # TRL's default beta; 0: no reference forward on either side
    temperature: float = 1.0
    invalid_penalty: float = 0.1  # coevo's default (train.yaml)
    threads: int = 1  # torch threads on both sides
    seed: int = 0
    first_task: int = 0  # train-split index of the first problem
    env_overrides: tuple[str, ...] = ()  # extra Hydra overrides (e.g. "env.difficulty=2")
    async_staleness: int | None = None  # coevo only: rollouts on a Ray worker beside training, this bound

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(asdict(self)))

    @classmethod
    def load(cls, path: Path) -> Workload:
        data = json.loads(Path(path).read_text())
        data["env_overrides"] = tuple(data.get("env_overrides", ()))
        return cls(**data)

    @property
    def batch_size(self) -> int:
        return self.tasks_per_step * self.group_size


def train_config(w: Workload) -> DictConfig:
    """``train.yaml`` with ``env=math algo=grpo`` and the workload's settings."""
    overrides = [
        "env=math", "algo=grpo", f"seed={w.seed}",
        f"algo.tasks_per_step={w.tasks_per_step}", f"algo.group_size={w.group_size}",
        f"algo.kl_coef={w.kl_coef}", f"algo.optim.lr={w.lr}", "algo.optim.schedule=constant",
        "algo.optim.warmup_steps=0", "algo.optim.weight_decay=0.0", "algo.optim.grad_clip=1.0",
        "algo.updates_per_batch=1", "algo.loss_aggregation=token_mean", "algo.scale_by_std=true",
        # the same work as TRL, which trains every completion: no skipping of zero-advantage groups
        "algo.skip_zero_advantage=false",
        f"agent.sampling.max_new_tokens={w.max_new_tokens}", f"agent.sampling.temperature={w.temperature}",
        "agent.sampling.top_p=1.0", f"agent.invalid_penalty={w.invalid_penalty}",
        f"trainer.max_steps={w.steps}", f"trainer.cpu_threads={w.threads}", "trainer.precision=32-true",
        *w.env_overrides,
    ]
    return compose_config("train", overrides)


def settings(cfg: DictConfig) -> TrainSchema:
    return validate(cfg, TrainSchema, "train")


def make_env(cfg: DictConfig) -> Environment:
    return env_factory(cfg.env)[2]()


def tasks(w: Workload, env: Environment) -> list[Task]:
    """The problems of the run, in order: ``tasks_per_step`` per step."""
    return [env.task("train", w.first_task + i) for i in range(w.steps * w.tasks_per_step)]


def prompt_messages(prompt: PromptSettings, env: Environment, task: Task) -> list[dict[str, str]]:
    """The chat messages of the task's first (and only) turn, as coevo's agent loop builds them."""
    first = opening(prompt, env.reset(task), env.goal)
    return build_messages(prompt, first, [], env.memory() if prompt.memory else None, None, 0, goal=env.goal)


def episode_reward(env: Environment, task: Task, text: str, finished: bool, invalid_penalty: float) -> float:
    """The return coevo's agent loop gives a one-turn episode whose reply decodes to ``text``."""
    env.reset(task)
    action = env.parse_action(text) if finished else None
    if action is None:
        return -invalid_penalty
    result = env.step(action)
    return result.reward - (invalid_penalty if result.invalid else 0.0)
