"""Deterministic generation of one problem from ``(problem type, split, seed, difficulty)``.

Two tiers of problem types. The default mix (``DEFAULT_PROBLEM_TYPES``) is school arithmetic,
fractions, linear equations and word problems. The basic tier (``addition``: ``a + b``;
``one_step_equation``: ``x + a = b``) is one operation on small numbers: at difficulty 1 it is the
single-digit addition table and its inverse, 81 facts each: a warm start brings the tiny CPU model
to 17-27% there (3-10% on the default mix), and RL can move it.

``eval_out_of_distribution`` problems use larger numbers (``scale.OOD_SHIFT`` more difficulty
levels) and, for word problems, templates never used in the other splits.
"""

from __future__ import annotations

import random

from coevo.envs.math import symbolic
from coevo.envs.math.problem import Problem
from coevo.envs.math.scale import MAX_DIFFICULTY, scale_for
from coevo.envs.math.word_problems import word_problem

DEFAULT_PROBLEM_TYPES = ("arithmetic", "fractions", "linear_equation", "word_problem")
BASIC_PROBLEM_TYPES = ("addition", "one_step_equation")
PROBLEM_TYPES = DEFAULT_PROBLEM_TYPES + BASIC_PROBLEM_TYPES
OOD_SPLIT = "eval_out_of_distribution"


def generate_problem(problem_type: str, split: str, seed: int, difficulty: int) -> Problem:
    if problem_type not in PROBLEM_TYPES:
        raise ValueError(f"unknown problem type {problem_type!r}; choose from {list(PROBLEM_TYPES)}")
    if not 1 <= difficulty <= MAX_DIFFICULTY:
        raise ValueError(f"difficulty must be in 1..{MAX_DIFFICULTY}, got {difficulty}")
    rng = random.Random(seed)
    ood = split == OOD_SPLIT
    scale = scale_for(difficulty, ood)
    if problem_type == "arithmetic":
        return symbolic.arithmetic(rng, scale)
    if problem_type == "fractions":
        return symbolic.fractions(rng, scale)
    if problem_type == "linear_equation":
        return symbolic.linear_equation(rng, scale)
    if problem_type == "addition":
        return symbolic.addition(rng, scale)
    if problem_type == "one_step_equation":
        return symbolic.one_step_equation(rng, scale)
    return word_problem(rng, scale, ood)
