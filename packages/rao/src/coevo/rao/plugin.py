"""Entry point of the coevo-rao distribution: importing the module registers the algorithm."""

from __future__ import annotations


def register() -> None:
    """Called once by ``coevo.core.registry.discover``; registered lazily (torch/Lightning load on use)."""
    from coevo.core import registry

    registry.algorithms.register("rao", "coevo.rao.module:RAO")
