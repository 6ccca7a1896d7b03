"""Entry point of the coevo-envs distribution: importing an environment registers it."""

from __future__ import annotations


def register() -> None:
    """Called once by ``coevo.core.registry.discover``; each import registers by decorator."""
    from coevo.core import registry
    from coevo.envs.alfworld import env as alfworld_env  # noqa: F401  (registers "alfworld"; imports no alfworld)
    from coevo.envs.household import env  # noqa: F401  (the decorator registers "household")

    # imported on first use: math-verify/sympy and bm25s cost seconds at start-up
    registry.envs.register("math", "coevo.envs.math.env:MathEnv")
    registry.envs.register("search", "coevo.envs.search.env:SearchEnv")
    # the recursive environments (fork/join for RAO): pure Python, imported on first use
    registry.envs.register("longctx", "coevo.envs.longctx.env:LongCtxEnv")
    registry.envs.register("algebra", "coevo.envs.algebra.env:AlgebraEnv")
    registry.envs.register("craft", "coevo.envs.craft.env:CraftEnv")
    registry.envs.register("maze", "coevo.envs.maze.env:MazeEnv")
    # TextCraft-Synth (RAO's benchmark): hidden recipes, a finite stock; pure Python, imported on first use
    registry.envs.register("textcraft_synth", "coevo.envs.textcraft_synth.env:TextCraftSynthEnv")
