"""RSIPO (Recursive Self-Improving Policy Optimization) as a LightningModule on top of core's GRPO.

``training_step`` reads as the spec's numbered steps (``shared/specs/rsipo.md``, "One training
step"; ``packages/rsipo/README.md``), each a method of a small object of its own, in a module of its
own, built here with its dependencies passed explicitly:
1. student rollouts: G episodes per task without skill, exactly as ``algo=grpo``;
2. RLVR branch: their advantages, per turn, from ``algo.advantage`` (``rlvr_advantages``);
3.-6. the skill lifecycle (``skill_lifecycle.py``): the policy writes a skill s_x per task from the
   group's finished attempts; the replay half H_r of each group is played again from the same
   initial states with s_x in the prompt, Δ_x = mean success(H_r with skill) − mean success(H_c)
   (the replays are counted in every ``budget/*`` metric, ≈ 1.5x rollouts per step); the skill
   reward r_skill = Δ_x − its type's mean; Δ_x shrunk towards its type's running mean gives ω_x
   (``SkillLifecycle(config, calibration, group_size)``);
7. OPSD branch: the teacher (same weights, no grad, s_x in the context) scores the student's own
   tokens (``update_samples.py``: ``UpdateSamples(config, context, group_size)``, which also builds the
   update's samples); L_OPSD(ω) = −mean ω_x a_t log π_θ(y_t);
8. one optimizer step on L = L_RLVR + λ L_OPSD(ω) + L_skill (``combined_update.py``:
   ``CombinedUpdate(config, pad_id, host=self)``, on this module's GRPO update machinery);
then the step's metrics and skills.jsonl rows (``step_records.py``: ``StepRecords(config, record,
log)``, which owns the checkpointed budget counters and the skill log).
The plays of 1, 3 and 4 are the batch player's (``skill_plays.py``): in this process, or in a Ray
rollout worker with the batch's weight version (``rollout.async.enabled``).
At test time the policy runs without skills (core's evaluation). With λ = 0 and no skill loss it
takes exactly GRPO's update. The baselines (``baselines.py``) are this module with other settings.

Launch: ``make train ALGO=rsipo`` (``python -m coevo.core.cli.train algo=rsipo``).
"""

from __future__ import annotations

import copy
import logging
import time
from pathlib import Path

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.agent.types import Episode
from coevo.core.algos.advantages import broadcast, turn_advantages
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.grpo import GRPO
from coevo.core.config import ConfigError
from coevo.core.env.protocol import Task
from coevo.rsipo.calibration import TrustCalibration
from coevo.rsipo.combined_update import CombinedUpdate
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.demonstrations import SkillDemonstrations
from coevo.rsipo.dynamics import dynamics_table, plot_dynamics
from coevo.rsipo.skill_lifecycle import SkillLifecycle
from coevo.rsipo.skill_log import SkillLog
from coevo.rsipo.skill_plays import SkillPlayer
from coevo.rsipo.skills.library import library
from coevo.rsipo.skills.template import template_for
from coevo.rsipo.skills.writing import SkillWriter, WrittenSkill
from coevo.rsipo.step_records import StepRecords
from coevo.rsipo.teacher import FittedSkill
from coevo.rsipo.update_samples import UpdateSamples
from coevo.rsipo.warmup import acting_samples, run_warmup, warmup_samples

log = logging.getLogger(__name__)


