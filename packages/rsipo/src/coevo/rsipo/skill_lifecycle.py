"""The skills of one RSIPO step, steps 3 to 6 of the spec: write, replay, gain, trust.

3. the policy writes a skill s_x per task from its group's attempts (``skills/writing.py``; or the
   static library, or a frozen writer), cut to fit the context (``teacher.fit_skill``);
4. the replay half H_r of each group is played again from the same initial states with s_x in the
   prompt; Δ_x = mean success(H_r with skill) − mean success(H_c) (``gain.py``);
5. the skill reward r_skill = Δ_x − its type's mean, minus a malformed skill's penalty (``centring.py``);
6. Δ_x shrunk towards its type's running mean gives the trust ω_x (``calibration.py``).

The plays of 3 and 4 (writing and replaying) are the batch player's (``skill_plays.py``): they run
where the batch is played, in this process or a rollout worker. ``SkillLifecycle`` learns from them;
it is built by ``RSIPO`` (``module.py``) from the run's config, the module's trust calibration and
the group size, and uses nothing else. ``SkillStep`` is what the rest of the step needs of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Task
from coevo.rsipo.calibration import TrustCalibration, TrustResult
from coevo.rsipo.centring import centred_skill_rewards
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.gain import split_group
from coevo.rsipo.skill_plays import SkillPlays
from coevo.rsipo.skills.writing import WrittenSkill
from coevo.rsipo.teacher import FittedSkill


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
    """Steps 4-6 of a step, from the batch's plays: Δ_x, r_skill and ω_x.

    Depends on ``config`` (``needs_replay``, ``dynamic_trust``, ``replay_fraction``,
    ``skill.malformed_penalty``), ``calibration`` (the module's ``TrustCalibration``: its running
    per-type state is updated by every ``skill_step`` and checkpointed by the module) and
    ``group_size`` (G, episodes per task)."""

    def __init__(self, config: RSIPOConfig, calibration: TrustCalibration, group_size: int):
        self.config = config
        self.calibration = calibration
        self.group_size = group_size

    def skill_step(self, tasks: list[Task], types: list[str], groups: list[list[Episode]],
                   plays: SkillPlays) -> SkillStep:
        """Steps 3-6 for ``tasks`` from the batch's ``plays``; without skills (GRPO-like settings,
        Skill-GRPO) ω = 1 and r = 0."""
        cfg = self.config
        step = SkillStep(omega=[1.0] * len(tasks), rewards=[0.0] * len(tasks))
        if plays.skills is None:
            return step
        step.skills, step.fitted = plays.skills, plays.fitted  # 3. written (or the library's) and cut
        if not cfg.needs_replay:
            return step
        step.replay_episodes = plays.replay_episodes
        step.trust, step.rewards = self.execution_check(types, groups, plays.replay_episodes, plays.skills)  # 4.-6.
        if cfg.dynamic_trust:
            step.omega = step.trust.omega
        # with ω ≡ 1 the calibrated ω is not used: log the ω actually applied
        batch_trust = self.calibration.last  # the whole batch's (all ranks'), identical on every rank
        step.metrics.update({k: v for k, v in batch_trust.metrics().items()
                             if cfg.dynamic_trust or not k.startswith("omega")})
        replays = step.replay_episodes
        step.metrics["replay/success"] = sum(ep.won for ep in replays) / max(1, len(replays))
        return step

    # -- 4.-6. replay gain, skill reward, trust ------------------------------------------------------
    def execution_check(self, types: list[str], groups: list[list[Episode]], replay_episodes: list[Episode],
                        skills: list[WrittenSkill]) -> tuple[TrustResult, list[float]]:
        """Δ_x of the replays H_r with the skill against the control half, ω_x (calibration) and the
        type-centred skill rewards. ``groups[i]``: task i's G student episodes; ``replay_episodes``:
        the r = |H_r| replays of each task, task after task; ``skills``: one per task."""
        cfg = self.config
        control, replayed = split_group(self.group_size, cfg.replay_fraction)
        r = len(replayed)
        control_out = [[float(group[j].won) for j in control] for group in groups]
        replay_out = [[float(ep.won) for ep in replay_episodes[i * r : (i + 1) * r]] for i in range(len(groups))]
        running = self.calibration.running_means()  # before this batch: the centring fallback
        batch, mine = self.calibration.calibrate_all_ranks(types, control_out, replay_out)  # all ranks' tasks
        trust = batch.rows(mine)
        rewards = centred_skill_rewards(batch.gains, batch.types, running)[mine]
        rewards = [rw - (cfg.skill.malformed_penalty if not s.parsed.valid else 0.0) for rw, s in zip(rewards, skills)]
        return trust, rewards
