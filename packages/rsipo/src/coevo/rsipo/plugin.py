"""Entry point of the coevo-rsipo distribution: importing the modules registers their components."""

from __future__ import annotations


def register() -> None:
    """Called once by ``coevo.core.registry.discover``; each import registers by decorator."""
    from coevo.rsipo import (
        baselines,  # noqa: F401  (opsd, grpo_opsd, skill_grpo)
        calibration,  # noqa: F401  (callback trust_calibration)
        module,  # noqa: F401  (rsipo)
        skill_prompt,  # noqa: F401  (skill_prompt)
    )
