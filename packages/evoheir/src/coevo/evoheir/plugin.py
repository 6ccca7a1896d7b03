"""Entry point of the coevo-evoheir distribution: importing a module registers its components."""

from __future__ import annotations


def register() -> None:
    """Called once by ``coevo.core.registry.discover``."""
    from coevo.evoheir import (
        heircommit,  # noqa: F401  (registers callback "heircommit")
        module,  # noqa: F401  (registers algorithm "evoheir")
    )
