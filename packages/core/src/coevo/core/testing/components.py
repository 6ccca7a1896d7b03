"""Test-only components, registered by the tests that use them and never by the shipped plugin.

``scripted_commits`` (commit/rollback decisions from a fixed script) and ``unequal_forwards`` (a
deliberate rank mismatch) exist to test rollback and the collective timeout in real runs. coevo-core's
``coevo.plugins`` entry point (``coevo.core.builtin``) does not register them, so
``python -m coevo.core.plugins`` and the registries' error messages list only real components.
A test process calls :func:`register`; a multi-process job started from a test runs
``python -m coevo.core.testing.train`` (:mod:`coevo.core.testing.train`), which registers them in
every rank before the real CLI runs.
"""

from __future__ import annotations

from coevo.core import registry

# registry kind -> {name: import string}; imported only when a test chooses the component
COMPONENTS: dict[str, dict[str, str]] = {
    # decisions from a fixed script: tests of rollback in real (multi-process) runs
    "callback": {"scripted_commits": "coevo.core.testing.scripted_commits:ScriptedCommits"},
    # one extra forward on the last rank: tests of the collective timeout
    "algorithm": {"unequal_forwards": "coevo.core.testing.unequal_forwards:UnequalForwards"},
}


def register() -> None:
    """Register the test components into this process's registries (again: no effect)."""
    for kind, names in COMPONENTS.items():
        target_registry = registry.REGISTRIES[kind]
        for name, target in names.items():
            if name not in target_registry:
                target_registry.register(name, target)
