"""RSIPO (Recursive Self-Improving Policy Optimization) as a LightningModule on top of core's GRPO.

What it adds to GRPO, per training step (``packages/rsipo/README.md``, "One training step"):
1. the G student rollouts of each task and their GRPO advantages, exactly as ``algo=grpo``;
2. the policy writes a skill s_x for each task from the group's finished attempts (on-policy);
3. the replay half H_r of each group is played again from the same initial states with s_x in
   the prompt; Δ_x = mean success(H_r with skill) − mean success(H_c); the replays are counted in
   every ``budget/*`` metric (≈ 1.5x rollouts per step);
4. skill reward r_skill = Δ_x − its type's mean (``centring.py``); L_skill = PG on the skill tokens;
5. Δ_x is shrunk towards its type's running mean (empirical Bayes) and gives ω_x (``calibration.py``);
6. the teacher (same weights, no grad, s_x in the context) scores the student's own tokens;
   L_OPSD(ω) = −mean ω_x a_t log π_θ(y_t);
7. one optimizer step on L = L_RLVR + λ L_OPSD(ω) + L_skill.
At test time the policy runs without skills (core's evaluation). With λ = 0 and no skill loss it
takes exactly GRPO's update. The baselines (``baselines.py``) are this module with other settings.

Launch: ``make train ALGO=rsipo`` (``python -m coevo.core.cli.train algo=rsipo``).
"""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import replace
from pathlib import Path

import torch

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.agent.groups import play_groups
from coevo.core.agent.types import Episode
from coevo.core.algos.batching import Sample
from coevo.core.algos.context import AlgorithmContext
from coevo.core.algos.grpo import GRPO
from coevo.core.algos.losses import aggregate, clipped_policy_gradient_loss, k3_kl
from coevo.core.algos.micro_batches import MicroBatch, loss_normalizer, loss_tensors, split_micro_batches
from coevo.core.algos.rollout_module import rank_seed, step_seed
from coevo.core.config import ConfigError
from coevo.core.env.protocol import Task
from coevo.rsipo.calibration import TrustCalibration, TrustResult
from coevo.rsipo.centring import centred_skill_rewards
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.demonstrations import SkillDemonstrations
from coevo.rsipo.dynamics import dynamics_table, plot_dynamics
from coevo.rsipo.gain import split_group
from coevo.rsipo.losses import opsd_loss
from coevo.rsipo.records import SkillLog
from coevo.rsipo.samples import has_teacher, opsd_units, teacher_tensor, turn_sample
from coevo.rsipo.skills.library import library, static_skill
from coevo.rsipo.skills.template import template_for
from coevo.rsipo.skills.writing import SkillWriter, WrittenSkill
from coevo.rsipo.teacher import (
    FittedSkill,
    fit_skill,
    skill_context,
    teacher_choice_logprobs,
    teacher_token_logprobs,
)
from coevo.rsipo.warmup import acting_samples, run_warmup, warmup_samples

log = logging.getLogger(__name__)

REPLAY_SALT = 0x5EED  # replays draw from their own seeded stream, distinct from the student's


