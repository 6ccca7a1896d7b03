"""The ``math`` environment: generated or user-supplied problems with answers in ``\\boxed{}``,
verified by math-verify; ``check_problem`` vets proposed problems."""

from coevo.envs.math.validity import check_problem

__all__ = ["check_problem"]
