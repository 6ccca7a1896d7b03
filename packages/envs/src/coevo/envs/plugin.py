"""Entry point of the coevo-envs distribution: importing an environment registers it."""

from __future__ import annotations


def register() -> None:
    """Called once by ``coevo.core.registry.discover``; each import registers by decorator."""
    from coevo.envs.alfworld import env as alfworld_env  # noqa: F401  (registers "alfworld"; imports no alfworld)
    from coevo.envs.household import env  # noqa: F401  (the decorator registers "household")
    from coevo.envs.math import env as math_env  # noqa: F401  (registers "math")
    from coevo.envs.search import env as search_env  # noqa: F401  (registers "search")