@registry.algorithms.register("rsipo")
class RSIPO(GRPO):
    Config = RSIPOConfig
    full_weight_forwards = True  # teacher log-probs and the frozen skill writer on each rank's full copy

    @classmethod
    def expert_source(cls, config: RSIPOConfig) -> SkillDemonstrations | None:
        """Where the policy writes skills: acting plus skill-writing demonstrations in core's warm start."""
        writes = config.needs_skills and config.skill.source == "policy"
        return SkillDemonstrations(config.skill, config.warmup.warm_start_share) if (
            writes and config.warmup.warm_start_share > 0) else None

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
        self._frozen: list = []  # skill_evolution=false: [the initial policy, frozen] (a list: not a submodule)
        self._frozen_state = None
        self.budget = {"rollouts_total": 0.0, "env_steps_total": 0.0}
        self.skill_log = SkillLog(None)
        self._warned_default_type = False

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
        self.skill_log = SkillLog(folder / "skills.jsonl" if folder else None)
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

    @property
    def frozen_writer(self):
        return self._frozen[0] if self._frozen else None

    def on_train_start(self) -> None:
        super().on_train_start()
        if dist.is_main():
            self.skill_log.truncate_after(self.global_step)

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
        checkpoint["rsipo"] = {"trust": self.calibration.state_dict(), "budget": dict(self.budget)}
        if self.frozen_writer is not None:
            checkpoint["rsipo"]["frozen_writer"] = self.frozen_writer.state_dict()

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        super().on_load_checkpoint(checkpoint)
        state = checkpoint.get("rsipo")
        if state is not None:
            self.calibration.load_state_dict(state["trust"])
            self.budget = dict(state["budget"])
            self._frozen_state = state.get("frozen_writer")

    # -- one step -------------------------------------------------------------------------------
    def training_step(self, batch: list, batch_idx: int):
        cfg = self.config
        tasks = self.take_tasks(batch)
        types = self.task_types_of(tasks)
        g = self.group_size
        if cfg.student_skills:  # Skill-GRPO: the student itself plays with the library skill
            episodes = self.play(tasks, g, [self.library_context(t) for t in tasks], salt=0)
        else:
            episodes = self.rollout(tasks)
        self.log_rollout_metrics(episodes)
        groups = [episodes[i * g : (i + 1) * g] for i in range(len(tasks))]
        rewards = torch.tensor([ep.reward for ep in episodes])  # [E]
        group_ids = torch.tensor([ep.group_id for ep in episodes])  # [E]
        if cfg.rlvr:
            advantages = self.advantage_fn(rewards, group_ids, scale_by_std=cfg.scale_by_std)  # [E]
        else:
            advantages = torch.zeros_like(rewards)
        metrics: dict[str, float] = {}
        skills = self.skills_for(tasks, groups) if cfg.needs_skills and not cfg.student_skills else None
        fitted = self.fit_skills(skills, groups) if skills is not None else None
        trust, omega, skill_rewards = None, [1.0] * len(tasks), [0.0] * len(tasks)
        replay_episodes: list[Episode] = []
        if cfg.needs_replay and fitted is not None:
            trust, replay_episodes, skill_rewards = self.execution_check(tasks, types, groups, fitted, skills)
            if cfg.dynamic_trust:
                omega = trust.omega
            # with ω ≡ 1 the calibrated ω is not used: log the ω actually applied
            batch_trust = self.calibration.last  # the whole batch's (all ranks'), identical on every rank
            metrics.update({k: v for k, v in batch_trust.metrics().items()
                            if cfg.dynamic_trust or not k.startswith("omega")})
            metrics["replay/success"] = sum(ep.won for ep in replay_episodes) / max(1, len(replay_episodes))
        teacher = self.teacher_values(groups, fitted) if cfg.opsd_coef > 0 and fitted is not None else {}
        samples = self.action_samples(episodes, advantages, omega, teacher)
        skill_samples = self.skill_samples(skills, skill_rewards) if cfg.skill_loss and skills is not None else []
        stats = self.combined_update(samples, skill_samples)
        metrics.update(stats)
        self.record(self.budget_metrics(episodes, replay_episodes), reduce=False)  # already summed over ranks
        if skills is not None:
            metrics.update(self.skill_metrics(skills, fitted, skill_rewards))
        if not cfg.dynamic_trust or trust is None:
            metrics.update({"omega_mean": 1.0, "omega_min": 1.0, "omega_max": 1.0, "omega_zero_share": 0.0})
            metrics.update({f"omega/{t}": 1.0 for t in dict.fromkeys(types)})
        self.record(metrics)
        self.log("loss", stats.get("loss", 0.0), prog_bar=True, on_step=True, logger=False)
        if skills is not None:
            self.write_skill_rows(tasks, types, skills, fitted, trust, omega, skill_rewards)
        return None

    # -- tasks and rollouts ---------------------------------------------------------------------
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

    def library_context(self, task: Task) -> str | None:
        return skill_context(static_skill(self.env_name, task.task_type or self.config.default_type),
                             self.config.skill.context_prefix)

    def play(self, tasks: list[Task], repeats: int, contexts: list[str | None], salt: int) -> list[Episode]:
        """``repeats`` episodes of every task with ``contexts[i]`` before its first message, seeded by the step."""
        start = time.perf_counter()
        self.engine.sync_weights(self.policy)
        episodes = play_groups(self.agent, tasks, repeats, self.envs(len(tasks) * repeats),
                               rank_seed(step_seed(self.context.seed + salt, self.batch_index)), contexts)
        self._rollout_seconds = time.perf_counter() - start
        return episodes

    # -- skills ----------------------------------------------------------------------------------
    def skills_for(self, tasks: list[Task], groups: list[list[Episode]]) -> list[WrittenSkill]:
        cfg = self.config
        if cfg.skill.source == "library":
            return [self.writer.from_library(static_skill(self.env_name, t.task_type or cfg.default_type)) for t in tasks]
        goals = []
        for task in tasks:
            self.probe.reset(task)
            goals.append(self.probe.goal)
        seed = rank_seed(step_seed(self.context.seed + 2 * REPLAY_SALT, self.batch_index))
        torch.manual_seed(seed)
        if self.frozen_writer is not None:
            return self.writer.write(self.frozen_engine, goals, groups, "frozen")
        self.engine.sync_weights(self.policy)
        return self.writer.write(self.engine, goals, groups, "policy")

    def student_turns(self, groups: list[list[Episode]]) -> list[list[tuple[int, int]]]:
        """Per task, (episode index, turn index) of every student turn with a response."""
        g = self.group_size
        return [[(i * g + j, k) for j, ep in enumerate(group) for k, t in enumerate(ep.turns)
                 if t.response_ids and t.messages is not None] for i, group in enumerate(groups)]

    def fit_skills(self, skills: list[WrittenSkill], groups: list[list[Episode]]) -> list[FittedSkill]:
        """Each skill cut by the truncation rule (``teacher.py``), with its teacher prompts."""
        g = self.group_size
        limit = self.context.agent.prompt.max_prompt_tokens
        fitted = []
        for skill, keys in zip(skills, self.student_turns(groups)):
            messages = [groups[e // g][e % g].turns[k].messages for e, k in keys]
            fitted.append(fit_skill(self.context.tokenizer, skill.parsed.text, self.config.skill.context_prefix,
                                    messages, limit))
        return fitted

    def execution_check(self, tasks, types, groups, fitted, skills) -> tuple[TrustResult, list[Episode], list[float]]:
        """Replay H_r with the skill, Δ_x, ω_x (calibration) and the type-centred skill rewards."""
        cfg = self.config
        control, replayed = split_group(self.group_size, cfg.replay_fraction)
        contexts = [skill_context(f.text, cfg.skill.context_prefix) for f in fitted]
        replay_episodes = self.play(tasks, len(replayed), contexts, salt=REPLAY_SALT)
        r = len(replayed)
        control_out = [[float(group[j].won) for j in control] for group in groups]
        replay_out = [[float(ep.won) for ep in replay_episodes[i * r : (i + 1) * r]] for i in range(len(tasks))]
        running = self.calibration.running_means()  # before this batch: the centring fallback
        batch, mine = self.calibration.calibrate_all_ranks(types, control_out, replay_out)  # all ranks' tasks
        trust = batch.rows(mine)
        rewards = centred_skill_rewards(batch.gains, batch.types, running)[mine]
        rewards = [rw - (cfg.skill.malformed_penalty if not s.parsed.valid else 0.0) for rw, s in zip(rewards, skills)]
        return trust, replay_episodes, rewards

    # -- teacher and samples ---------------------------------------------------------------------
    @torch.no_grad()
    def teacher_values(self, groups: list[list[Episode]], fitted: list[FittedSkill]) -> dict[tuple[int, int], object]:
        """Teacher log-probs of the student turns of tasks that have a skill (all, or ``opsd_turns`` of
        them drawn at random), keyed by (episode, turn)."""
        g = self.group_size
        keys, prompts, turns = [], [], []
        for f, task_keys in zip(fitted, self.student_turns(groups)):
            if not f.text:  # no skill: the teacher is the student (a = 0), no OPSD term for the task
                continue
            for (e, k), prompt in zip(task_keys, f.teacher_prompts):
                keys.append((e, k))
                prompts.append(prompt)
                turns.append(groups[e // g][e % g].turns[k])
        if 0 < self.config.opsd_turns < len(keys):  # a uniform random subset: an unbiased estimate of the mean
            generator = torch.Generator().manual_seed(rank_seed(step_seed(self.context.seed + 3 * REPLAY_SALT, self.batch_index)))
            keep = sorted(torch.randperm(len(keys), generator=generator)[: self.config.opsd_turns].tolist())
            keys, prompts, turns = [keys[i] for i in keep], [prompts[i] for i in keep], [turns[i] for i in keep]
        if not keys:
            return {}
        pad_id = self.context.tokenizer.pad_token_id
        budget = self.config.micro_batch_tokens
        choice = [t for t in turns if t.candidates is not None]
        if self.config.choice_loss == "softmax" and len(choice) == len(turns):
            agent = self.context.agent
            values = teacher_choice_logprobs(self.no_grad_policy(), prompts, turns, pad_id, agent.choice_score,
                                             agent.choice_temperature, budget)
        else:
            values = teacher_token_logprobs(self.no_grad_policy(), prompts, turns, pad_id, self.logprob_temperature,
                                            budget)
        return dict(zip(keys, values))

    def action_samples(self, episodes: list[Episode], advantages: torch.Tensor, omega: list[float],
                       teacher: dict) -> list:
        cfg = self.config
        samples = []
        for e, (episode, advantage) in enumerate(zip(episodes, advantages.tolist())):
            for k, turn in enumerate(episode.turns):
                if not turn.response_ids:
                    continue
                in_pg = cfg.rlvr and (advantage != 0.0 or not cfg.skip_zero_advantage)
                samples.append(turn_sample(turn, advantage, cfg.choice_loss, teacher.get((e, k)),
                                           omega[episode.group_id], in_pg))
        return samples

    def skill_samples(self, skills: list[WrittenSkill], rewards: list[float]) -> list[Sample]:
        """One sample per policy-written skill with a non-zero reward: writing prompt (masked) + skill tokens."""
        out = []
        for skill, reward in zip(skills, rewards):
            if skill.source != "policy" or not skill.token_ids or reward == 0.0:
                continue
            n = len(skill.prompt_ids)
            out.append(Sample(skill.prompt_ids + skill.token_ids, [0] * n + [1] * len(skill.token_ids), reward,
                              [0.0] * n + skill.logprobs))
        return out

    # -- the update ------------------------------------------------------------------------------
    def combined_update(self, samples: list, skill_samples: list[Sample]) -> dict[str, float]:
        """One optimizer step on L = L_RLVR + λ L_OPSD(ω) + skill_coef L_skill (gradients of all micro-batches summed)."""
        start = time.perf_counter()
        cfg = self.config
        self.policy.train()
        pad_id = self.context.tokenizer.pad_token_id
        pg_samples = [s for s in samples if s.in_pg]
        pg_norm = loss_normalizer(pg_samples, cfg.loss_aggregation) if pg_samples else 1.0
        opsd_norm = float(max(1, sum(opsd_units(s) for s in samples))) if cfg.opsd_coef > 0 else 1.0
        forward = [s for s in samples if s.in_pg or (cfg.opsd_coef > 0 and has_teacher(s) and s.omega > 0)]
        totals = {"loss": 0.0, "pg_loss": 0.0, "kl": 0.0, "opsd_loss": 0.0, "skill_loss": 0.0,
                  "opsd/gap_sum": 0.0, "opsd/prefers_sum": 0.0, "opsd/tokens": 0.0}
        action_mbs = split_micro_batches(forward, cfg.micro_batch_tokens, pad_id) if forward else []
        skill_mbs = split_micro_batches(skill_samples, cfg.micro_batch_tokens, pad_id) if skill_samples else []
        # sharded over ranks: every rank runs as many of each as the rank with the most (agreed first)
        action_padding = self.lockstep(len(action_mbs)) - len(action_mbs)
        skill_padding = self.lockstep(len(skill_mbs)) - len(skill_mbs)
        for mb in action_mbs:
            loss, parts = self._action_loss(mb, pg_norm, opsd_norm)
            self.manual_backward(loss)
            for key, value in parts.items():
                totals[key] += value
        for _ in range(action_padding):
            self.padding_step(pad_id)
        skill_tokens = float(max(1, sum(sum(s.agent_mask) for s in skill_samples)))
        for _ in range(skill_padding):
            self.padding_step(pad_id, with_reference=False)
        skill_scoring = replace(self.scoring, temperature=cfg.skill.temperature)
        for mb in skill_mbs:
            lp = mb.logprobs(self.policy, skill_scoring, self.device)  # [b, T]
            mask, adv, _ = loss_tensors(mb, self.device)  # [b, T]
            skill_loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, mask, cfg.clip_low, cfg.clip_high,
                                                         "token_mean", skill_tokens)
            self.manual_backward(cfg.skill_coef * skill_loss)
            totals["skill_loss"] += float(skill_loss.detach())
            totals["loss"] += cfg.skill_coef * float(skill_loss.detach())
        totals["grad_norm"] = self.optimizer_step_with_clipping()
        tokens = totals.pop("opsd/tokens")
        gap, prefers = totals.pop("opsd/gap_sum"), totals.pop("opsd/prefers_sum")
        if tokens > 0:
            totals["opsd/gap_mean"] = gap / tokens
            totals["opsd/teacher_prefers_share"] = prefers / tokens
        totals["samples"] = float(len(pg_samples))
        totals["opsd_samples"] = float(sum(1 for s in forward if has_teacher(s) and s.omega > 0))
        totals["skill_samples"] = float(len(skill_samples))
        totals["update_seconds"] = time.perf_counter() - start
        return totals

    def _action_loss(self, mb: MicroBatch, pg_norm: float, opsd_norm: float):
        cfg = self.config
        scoring = self.scoring
        rows = mb.samples
        mask, adv, _ = loss_tensors(mb, self.device)  # [b, T]
        pg_rows = torch.tensor([float(s.in_pg) for s in rows], device=self.device)  # [b]
        logprobs = mb.logprobs(self.policy, scoring, self.device)  # [b, T]
        parts = {}
        loss = torch.zeros((), device=self.device)
        # sharded: the reference forward runs for every micro-batch, so all ranks run the same forwards
        if bool(pg_rows.any()) or self.sharded_over_ranks:
            pg_loss, _ = clipped_policy_gradient_loss(logprobs, logprobs.detach(), adv * pg_rows[:, None], mask,
                                                      cfg.clip_low, cfg.clip_high, cfg.loss_aggregation, pg_norm)
            loss = loss + pg_loss
            parts["pg_loss"] = float(pg_loss.detach())
            if self.reference is not None:
                with self.reference.model() as ref_model, torch.no_grad():
                    ref = mb.logprobs(ref_model, scoring, self.device)  # [b, T]
                kl = aggregate(k3_kl(logprobs, ref), mask * pg_rows[:, None], cfg.loss_aggregation, pg_norm)
                loss = loss + cfg.kl_coef * kl
                parts["kl"] = float(kl.detach())
        if cfg.opsd_coef > 0:
            teacher_rows = torch.tensor([float(has_teacher(s)) for s in rows], device=self.device)  # [b]
            omega = torch.tensor([s.omega for s in rows], device=self.device) * teacher_rows  # [b]
            teacher = teacher_tensor(mb, self.device)  # [b, T]
            opsd_mask = mask * teacher_rows[:, None]
            distill, stats = opsd_loss(logprobs, teacher, omega, opsd_mask, opsd_norm)
            loss = loss + cfg.opsd_coef * distill
            parts["opsd_loss"] = float(distill.detach())
            parts["opsd/gap_sum"] = float(stats["gap_sum"])
            parts["opsd/prefers_sum"] = float(stats["teacher_prefers_sum"])
            parts["opsd/tokens"] = float(stats["tokens"])
        parts["loss"] = float(loss.detach())
        return loss, parts

    # -- metrics and records ---------------------------------------------------------------------
    def budget_metrics(self, episodes: list[Episode], replays: list[Episode]) -> dict[str, float]:
        """Rollouts and environment steps of this step (all ranks'), the replays included, and their
        running totals (identical on every rank)."""
        counts = dist.reduce_metrics({
            "student_episodes": float(len(episodes)), "replay_episodes": float(len(replays)),
            "env_steps": float(sum(ep.num_turns for ep in episodes) + sum(ep.num_turns for ep in replays)),
        })
        steps = counts["env_steps"]
        rollouts = counts["student_episodes"] + counts["replay_episodes"]
        self.budget["rollouts_total"] += rollouts
        self.budget["env_steps_total"] += steps
        return {
            "budget/student_episodes": counts["student_episodes"],
            "budget/replay_episodes": counts["replay_episodes"],
            "budget/rollouts": rollouts,
            "budget/env_steps": steps,
            "budget/rollouts_total": self.budget["rollouts_total"],
            "budget/env_steps_total": self.budget["env_steps_total"],
        }

    def skill_metrics(self, skills: list[WrittenSkill], fitted, rewards: list[float]) -> dict[str, float]:
        n = max(1, len(skills))
        out = {
            "skill/length_tokens": sum(len(s.token_ids) for s in skills) / n,
            "skill/length_chars": sum(len(s.parsed.text) for s in skills) / n,
            "skill/valid_share": sum(s.parsed.valid for s in skills) / n,
            "skill/empty_share": sum(s.parsed.problem == "empty" for s in skills) / n,
            "skill/procedural_share": sum(s.category == "procedural" for s in skills) / n,
            "skill/format_share": sum(s.category == "format" for s in skills) / n,
            "skill/reward_abs_mean": sum(abs(r) for r in rewards) / n,
        }
        if fitted is not None:
            out["skill/truncated_share"] = sum(f.truncated for f in fitted) / n
        return out

    def write_skill_rows(self, tasks, types, skills, fitted, trust, omega, rewards) -> None:
        rows = []
        for i, (task, skill) in enumerate(zip(tasks, skills)):
            row = {
                "step": self.global_step, "task": task.task_id, "type": types[i], "source": skill.source,
                "skill": fitted[i].text if fitted is not None else skill.parsed.text, "valid": skill.parsed.valid,
                "problem": skill.parsed.problem, "category": skill.category, "tokens": len(skill.token_ids),
                "truncated": bool(fitted[i].truncated) if fitted is not None else False,
                "omega": omega[i], "skill_reward": rewards[i],
            }
            if trust is not None:
                row.update({"replay_gain": trust.gains[i], "shrunk_gain": trust.shrunk[i],
                            "gain_variance": trust.variances[i]})
            rows.append(row)
        rows = [row for share in dist.gather_objects(rows) for row in share]  # every rank's tasks, rank 0 writes
        if dist.is_main():
            self.skill_log.write(rows)
