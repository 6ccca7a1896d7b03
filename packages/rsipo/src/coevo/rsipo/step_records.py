"""What one RSIPO step reports: its metrics (budget with the replays, skills, ω) and its rows of
``skills.jsonl`` (``skill_log.py``), in the order the ranks' collectives expect.

``StepRecords`` owns the run's budget counters (``budget``: the module checkpoints them as
``checkpoint["rsipo"]["budget"]``) and its skill log (opened by the module once the run folder is
known); it reports through the two callables it is built with, the module's ``record`` and ``log``.
"""

from __future__ import annotations

from collections.abc import Callable

from coevo.core import distributed as dist
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Task
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.skill_lifecycle import SkillStep
from coevo.rsipo.skill_log import SkillLog
from coevo.rsipo.skills.writing import WrittenSkill
from coevo.rsipo.teacher import FittedSkill

NEUTRAL_OMEGA = {"omega_mean": 1.0, "omega_min": 1.0, "omega_max": 1.0, "omega_zero_share": 0.0}


class StepRecords:
    """A step's metrics and skills.jsonl rows. Depends on ``config`` (``dynamic_trust``), ``record``
    (``Algorithm.record(metrics, reduce=True)``: a step's ``train/*`` metrics, collective with several
    ranks) and ``log`` (``LightningModule.log``: the progress bar's loss)."""

    def __init__(self, config: RSIPOConfig, record: Callable[..., None], log: Callable[..., None]):
        self.config = config
        self.record = record
        self.log = log
        self.budget = {"rollouts_total": 0.0, "env_steps_total": 0.0}  # running totals, checkpointed
        self.skill_log = SkillLog(None)  # no file until the module opens the run folder's

    def record_step(self, tasks: list[Task], types: list[str], episodes: list[Episode], skills: SkillStep,
                    stats: dict[str, float], global_step: int) -> None:
        """The step's metrics (the update's ``stats``, Δ / ω, budget, skills) and its skills.jsonl rows
        (labelled ``global_step``)."""
        metrics = dict(skills.metrics)
        metrics.update(stats)
        self.record(self.budget_metrics(episodes, skills.replay_episodes), reduce=False)  # already summed over ranks
        if skills.skills is not None:
            metrics.update(self.skill_metrics(skills.skills, skills.fitted, skills.rewards))
        if not self.config.dynamic_trust or skills.trust is None:  # the ω applied: 1 for every task
            metrics.update(NEUTRAL_OMEGA)
            metrics.update({f"omega/{t}": 1.0 for t in dict.fromkeys(types)})
        self.record(metrics)
        self.log("loss", stats.get("loss", 0.0), prog_bar=True, on_step=True, logger=False)
        if skills.skills is not None:
            self.write_skill_rows(tasks, types, skills, global_step)

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

    def skill_metrics(self, skills: list[WrittenSkill], fitted: list[FittedSkill] | None,
                      rewards: list[float]) -> dict[str, float]:
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

    def write_skill_rows(self, tasks: list[Task], types: list[str], step: SkillStep, global_step: int) -> None:
        """One skills.jsonl row per task of every rank (rank 0 writes)."""
        fitted, trust = step.fitted, step.trust
        rows = []
        for i, (task, skill) in enumerate(zip(tasks, step.skills)):
            row = {
                "step": global_step, "task": task.task_id, "type": types[i], "source": skill.source,
                "skill": fitted[i].text if fitted is not None else skill.parsed.text, "valid": skill.parsed.valid,
                "problem": skill.parsed.problem, "category": skill.category, "tokens": len(skill.token_ids),
                "truncated": bool(fitted[i].truncated) if fitted is not None else False,
                "omega": step.omega[i], "skill_reward": step.rewards[i],
            }
            if trust is not None:
                row.update({"replay_gain": trust.gains[i], "shrunk_gain": trust.shrunk[i],
                            "gain_variance": trust.variances[i]})
            rows.append(row)
        rows = [row for share in dist.gather_objects(rows) for row in share]  # every rank's tasks, rank 0 writes
        if dist.is_main():
            self.skill_log.write(rows)
