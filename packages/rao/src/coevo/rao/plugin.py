"""Entry point of the coevo-rao distribution: registers the algorithm as an import string.

Discovery imports nothing of coevo-rao (torch/Lightning load on use): ``coevo.rao.module`` is
imported when ``algo=rao`` is chosen, and its decorator then registers the same class again.
"""

from __future__ import annotations

COMPONENTS = {"algorithm": {"rao": "coevo.rao.module:RAO"}}  # registry kind → name → "module:Class"


def register() -> None:
    """Called once by ``coevo.core.registry.discover``."""
    from coevo.core import registry

    registry.register_components(COMPONENTS)
