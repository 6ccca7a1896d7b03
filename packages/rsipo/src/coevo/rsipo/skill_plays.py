"""Everything an RSIPO step plays with the policy, as core's ``BatchPlayer``: steps 1, 3 and 4's replays.

1. G student episodes per task without a skill (Skill-GRPO: with its library skill in the context);
3. a skill s_x per task, written by the policy from its group's finished attempts (or taken from the
   static library, or the expert's hindsight path), cut to fit the context (``teacher.fit_skill``);
4. the replay half H_r of each group played again from the same initial states with s_x in the prompt.

What is learned from them (the gain Δ_x, the trust ω_x, the skill rewards, the teacher's log-probs,
the update) stays in the trainer (``skill_lifecycle.py``, ``update_samples.py``). Every play of the
batch uses one set of weights, the batch's: in the trainer's process with synchronous rollouts, in a
Ray worker with ``rollout.async.enabled`` (the player is shipped there), so Δ_x compares a skill's
replays with the control half under the same policy in both modes. Skills written by the frozen
initial policy (``algo.skill_evolution=false``) are written with ``writer_engine``, the trainer's
frozen copy (that setting plays synchronously).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from coevo.core.agent.batch_player import BatchPlayer, batch_seed
from coevo.core.agent.groups import play_groups
from coevo.core.agent.loop import AgentLoop
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Environment, Task
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.gain import split_group
from coevo.rsipo.hindsight import expert_direct_path, hindsight_skill
from coevo.rsipo.skills.library import static_skill
from coevo.rsipo.skills.writing import SkillWriter, WrittenSkill
from coevo.rsipo.teacher import FittedSkill, fit_skill, skill_context

REPLAY_SALT = 0x5EED  # replays draw from their own seeded stream, distinct from the student's
SKILL_WRITING_SALT = 2 * REPLAY_SALT  # the skill writer's sampling
OPSD_TURNS_SALT = 3 * REPLAY_SALT  # the random subset of teacher turns (algo.opsd_turns; update_samples.py)


@dataclass
class SkillPlays:
    """One step batch's plays (one entry per task in ``skills`` and ``fitted``)."""

    episodes: list[Episode]  # 1. G student episodes per task, task-major
    skills: list[WrittenSkill] | None = None  # 3. None: this setting writes no skills
    fitted: list[FittedSkill] | None = None
    replay_episodes: list[Episode] = field(default_factory=list)  # 4. |H_r| per task, task-major


class SkillPlayer(BatchPlayer):
    def __init__(self, make_env, group_size: int, seed: int, config: RSIPOConfig, writer: SkillWriter,
                 env_name: str, max_prompt_tokens: int, probe: Environment | None = None):
        super().__init__(make_env, group_size, seed)
        self.config = config
        self.writer = writer
        self.env_name = env_name
        self.max_prompt_tokens = max_prompt_tokens
        self.writer_engine = None  # skill_evolution=false: the frozen initial policy's engine (set by the trainer)
        self._probe = probe  # the trainer's own probe there; a worker makes one

    def __getstate__(self) -> dict:
        return {**super().__getstate__(), "writer_engine": None, "_probe": None}

    @property
    def probe(self) -> Environment:
        """An environment of the player's own that reads goals and the expert's paths."""
        if self._probe is None:
            self._probe = self.make_env()
        return self._probe

    def samples(self, played: SkillPlays) -> int:
        return len(played.episodes) + len(played.replay_episodes)

    def play(self, engine, loop: AgentLoop, tasks: list[Task], index: int) -> SkillPlays:
        cfg, g = self.config, self.group_size
        contexts = [self.library_context(t) for t in tasks] if cfg.student_skills else None
        plays = SkillPlays(play_groups(loop, tasks, g, self.envs(len(tasks) * g), batch_seed(self.seed, index),
                                       contexts))
        if not cfg.needs_skills or cfg.student_skills:
            return plays
        groups = [plays.episodes[i * g : (i + 1) * g] for i in range(len(tasks))]
        plays.skills = self.skills_for(engine, tasks, groups, index)
        plays.fitted = self.fit_skills(plays.skills, groups)
        if cfg.needs_replay:
            replayed = len(split_group(g, cfg.replay_fraction)[1])
            contexts = [skill_context(f.text, cfg.skill.context_prefix) for f in plays.fitted]
            plays.replay_episodes = play_groups(loop, tasks, replayed, self.envs(len(tasks) * replayed),
                                                batch_seed(self.seed + REPLAY_SALT, index), contexts)
        return plays

    def library_context(self, task: Task) -> str | None:
        return skill_context(static_skill(self.env_name, task.task_type or self.config.default_type),
                             self.config.skill.context_prefix)

    # -- 3. skill writing --------------------------------------------------------------------------
    def skills_for(self, engine, tasks: list[Task], groups: list[list[Episode]], index: int) -> list[WrittenSkill]:
        cfg = self.config
        if cfg.skill.source == "library":
            return [self.writer.from_library(static_skill(self.env_name, t.task_type or cfg.default_type)) for t in tasks]
        if cfg.skill.source == "hindsight":  # the oracle writer: the expert's attempt with its search cut out
            return [self.writer.from_library(self.expert_hindsight(t), "hindsight") for t in tasks]
        goals = []
        for task in tasks:
            self.probe.reset(task)
            goals.append(self.probe.goal)
        torch.manual_seed(batch_seed(self.seed + SKILL_WRITING_SALT, index))
        if self.writer_engine is not None:
            return self.writer.write(self.writer_engine, goals, groups, "frozen")
        return self.writer.write(engine, goals, groups, "policy")

    def expert_hindsight(self, task: Task) -> str:
        """The hindsight skill of the env expert's attempt at ``task`` ("" if it has none or loses)."""
        return hindsight_skill(expert_direct_path(self.probe, task.split, task.index) or [])

    def fit_skills(self, skills: list[WrittenSkill], groups: list[list[Episode]]) -> list[FittedSkill]:
        """Each skill cut by the truncation rule (``teacher.py``), with its teacher prompts."""
        fitted = []
        for skill, keys in zip(skills, student_turns(groups, self.group_size)):
            messages = [groups[e // self.group_size][e % self.group_size].turns[k].messages for e, k in keys]
            fitted.append(fit_skill(self.writer.tokenizer, skill.parsed.text, self.config.skill.context_prefix,
                                    messages, self.max_prompt_tokens))
        return fitted


def student_turns(groups: list[list[Episode]], group_size: int) -> list[list[tuple[int, int]]]:
    """Per task, (episode index, turn index) of every student turn with a response."""
    return [[(i * group_size + j, k) for j, ep in enumerate(group) for k, t in enumerate(ep.turns)
             if t.response_ids and t.messages is not None] for i, group in enumerate(groups)]
