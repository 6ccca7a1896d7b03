"""Entry point of the coevo-evoheir distribution: registers its components as import strings.

Discovery imports nothing of coevo-evoheir (its modules pull in sympy and math-verify through the
math environment): a component's module is imported when the component is chosen (``algo=evoheir``,
``+callbacks=heircommit``), and its decorator then registers the same class again, which the
registry accepts.
"""

from __future__ import annotations

COMPONENTS = {  # registry kind → name → "module:Class"
    "algorithm": {"evoheir": "coevo.evoheir.module:EvoHeir"},
    "callback": {"heircommit": "coevo.evoheir.heircommit:HeirCommit"},
}


def register() -> None:
    """Called once by ``coevo.core.registry.discover``."""
    from coevo.core import registry

    registry.register_components(COMPONENTS)
