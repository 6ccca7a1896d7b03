"""``rao_sums``: a tiny forkable environment for coevo-rao's tests (independent of coevo-envs).

The task is to add a list of digits ("add 3 1 0 2"); the only command is ``answer N``. A
sub-agent may be given any contiguous, shorter run of the list as ``add <digits>``: its episode
is won when it answers that run's sum (the environment checks the sub-goal). ``join`` writes the
child's answer into the parent's memory line ("partials: 4, 5"). Oracle: split a list longer
than ``leaf`` into two halves; answer once the partials are in (or directly at a leaf).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from coevo.core.env.protocol import Environment, ForkError, StepResult, Task


@dataclass
class SumsConfig:
    length: int = 4  # digits of a root task
    leaf: int = 2  # the oracle answers lists this short directly
    max_digit: int = 2
    max_steps: int = 3
    eval_size: int = 8
    seed: int = 0


class SumsEnv(Environment):
    name = "rao_sums"
    task_types = ("sum",)
    forkable = True
    Config = SumsConfig

    def __init__(self, config: SumsConfig | None = None, digits: list[int] | None = None):
        self.config = config or SumsConfig()
        self.max_steps = self.config.max_steps
        self.digits = list(digits) if digits is not None else []
        self.partials: list[int] = []
        self.answered: int | None = None
        self.steps = 0
        self.done = digits is None

    # -- tasks ------------------------------------------------------------------------------------
    def task(self, split: str, index: int) -> Task:
        seed = int(hashlib.sha256(f"{split}/{index}/{self.config.seed}".encode()).hexdigest()[:12], 16)
        return Task(self.name, split, index, "sum", seed)

    def num_tasks(self, split: str) -> int | None:
        return None if split == "train" else self.config.eval_size

    def reset(self, task: Task) -> str:
        rng = random.Random(task.seed)
        self._start([rng.randint(0, self.config.max_digit) for _ in range(self.config.length)])
        return f"Your task is to: {self.goal}."

    def _start(self, digits: list[int]) -> None:
        self.digits, self.partials, self.answered, self.steps, self.done = list(digits), [], None, 0, False

    @property
    def goal(self) -> str:
        return "add " + " ".join(map(str, self.digits))

    # -- episode ----------------------------------------------------------------------------------
    def admissible_actions(self) -> list[str]:
        return [f"answer {n}" for n in range(self.config.max_digit * len(self.digits) + 1)]

    def step(self, action: str) -> StepResult:
        self.steps += 1
        if self.done or action not in self.admissible_actions():
            self.done = self.done or self.steps >= self.max_steps
            return StepResult(self.invalid_observation, 0.0, self.done, invalid=True)
        self.answered = int(action.split()[1])
        self.done = True
        won = self.answered == sum(self.digits)
        return StepResult("Correct." if won else "Wrong.", float(won), True, won=won)

    def memory(self) -> str | None:
        return "partials: " + (", ".join(map(str, self.partials)) or "none")

    def snapshot(self):
        return (list(self.digits), list(self.partials), self.answered, self.steps, self.done)

    def restore(self, snapshot) -> None:
        digits, partials, self.answered, self.steps, self.done = snapshot
        self.digits, self.partials = list(digits), list(partials)

    # -- recursion --------------------------------------------------------------------------------
    def fork(self, goal: str) -> tuple[Environment, str]:
        words = goal.split()
        if len(words) < 2 or words[0] != "add" or not all(w.isdigit() for w in words[1:]):
            raise ForkError("a sub-goal reads 'add <digits>'")
        run = [int(w) for w in words[1:]]
        n = len(run)
        if n >= len(self.digits) or not any(self.digits[i : i + n] == run for i in range(len(self.digits) - n + 1)):
            raise ForkError("not a shorter run of this task's digits")
        child = SumsEnv(self.config, run)
        return child, f"Your task is to: {child.goal}."

    def join(self, child: Environment) -> str:
        if child.answered is None:
            return ""
        self.partials.append(child.answered)
        return f"answered {child.answered}"

    # -- oracle -----------------------------------------------------------------------------------
    def expert_delegations(self) -> list[str]:
        if len(self.digits) <= self.config.leaf or self.partials:
            return []
        half = len(self.digits) // 2
        return ["add " + " ".join(map(str, part)) for part in (self.digits[:half], self.digits[half:])]

    def expert_action(self) -> str | None:
        return f"answer {sum(self.digits)}"
