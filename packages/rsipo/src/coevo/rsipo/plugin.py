"""Entry point of the coevo-rsipo distribution: registers its components as import strings.

Discovery imports nothing of coevo-rsipo: a component's module is imported when the component is
chosen (``algo=rsipo``, ``+callbacks=trust_calibration``), and its decorator then registers the same
class again, which the registry accepts.
"""

from __future__ import annotations

COMPONENTS = {  # registry kind → name → "module:Class"
    "algorithm": {
        "rsipo": "coevo.rsipo.module:RSIPO",
        "opsd": "coevo.rsipo.baselines:OPSD",
        "grpo_opsd": "coevo.rsipo.baselines:GRPOOPSD",
        "skill_grpo": "coevo.rsipo.baselines:SkillGRPO",
        "skill_prompt": "coevo.rsipo.skill_prompt:SkillPrompt",
    },
    "callback": {"trust_calibration": "coevo.rsipo.calibration:TrustCalibration"},
}


def register() -> None:
    """Called once by ``coevo.core.registry.discover``."""
    from coevo.core import registry

    registry.register_components(COMPONENTS)
