"""craft: TextCraft-like hierarchical crafting from generated recipe books, delegating sub-crafts.

``CraftEnv`` (registered as ``"craft"``) is the environment; ``recipes`` generates the books,
``planner`` is the oracle, ``goals`` the sub-goal grammar.
"""

from coevo.envs.craft.env import CraftEnv

__all__ = ["CraftEnv"]
