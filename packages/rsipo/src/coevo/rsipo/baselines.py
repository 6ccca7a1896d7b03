"""RSIPO's baselines, each a registered algorithm name with its own defaults (spec: "Baselines").

- ``opsd``: on-policy self-distillation alone (no RLVR), static library skills, ω ≡ 1.
- ``grpo_opsd``: GRPO + OPSD, static library skills, ω ≡ 1 (no replay, no skill loss).
- ``skill_grpo``: GRPO whose student plays *with* the static library skill in its context during
  training (evaluated without it, as every method).
- ``skill_prompt`` (``skill_prompt.py``): no training; evaluation with the library skill in context.
The two ablations are settings of ``rsipo`` itself: ``algo.dynamic_trust=false`` (ω ≡ 1) and
``algo.skill_evolution=false`` (no L_skill; skills written by the frozen initial policy).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core import registry
from coevo.core.fields import bounded
from coevo.rsipo.config import RSIPOConfig, SkillSettings
from coevo.rsipo.module import RSIPO


def _library_skills() -> SkillSettings:
    return SkillSettings(source="library")


@dataclass
class OPSDConfig(RSIPOConfig):
    name: str = "opsd"
    rlvr: bool = False
    opsd_coef: float = bounded(1.0, ge=0)  # the only term: λ just scales the learning rate, so keep it 1
    dynamic_trust: bool = False
    skill: SkillSettings = field(default_factory=_library_skills)


@dataclass
class GRPOOPSDConfig(RSIPOConfig):
    name: str = "grpo_opsd"
    dynamic_trust: bool = False
    skill: SkillSettings = field(default_factory=_library_skills)


@dataclass
class SkillGRPOConfig(RSIPOConfig):
    name: str = "skill_grpo"
    opsd_coef: float = 0.0
    dynamic_trust: bool = False
    student_skills: bool = True
    skill: SkillSettings = field(default_factory=_library_skills)


@registry.algorithms.register("opsd")
class OPSD(RSIPO):
    Config = OPSDConfig


@registry.algorithms.register("grpo_opsd")
class GRPOOPSD(RSIPO):
    Config = GRPOOPSDConfig


@registry.algorithms.register("skill_grpo")
class SkillGRPO(RSIPO):
    Config = SkillGRPOConfig
