"""``python -m coevo.core.testing.train``: ``coevo-train`` with the test components registered.

What :func:`coevo.core.testing.ddp.train_ddp` runs: the real training CLI
(:mod:`coevo.core.cli.train`) after :func:`coevo.core.testing.components.register`, so that a test's
multi-process job can choose ``algo.name=unequal_forwards`` or ``callbacks=scripted_commits``
although the shipped plugin does not register them. Lightning's launcher re-runs this same module
for the other ranks, so every rank registers them too.
"""

from __future__ import annotations

from coevo.core.cli.train import main
from coevo.core.testing.components import register

if __name__ == "__main__":
    register()
    main()
