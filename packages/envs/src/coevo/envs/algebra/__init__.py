"""algebra: evaluate nested arithmetic expressions modulo a small number, delegating parts.

``AlgebraEnv`` (registered as ``"algebra"``) is the environment; ``expression`` holds the trees,
``parser`` reads expression text, ``goals`` the sub-goal grammar.
"""

from coevo.envs.algebra.env import AlgebraEnv

__all__ = ["AlgebraEnv"]
