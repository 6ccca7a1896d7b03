"""``algo=skill_prompt``: the Skill-Prompt baseline, evaluation only.

No training: the first (and only) step plays the first ``num_tasks`` tasks of ``split`` (as core's
evaluation does: ``samples_per_task`` sampled episodes per task from a seeded generator, or greedily
once) with the static library skill of each task's type before the first message, records
``skill_prompt/*`` metrics, writes ``eval_skill_prompt.json`` in the run folder, prints the
per-type table, and stops the run. The CLI's own before/after evaluations (without skills) are
those of the unchanged policy. Launch: ``make train ALGO=skill_prompt``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from rich.console import Console

from coevo.core import registry
from coevo.core.agent.loop import AgentLoop, summarize
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.optim import OptimSettings
from coevo.core.algos.rollout_module import RolloutModule
from coevo.core.config import ConfigError
from coevo.core.evaluation import EVAL_MODES, eval_tasks, play_tasks
from coevo.core.fields import bounded, choice, free_text, random_seed, registry_name, split_name
from coevo.core.reporting import success_table
from coevo.rsipo.skills.library import library, static_skill
from coevo.rsipo.teacher import skill_context


@dataclass
class SkillPromptConfig:
    name: str = registry_name("skill_prompt")
    tasks_per_step: int = bounded(1, ge=1)  # the data module's batch (unused: nothing is trained)
    # split evaluated with skills (match eval.split; the env's splits are checked when it is played)
    split: str = split_name("eval_in_distribution")
    num_tasks: int = bounded(60, ge=1)  # tasks evaluated (match eval.num_tasks)
    batch_size: int = bounded(60, ge=1)  # environments played in parallel
    mode: str = choice("sample", EVAL_MODES)  # sample | greedy (match eval.mode)
    samples_per_task: int = bounded(4, ge=1)  # mode=sample (match eval.samples_per_task)
    sample_seed: int = random_seed(0)
    context_prefix: str = free_text("Skill: ")  # the skill's line before the first user message: any text
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=0.0))  # unused: no parameter changes


def evaluate_with_skills(module: RolloutModule, c: SkillPromptConfig) -> dict:
    probe = module.context.make_env()
    tasks = eval_tasks(probe, c.split, c.num_tasks, c.samples_per_task if c.mode == "sample" else 1)
    module.engine.sync_weights(module.policy)  # sharded over ranks: the replica gets the current weights
    loop = AgentLoop(module.engine, module.context.tokenizer, module.context.agent)
    episodes = play_tasks(loop, tasks, module.envs(min(c.batch_size, len(tasks))), c.batch_size,
                          c.mode == "greedy", c.sample_seed,
                          context=lambda task: skill_context(static_skill(probe.name, task.task_type), c.context_prefix))
    return summarize(episodes, module.context.task_types)


@registry.algorithms.register("skill_prompt")
class SkillPrompt(RolloutModule):
    Config = SkillPromptConfig

    def __init__(self, config: SkillPromptConfig, context: AlgorithmContext):
        super().__init__(context, config.optim, group_size=1)
        self.config = config
        if config.mode not in EVAL_MODES:
            raise ConfigError(f"config error at 'algo.mode': unknown '{config.mode}'; choose one of {list(EVAL_MODES)}")
        try:
            library(self.envs(1)[0].name)
        except ValueError as exc:
            raise ConfigError(f"config error at 'algo.name': skill_prompt: {exc}") from None

    def training_step(self, batch, batch_idx):
        self.take_tasks(batch)
        c = self.config
        summary = evaluate_with_skills(self, c)
        self.record({f"skill_prompt/{k}": v for k, v in summary.items()})
        folder = self.trainer.logger.save_dir if self.trainer.logger is not None else self.trainer.default_root_dir
        path = f"{folder}/eval_skill_prompt.json"
        with open(path, "w") as handle:
            json.dump(summary, handle, indent=2)
        how = "greedy" if c.mode == "greedy" else f"sampled, {c.samples_per_task} per task"
        Console().print(success_table(None, summary, f"skill_prompt: success with library skills ({c.split}, {how})",
                                    single="success"))
        self.optimizer_step_with_clipping()  # no gradients: the weights stay; the step counter advances
        self.trainer.should_stop = True
        return None
