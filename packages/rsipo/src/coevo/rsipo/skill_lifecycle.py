"""The skills of one RSIPO step, steps 3 to 6 of the spec: write, replay, gain, trust.

3. the policy writes a skill s_x per task from its group's attempts (``skills/writing.py``; or the
   static library, or a frozen writer), cut to fit the context (``teacher.fit_skill``);
4. the replay half H_r of each group is played again from the same initial states with s_x in the
   prompt; Δ_x = mean success(H_r with skill) − mean success(H_c) (``gain.py``);
5. the skill reward r_skill = Δ_x − its type's mean, minus a malformed skill's penalty (``centring.py``);
6. Δ_x shrunk towards its type's running mean gives the trust ω_x (``calibration.py``).

``SkillLifecycle`` is a mixin of ``RSIPO`` (``module.py``): it uses the module's engine, agent,
writer and calibration. ``SkillStep`` is what the rest of the step needs of it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from coevo.core.agent.groups import play_groups
from coevo.core.agent.types import Episode
from coevo.core.algos.rollout_module import rank_seed, step_seed
from coevo.core.env.protocol import Task
from coevo.rsipo.calibration import TrustResult
from coevo.rsipo.centring import centred_skill_rewards
from coevo.rsipo.gain import split_group
from coevo.rsipo.hindsight import expert_direct_path, hindsight_skill
from coevo.rsipo.skills.library import static_skill
from coevo.rsipo.skills.writing import WrittenSkill
from coevo.rsipo.teacher import FittedSkill, fit_skill, skill_context

REPLAY_SALT = 0x5EED  # replays draw from their own seeded stream, distinct from the student's


@dataclass
class SkillStep:
    """The outcome of steps 3-6 for the step's tasks (one entry per task)."""

    omega: list[float]  # ω_x applied to the task's OPSD term (1 without dynamic trust)
    rewards: list[float]  # r_skill (0 without a replay)
    skills: list[WrittenSkill] | None = None  # None: this setting writes no skills
    fitted: list[FittedSkill] | None = None
    trust: TrustResult | None = None  # None: no replay this step
    replay_episodes: list[Episode] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)  # the batch's Δ / ω figures and replay success


class SkillLifecycle:
    def skill_step(self, tasks: list[Task], types: list[str], groups: list[list[Episode]]) -> SkillStep:
        """Steps 3-6 for ``tasks``; without skills (GRPO-like settings, Skill-GRPO) ω = 1 and r = 0."""
        cfg = self.config
        step = SkillStep(omega=[1.0] * len(tasks), rewards=[0.0] * len(tasks))
        if not cfg.needs_skills or cfg.student_skills:
            return step
        step.skills = self.skills_for(tasks, groups)  # 3. on-policy skill writing (or the library's)
        step.fitted = self.fit_skills(step.skills, groups)
        if not cfg.needs_replay:
            return step
        step.trust, step.replay_episodes, step.rewards = self.execution_check(  # 4.-6.
            tasks, types, groups, step.fitted, step.skills)
        if cfg.dynamic_trust:
            step.omega = step.trust.omega
        # with ω ≡ 1 the calibrated ω is not used: log the ω actually applied
        batch_trust = self.calibration.last  # the whole batch's (all ranks'), identical on every rank
        step.metrics.update({k: v for k, v in batch_trust.metrics().items()
                             if cfg.dynamic_trust or not k.startswith("omega")})
        replays = step.replay_episodes
        step.metrics["replay/success"] = sum(ep.won for ep in replays) / max(1, len(replays))
        return step

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

    # -- 3. skill writing --------------------------------------------------------------------------
    def skills_for(self, tasks: list[Task], groups: list[list[Episode]]) -> list[WrittenSkill]:
        cfg = self.config
        if cfg.skill.source == "library":
            return [self.writer.from_library(static_skill(self.env_name, t.task_type or cfg.default_type)) for t in tasks]
        if cfg.skill.source == "hindsight":  # the oracle writer: the expert's attempt with its search cut out
            return [self.writer.from_library(self.expert_hindsight(t), "hindsight") for t in tasks]
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

    def expert_hindsight(self, task: Task) -> str:
        """The hindsight skill of the env expert's attempt at ``task`` ("" if it has none or loses)."""
        return hindsight_skill(expert_direct_path(self.probe, task.split, task.index) or [])

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

    # -- 4.-6. replay gain, skill reward, trust ------------------------------------------------------
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
