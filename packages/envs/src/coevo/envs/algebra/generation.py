"""Random expressions of an exact depth.

An operation of depth ``d`` has one operand of depth ``d - 1`` (left or right at random) and one
of a depth drawn uniformly from ``0..d-1``; leaves are digits 0-9 and operators ``+ - *`` are
equally likely. So the size grows gently with depth: about 10 operations at depth 4 and 40 at
depth 8.
"""

from __future__ import annotations

import random

from coevo.envs.algebra.expression import OPERATORS, Expr, Num, Op


def generate_expression(rng: random.Random, depth: int) -> Expr:
    if depth == 0:
        return Num(rng.randint(0, 9))
    deep = generate_expression(rng, depth - 1)
    other = generate_expression(rng, rng.randint(0, depth - 1))
    left, right = (deep, other) if rng.random() < 0.5 else (other, deep)
    return Op(rng.choice(OPERATORS), left, right)
