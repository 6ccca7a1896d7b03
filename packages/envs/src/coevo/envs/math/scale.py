"""How big the numbers of a generated problem are, by difficulty and split.

``difficulty`` 1 keeps every number below 10 and products small; each level multiplies the range
of additive quantities by 4 and widens multiplicative factors. Out-of-distribution problems use
the ranges of ``difficulty + 2`` (larger numbers than any seen in training).
"""

from __future__ import annotations

from dataclasses import dataclass

OOD_SHIFT = 2
MAX_DIFFICULTY = 5


@dataclass(frozen=True)
class Scale:
    level: int  # the effective difficulty (difficulty, + OOD_SHIFT out of distribution)
    value_max: int  # additive quantities are drawn from [1, value_max]
    factor_max: int  # multiplicative factors from [2, factor_max]
    denominator_max: int  # fraction denominators from [2, denominator_max]
    terms: int  # operands of an arithmetic expression


def scale_for(difficulty: int, out_of_distribution: bool) -> Scale:
    level = difficulty + (OOD_SHIFT if out_of_distribution else 0)
    return Scale(
        level=level,
        value_max=10 * 4 ** (level - 1) - (1 if level == 1 else 0),
        factor_max=3 + 3 * level,
        denominator_max=4 + 4 * level,
        terms=2 + (level - 1) // 2,
    )
