"""A math environment over an explicit list of problems (Scout proposals, archive records).

``ProposedMathEnv(problems)`` adds the split ``"proposed"`` whose task ``i`` is ``problems[i]``
(its answer is the label the episode is rewarded against); the other splits are the math env's.
"""

from __future__ import annotations

from coevo.core.env.protocol import Task
from coevo.evoheir.math_env import MathEnv, Problem

PROPOSED = "proposed"


class ProposedMathEnv(MathEnv):
    splits = (*MathEnv.splits, PROPOSED)

    def __init__(self, config: MathEnv.Config | None = None, problems: list[Problem] | None = None):
        super().__init__(config)
        self.problems: list[Problem] = list(problems or [])

    def num_tasks(self, split: str) -> int | None:
        return len(self.problems) if split == PROPOSED else super().num_tasks(split)

    def task(self, split: str, index: int) -> Task:
        if split != PROPOSED:
            return super().task(split, index)
        return Task(self.name, PROPOSED, index, self.problems[index].problem_type, index)

    def problem(self, task: Task) -> Problem:
        return self.problems[task.index] if task.split == PROPOSED else super().problem(task)


def proposed_envs(config: MathEnv.Config, problems: list[Problem], n: int) -> tuple[list[ProposedMathEnv], list[Task]]:
    """``n`` environments sharing ``problems`` and the tasks addressing them."""
    envs = [ProposedMathEnv(config, problems) for _ in range(max(1, n))]
    return envs, [envs[0].task(PROPOSED, i) for i in range(len(problems))]