@registry.algorithms.register("rsipo")
class RSIPO(GRPO):
    Config = RSIPOConfig
    full_weight_forwards = True  # teacher log-probs and the frozen skill writer on each rank's full copy
    plays_async = True  # its batch player (skill_plays.py) plays students, skills and replays in a Ray worker

    @classmethod
    def expert_source(cls, config: RSIPOConfig) -> SkillDemonstrations | None:
        """Where the policy writes skills: acting plus skill-writing demonstrations in core's warm start."""
        writes = config.needs_skills and config.skill.source == "policy"
        return SkillDemonstrations(config.skill, config.warmup.warm_start_share, config.warmup.in_context_share,
                                   config.warmup.skill_kind) if (
            writes and config.warmup.warm_start_share > 0) else None

    @classmethod
    def async_refusal(cls, config: RSIPOConfig) -> tuple[str, str] | None:
        if config.needs_skills and config.skill.source == "policy" and not config.skill_evolution:
            return ("algo.skill_evolution", "with skill_evolution=false the frozen initial policy writes the skills "
                    "in the trainer's process")
        return None

    def __init__(self, config: RSIPOConfig, context: AlgorithmContext):
        super().__init__(config, context)
        self.config: RSIPOConfig = config
        self.probe = context.make_env()  # reads goals for the writing prompts
        self.env_name = self.probe.name
        self.writer = SkillWriter(context.tokenizer, template_for(self.env_name), config.skill)
        self.calibration = TrustCalibration(config.trust, log_metrics=False)
        if config.student_skills and (config.opsd_coef > 0 or config.needs_replay):
            raise ConfigError("config error: algo.student_skills (Skill-GRPO) puts skills in the student's context; "
                              "it needs algo.opsd_coef=0, algo.dynamic_trust=false and no skill loss")
        if config.skill.source == "library" or config.student_skills:
            try:
                library(self.env_name)
            except ValueError as exc:
                raise ConfigError(f"config error at 'algo.skill.source': {exc}") from None
        if config.skill.source == "hindsight" and config.needs_skills:
            task = self.probe.task("train", 0)
            self.probe.reset(task)
            if self.probe.expert_action() is None:
                raise ConfigError(f"config error at 'algo.skill.source': hindsight skills come from the env expert, and "
                                  f"env '{self.env_name}' has none; use policy or library")
        self._frozen: list = []  # skill_evolution=false: [the initial policy, frozen] (a list: not a submodule)
        self._frozen_state = None
        self._warned_default_type = False
        # the step's parts (one idea per file), each with its dependencies explicit
        self.lifecycle = SkillLifecycle(config, self.calibration, self.group_size)  # 4.-6. Δ_x, r_skill, ω_x
        self.update_samples = UpdateSamples(config, context, self.group_size)  # 7. the teacher, the samples
        self.combined_update = CombinedUpdate(config, context.tokenizer.pad_token_id, host=self)  # 8. the step on L
        self.records = StepRecords(config, self.record, self.log)  # metrics, budget, skills.jsonl

    # -- lifecycle ----------------------------------------------------------------------------
    def run_dir(self) -> Path | None:
        trainer = self._trainer
        if trainer is None:
            return None
        if trainer.logger is not None and getattr(trainer.logger, "save_dir", None):
            return Path(trainer.logger.save_dir)
        return Path(trainer.default_root_dir)

    def on_fit_start(self) -> None:
        super().on_fit_start()
        folder = self.run_dir()
        self.records.skill_log = SkillLog(folder / "skills.jsonl" if folder else None)
        cfg = self.config
        writes = cfg.needs_skills and cfg.skill.source == "policy"
        if writes and self.trainer.ckpt_path is None and cfg.warmup.steps > 0:
            self._warmup()
        if writes and not cfg.skill_evolution:
            # the writer's weights now (sharded over ranks: a full copy, no collective in its forwards)
            frozen = copy.deepcopy(self.full_policy() if self.sharded_over_ranks else self.policy).eval()
            if self._frozen_state is not None:
                frozen.load_state_dict(self._frozen_state)
            for p in frozen.parameters():
                p.requires_grad_(False)
            self._frozen = [frozen]
            engine_cls = registry.rollout_engines.get(self.context.engine_name)
            self.frozen_engine = engine_cls(self.context.engine_config, frozen, self.context.tokenizer)
            self.player.writer_engine = self.frozen_engine

    def batch_player(self) -> SkillPlayer:
        """Students, skills and replays: every play of a step (``skill_plays.py``)."""
        return SkillPlayer(self.context.make_env, self.group_size, self.context.seed, self.config, self.writer,
                           self.env_name, self.context.agent.prompt.max_prompt_tokens, probe=self.probe)

    @property
    def frozen_writer(self):
        return self._frozen[0] if self._frozen else None

    def on_train_start(self) -> None:
        super().on_train_start()
        if dist.is_main():
            self.records.skill_log.truncate_after(self.global_step)

    def _warmup(self) -> None:
        start = time.perf_counter()
        try:
            library(self.env_name)
        except ValueError as exc:
            log.warning("skill-writing warm-up skipped: %s", exc)
            return
        samples = warmup_samples(self.context.make_env(), self.context.tokenizer, self.writer.template,
                                 self.config.skill, self.config.warmup)
        if not samples:
            log.warning("skill-writing warm-up skipped: env '%s' has no expert", self.env_name)
            return
        acting = []
        if self.config.warmup.acting_fraction > 0:
            acting = acting_samples(self.context.make_env(), self.context.tokenizer, self.context.agent.prompt,
                                    self.config.warmup)
        loss = run_warmup(self.policy, samples, self.config.warmup, self.context.tokenizer.pad_token_id,
                          self.context.seed, acting)
        log.info("skill-writing warm-up: %d examples, %d steps, final loss %.3f, %.1f s", len(samples),
                 self.config.warmup.steps, loss, time.perf_counter() - start)
        self.warmup_loss = loss

    def on_train_end(self) -> None:
        folder = self.run_dir()
        if folder is None or not dist.is_main():
            return
        metrics = folder / "metrics.jsonl"
        title = f"{self.config.name} on {self.env_name}: training dynamics"
        plot_dynamics(metrics, folder / "rsipo_dynamics.png", title)
        table = dynamics_table(metrics, f"{self.config.name}: replay gain Δ and trust ω per task type")
        if table is not None:
            from rich.console import Console

            Console().print(table)

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        super().on_save_checkpoint(checkpoint)
        checkpoint["rsipo"] = {"trust": self.calibration.state_dict(), "budget": dict(self.records.budget)}
        if self.frozen_writer is not None:
            checkpoint["rsipo"]["frozen_writer"] = self.frozen_writer.state_dict()

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        super().on_load_checkpoint(checkpoint)
        state = checkpoint.get("rsipo")
        if state is not None:
            self.calibration.load_state_dict(state["trust"])
            self.records.budget = dict(state["budget"])
            self._frozen_state = state.get("frozen_writer")

    # -- one step -------------------------------------------------------------------------------
    def training_step(self, batch: list, batch_idx: int):
        """One step of L = L_RLVR + λ L_OPSD(ω) + L_skill, in the spec's numbered steps."""
        tasks = self.take_tasks(batch)
        types = self.task_types_of(tasks)
        plays = self.play_batch(tasks)  # 1. G rollouts per task, 3. s_x written, 4. H_r replayed (skill_plays.py)
        episodes = plays.episodes
        self.log_rollout_metrics(episodes)
        g = self.group_size
        groups = [episodes[i * g : (i + 1) * g] for i in range(len(tasks))]
        advantages = self.rlvr_advantages(episodes)  # 2. the RLVR branch's advantages, per turn
        skills = self.lifecycle.skill_step(tasks, types, groups, plays)  # 4.-6. Δ_x, r_skill, ω_x
        # 7. the teacher's log-probs of the student's turns
        teacher = self.update_samples.opsd_targets(groups, skills, self.no_grad_policy(), self.batch_index,
                                                   self.logprob_temperature)
        samples = self.update_samples.action_samples(episodes, advantages, skills.omega, teacher)
        skill_samples = self.update_samples.skill_samples(skills)
        stats = self.combined_update.step(samples, skill_samples)  # 8. L = L_RLVR + λ L_OPSD(ω) + L_skill
        self.records.record_step(tasks, types, episodes, skills, stats, self.global_step)
        return None

    # -- the player's steps 3 and the teacher's 7 on this process's batch (tests, tools) -------------
    def skills_for(self, tasks: list[Task], groups: list[list[Episode]]) -> list[WrittenSkill]:
        """3. The skills of ``tasks`` written (or taken) with the current weights, for this batch."""
        self.engine.sync_weights(self.policy)
        return self.player.skills_for(self.engine, tasks, groups, self.batch_index)

    def fit_skills(self, skills: list[WrittenSkill], groups: list[list[Episode]]) -> list[FittedSkill]:
        """Each skill cut to fit the context, with its teacher prompts (``skill_plays.py``)."""
        return self.player.fit_skills(skills, groups)

    def teacher_values(self, groups: list[list[Episode]], fitted: list[FittedSkill]) -> dict[tuple[int, int], object]:
        """7. The teacher's values of ``groups``' student turns under this module's current weights and
        batch (``UpdateSamples.teacher_values``)."""
        return self.update_samples.teacher_values(groups, fitted, self.no_grad_policy(), self.batch_index,
                                                  self.logprob_temperature)

    def rlvr_advantages(self, episodes: list[Episode]) -> list[list[float]]:  # [E][turns]
        """2. ``advantages[i][t]``: turn t of episode i's advantage under ``algo.advantage`` (the
        registry's estimator, as GRPO's: grpo and rloo give each turn its episode's value, gigpo its
        per-turn values); all 0 without the RLVR term."""
        if not self.config.rlvr:
            return broadcast(episodes, [0.0] * len(episodes))
        return turn_advantages(self.advantage_fn, episodes, self.config.scale_by_std, self.config.gigpo)

    def task_types_of(self, tasks: list[Task]) -> list[str]:
        """Each task's type; tasks without one fall into ``algo.default_type`` (warned once)."""
        types = []
        for task in tasks:
            if task.task_type:
                types.append(task.task_type)
                continue
            if not self._warned_default_type:
                log.warning("task %s has no type; tasks without a type share the type '%s'", task.task_id,
                            self.config.default_type)
                self._warned_default_type = True
            types.append(self.config.default_type)
        return types
