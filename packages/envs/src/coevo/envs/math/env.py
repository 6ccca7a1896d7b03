"""The ``math`` environment: problems with one verifiable final answer in ``\\boxed{}``.

A reply is free text (reasoning) ending in ``\\boxed{answer}``; ``parse_action`` extracts the last
boxed answer (no ``\\boxed{}`` → malformed, answered with ``invalid_observation`` by the agent
loop), and ``step`` checks it against the gold answer with math-verify. With ``max_attempts = 1``
an episode is one reply (reward 1 when correct); with more, a wrong answer is answered
"Incorrect. Try again." until the attempts run out, and only the correct answer is rewarded.

Problems come from the generator (``problem_types`` round-robin by task index, numbers sized by
``difficulty``) or, when ``data_file`` is set, from a GSM8K/MATH-style JSONL file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import Environment, StepResult, Task
from coevo.core.fields import bounded, choice, random_seed
from coevo.core.fields import path as path_field
from coevo.envs.data_files import DataFileError, load_checked
from coevo.envs.file_splits import split_rows, task_index
from coevo.envs.math.answers import answers_match, extract_boxed
from coevo.envs.math.dataset import load_problems
from coevo.envs.math.generator import DEFAULT_PROBLEM_TYPES, PROBLEM_TYPES, generate_problem
from coevo.envs.math.problem import Problem, task_seed
from coevo.envs.math.scale import MAX_DIFFICULTY

PROBLEM_ROW = "one JSON object per line with 'problem' (or 'question') and 'answer' (or a boxed 'solution')"
CORRECT = "Correct."
INCORRECT_RETRY = "Incorrect. Try again."
INCORRECT_FINAL = "Incorrect."


def _default_problem_types() -> list[str]:
    return list(DEFAULT_PROBLEM_TYPES)


@registry.envs.register("math")
class MathEnv(Environment):
    """Math problems (generated or from JSONL) answered in ``\\boxed{}``, verified by math-verify."""

    name = "math"
    task_types = PROBLEM_TYPES
    invalid_observation = "Invalid reply: give your final answer as \\boxed{answer}."
    free_form_actions = True

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed; each generated problem derives from (split, index, seed)
        # 1..5: size of the numbers (and terms) of generated problems
        difficulty: int = bounded(1, ge=1, le=MAX_DIFFICULTY)
        # round-robin by index; the basic tier (addition, one_step_equation) is opt-in
        problem_types: list[str] = choice(_default_problem_types, PROBLEM_TYPES, length=(1, None))
        # 1: single-turn; more: "Incorrect. Try again." until the attempts run out
        max_attempts: int = bounded(1, ge=1)
        # JSONL of {problem, answer} rows; set: tasks come from files, not the generator
        data_file: str = path_field("", empty="the generator")
        # eval_in_distribution rows; empty: hold out the last rows of data_file
        eval_data_file: str = path_field("", empty="hold out the last rows of data_file")
        # eval_out_of_distribution rows (with data_file); empty: that split is empty
        ood_data_file: str = path_field("", empty="that split is empty")
        # generated eval tasks, or rows held out of data_file (0: none held out, with eval_data_file)
        eval_in_distribution_size: int = bounded(100, ge=0)
        # generated OOD tasks (larger numbers, unseen templates)
        eval_out_of_distribution_size: int = bounded(100, ge=0)

    def __init__(self, config: Config | None = None):
        self.config = c = config if config is not None else self.Config()
        unknown = [t for t in c.problem_types if t not in PROBLEM_TYPES]
        if unknown or not c.problem_types:
            raise ValueError(
                f"problem_types must be a non-empty subset of {list(PROBLEM_TYPES)}; got {unknown}"
            )
        if not 1 <= c.difficulty <= MAX_DIFFICULTY:
            raise ValueError(f"difficulty must be in 1..{MAX_DIFFICULTY}, got {c.difficulty}")
        if c.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {c.max_attempts}")
        if not c.data_file and (c.eval_data_file or c.ood_data_file):
            key = "eval_data_file" if c.eval_data_file else "ood_data_file"
            raise ValueError(f"env.{key}: needs env.data_file (the training problems) as well; set env.data_file, "
                             f"or leave env.{key} empty for generated problems")
        for key in ("data_file", "eval_data_file", "ood_data_file"):  # opened and checked now, not mid-run
            if getattr(c, key):
                load_checked(load_problems, getattr(c, key), f"env.{key}", PROBLEM_ROW)
        if c.data_file and not c.eval_data_file and len(load_problems(c.data_file)) < 2:
            raise DataFileError(f"env.data_file: {c.data_file} holds 1 problem; at least 2 are needed (the last "
                                f"rows are held out for evaluation), or set env.eval_data_file")
        self.max_steps = c.max_attempts
        self._task: Task | None = None
        self._problem: Problem | None = None
        self._attempts: tuple[str, ...] = ()  # the answers given so far
        self._done = False

    # -- tasks ----------------------------------------------------------------------------------
    def _split_problems(self, split: str) -> tuple[Problem, ...]:
        """The problems of ``split`` in data mode."""
        c = self.config
        return split_rows(split, load_problems, c.data_file, c.eval_data_file, c.ood_data_file,
                          c.eval_in_distribution_size)

    def num_tasks(self, split: str) -> int | None:
        if split not in self.splits:
            raise ValueError(f"unknown split {split!r}; math has {list(self.splits)}")
        if self.config.data_file:
            return len(self._split_problems(split))
        if split == "train":
            return None
        if split == "eval_in_distribution":
            return self.config.eval_in_distribution_size
        return self.config.eval_out_of_distribution_size

    def task(self, split: str, index: int) -> Task:
        index = task_index(split, index, self.num_tasks(split))
        if self.config.data_file:
            task_type = self._split_problems(split)[index].problem_type
        else:
            task_type = self.config.problem_types[index % len(self.config.problem_types)]
        return Task(self.name, split, index, task_type, task_seed(split, index, self.config.seed))

    def problem(self, task: Task) -> Problem:
        """The problem ``task`` poses."""
        if self.config.data_file:
            return self._split_problems(task.split)[task.index]
        return generate_problem(task.task_type, task.split, task.seed, self.config.difficulty)

    # -- episode --------------------------------------------------------------------------------
    def reset(self, task: Task) -> str:
        self._task, self._problem = task, self.problem(task)
        self._attempts, self._done = (), False
        instruction = "Reason step by step, then give the final answer as \\boxed{answer}."
        if self.config.max_attempts > 1:
            instruction += f" You have {self.config.max_attempts} attempts."
        return f"{self._problem.text}\n{instruction}"

    def step(self, action: str) -> StepResult:
        problem = self._require_problem()
        if self._done:
            return StepResult(self.invalid_observation, 0.0, done=True, invalid=True, info=self._info())
        answer = extract_boxed(action) if isinstance(action, str) and "\\boxed{" in action else action
        answer = answer.strip() if isinstance(answer, str) else ""
        if not answer:  # counts as an attempt, like any inadmissible action counts as a step
            self._attempts += ("",)
            self._done = len(self._attempts) >= self.config.max_attempts
            return StepResult(self.invalid_observation, 0.0, done=self._done, invalid=True, info=self._info())
        self._attempts += (answer,)
        correct = answers_match(problem.answer, answer)
        self._done = correct or len(self._attempts) >= self.config.max_attempts
        if correct:
            observation = CORRECT
        else:
            observation = INCORRECT_FINAL if self._done else INCORRECT_RETRY
        info = self._info() | {"correct": correct}
        return StepResult(observation, 1.0 if correct else 0.0, done=self._done, won=correct, info=info)

    def admissible_actions(self) -> list[str]:
        return []

    @property
    def goal(self) -> str:
        return self._require_problem().text

    @property
    def done(self) -> bool:
        return self._done

    @property
    def gold_answer(self) -> str:
        return self._require_problem().answer

    def snapshot(self) -> Any:
        return (self._task, self._problem, self._attempts, self._done)

    def restore(self, snapshot: Any) -> None:
        self._task, self._problem, self._attempts, self._done = snapshot

    # -- helpers --------------------------------------------------------------------------------
    def memory(self) -> str | None:
        wrong = [a for a in self._attempts if a]
        if self.config.max_attempts == 1 or not self._attempts:
            return None
        left = self.config.max_attempts - len(self._attempts)
        return f"wrong answers: {', '.join(wrong) or 'none'}; attempts left: {left}"

    def parse_action(self, text: str) -> str | None:
        """The last ``\\boxed{}`` answer of the reply; ``None`` without one (never raises)."""
        return extract_boxed(text)

    def format_action(self, action: str) -> str:
        return f"The answer is \\boxed{{{action}}}."

    def expert_action(self) -> str | None:
        if self._problem is None or self._done:
            return None
        return self._problem.answer

    def _info(self) -> dict[str, Any]:
        return {"attempts": len(self._attempts)}

    def _require_problem(self) -> Problem:
        if self._problem is None:
            raise RuntimeError("call reset(task) before stepping the math environment")
        return self._problem
