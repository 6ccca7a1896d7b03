"""Entry point of the coevo-rsipo distribution: registers its components as import strings.

Discovery imports nothing of coevo-rsipo: a component's module is imported when the component is
chosen (``algo=rsipo``, ``+callbacks=trust_calibration``), and its decorator then registers the same
class again, which the registry accepts.
"""

from __future__ import annotations


def register() -> None:
    """Called once by ``coevo.core.registry.discover``."""
    from coevo.core import registry

    registry.algorithms.register("rsipo", "coevo.rsipo.module:RSIPO")
    registry.algorithms.register("opsd", "coevo.rsipo.baselines:OPSD")
    registry.algorithms.register("grpo_opsd", "coevo.rsipo.baselines:GRPOOPSD")
    registry.algorithms.register("skill_grpo", "coevo.rsipo.baselines:SkillGRPO")
    registry.algorithms.register("skill_prompt", "coevo.rsipo.skill_prompt:SkillPrompt")
    registry.callbacks.register("trust_calibration", "coevo.rsipo.calibration:TrustCalibration")
