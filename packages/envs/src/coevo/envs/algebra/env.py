"""The ``algebra`` environment: evaluate a nested arithmetic expression modulo a small number.

A task is a random expression of exactly ``depth`` levels over digits 0-9 with ``+ - *``
(``eval_out_of_distribution``: ``ood_depth``, by default twice ``depth``). The agent answers
once: ``answer <n>`` with ``n`` in ``0..modulus-1`` (these are the admissible commands) ends the
episode, won iff ``n`` is the expression's value modulo ``modulus``. Anything else is invalid
and counts as a step (``max_steps`` of them end the episode).

Recursion. A parent delegates a part of its expression, ``evaluate <sub-expression>`` (grammar
in ``coevo.envs.algebra.goals``); the child evaluates that part and is won iff its answer is
right. ``join(child)`` puts the child's answer in place of that part (every occurrence) in the
parent's current expression, shown by ``memory()``, and returns ``"<part> = <value>; the
expression is now <current>"``; the parent's own answer is still checked against the original
expression, so a wrong child answer misleads it. The recursive oracle delegates the compound
operands of its current expression while it is deeper than ``expert_leaf_depth``
(``expert_delegations()``), then answers; ``expert_action()`` is the right answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import Task
from coevo.core.fields import bounded, random_seed
from coevo.envs.algebra.expression import Expr, Num, Op, depth, evaluate, render, substitute
from coevo.envs.algebra.generation import generate_expression
from coevo.envs.algebra.goals import GRAMMAR, check_subgoal, parse_goal
from coevo.envs.procedural import OOD_SPLIT, ood_knob
from coevo.envs.recursive import Outcome, RecursiveEnv, small_int


@dataclass(frozen=True)
class _State:
    expression: Expr  # this agent's expression, as given
    current: Expr  # the same with joined children's answers put in
    answer: int | None = None  # this agent's answer, once given


@registry.envs.register("algebra")
class AlgebraEnv(RecursiveEnv):
    """Nested arithmetic expressions of a given depth, answered modulo a small number."""

    name = "algebra"
    task_types = ("evaluate",)
    invalid_observation = "Invalid action. Answer with 'answer <n>', n being the value modulo the task's modulus."
    goal_grammar = GRAMMAR

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed; each task's seed derives from (split, index, seed)
        depth: int = bounded(4, ge=1)  # nesting depth of the expressions of train and eval_in_distribution
        ood_depth: int = bounded(0, ge=0)  # depth in eval_out_of_distribution (more than depth); 0: 2 x depth
        modulus: int = bounded(10, ge=2)  # values are taken modulo this (answers 0..modulus-1)
        max_steps: int = bounded(3, ge=1)  # steps per episode (one answer ends it; invalid replies count)
        expert_leaf_depth: int = bounded(1, ge=1)  # the recursive oracle answers itself at most this deep
        eval_in_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_in_distribution"
        eval_out_of_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_out_of_distribution"

    def __init__(self, config: Config | None = None):
        super().__init__()
        self.config = c = config if config is not None else self.Config()
        if c.depth < 1 or c.modulus < 2 or c.max_steps < 1 or c.expert_leaf_depth < 1:
            raise ValueError("env.depth, env.max_steps, env.expert_leaf_depth must be at least 1, env.modulus at least 2")
        self.ood_depth = ood_knob("depth", c.depth, c.ood_depth, 2 * c.depth)
        self._s: _State | None = None

    def depth_of(self, split: str) -> int:
        """The difficulty knob's value for ``split``: expression depth."""
        return self.ood_depth if split == OOD_SPLIT else self.config.depth

    # -- episode --------------------------------------------------------------------------------
    def _start(self, task: Task) -> str:
        return self._begin(generate_expression(random.Random(task.seed), self.depth_of(task.split)))

    def _begin(self, expression: Expr) -> str:
        self._s = _State(expression, expression)
        self.max_steps = self.config.max_steps
        m = self.config.modulus
        return (
            f"Goal: evaluate {render(expression)}\nGive its value modulo {m}, the remainder on division by {m} "
            f"(from 0 to {m - 1}; for example -3 gives {-3 % m}). Answer with 'answer <n>'."
        )

    def _apply(self, command: str) -> Outcome:
        verb, _, rest = command.lower().partition(" ")
        if verb != "answer":
            return self.invalid(f"unknown command {command!r}")
        given = small_int(rest)
        if given is None or given >= self.config.modulus:
            return self.invalid(f"the answer must be a number from 0 to {self.config.modulus - 1}")
        self._s = _State(self._s.expression, self._s.current, given)
        won = given == self.value
        return Outcome("Correct." if won else "Wrong answer.", won=won, finished=True)

    def admissible_actions(self) -> list[str]:
        self._require_started()
        return [f"answer {n}" for n in range(self.config.modulus)]

    @property
    def goal(self) -> str:
        return f"evaluate {render(self.expression)}"

    @property
    def expression(self) -> Expr:
        self._require_started()
        return self._s.expression

    @property
    def current_expression(self) -> Expr:
        """The expression with the joined children's answers put in."""
        self._require_started()
        return self._s.current

    @property
    def value(self) -> int:
        """The right answer."""
        return evaluate(self.expression, self.config.modulus)

    @property
    def answer_given(self) -> int | None:
        return self._s.answer if self._s is not None else None

    def _state(self) -> Any:
        return self._s

    def _set_state(self, state: Any) -> None:
        self._s = state

    def memory(self) -> str | None:
        if self._s is None or self._s.current == self._s.expression:
            return None
        return f"expression now: {render(self._s.current)}"

    # -- recursion ------------------------------------------------------------------------------
    def _fork(self, goal: str) -> tuple[AlgebraEnv, str]:
        sub = parse_goal(goal, self.config.modulus)
        check_subgoal(self.current_expression, sub)
        child = self._new_child(self._task)
        return child, child._begin(sub)

    def _join(self, child: AlgebraEnv) -> str:
        part = render(child.expression)
        if child.answer_given is None:
            return f"{part}: no answer"
        current, count = substitute(self._s.current, child.expression, Num(child.answer_given))
        if count == 0:
            return f"{part} = {child.answer_given} (no longer in the expression)"
        self._s = _State(self._s.expression, current, self._s.answer)
        return f"{part} = {child.answer_given}; the expression is now {render(current)}"

    def expert_delegations(self) -> list[str]:
        if self._s is None or self._done:
            return []
        current = self._s.current
        if depth(current) <= self.config.expert_leaf_depth:
            return []
        assert isinstance(current, Op)
        parts = [x for x in (current.left, current.right) if isinstance(x, Op)]
        return list(dict.fromkeys(f"evaluate {render(x)}" for x in parts))

    def _expert_action(self) -> str:
        return f"answer {self.value}"
