"""RSIPO's settings (``algo=rsipo``): GRPO's fields plus the skill, replay, trust and OPSD knobs.

Every "our choice" of the spec is a field here. λ (``opsd_coef``), κ (``trust.kappa``) and ω_max
(``trust.omega_max``) are validated when the config is built, before any work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from coevo.core.algos.grpo import GRPOConfig
from coevo.core.algos.optim import OptimSettings

SKILL_SOURCES = ("policy", "library")


@dataclass
class TrustSettings:
    kappa: float = 1.0  # κ in ω = clip(1 + κ·Δ̃, 0, ω_max)
    omega_max: float = 2.0  # ω_max (>= 1, so that a neutral skill keeps ω = 1)
    type_decay: float = 0.9  # running per-type estimates: weight of the past per update of a type (1 = cumulative)
    variance_floor: float = 0.01  # floor of the binomial variance σ_x² of a replay gain

    def __post_init__(self):
        if not (math.isfinite(self.kappa) and self.kappa >= 0):
            raise ValueError(f"trust.kappa (κ) must be a finite number >= 0, got {self.kappa}")
        if not (math.isfinite(self.omega_max) and self.omega_max >= 1):
            raise ValueError(f"trust.omega_max (ω_max) must be a finite number >= 1, got {self.omega_max}")
        if not 0 < self.type_decay <= 1:
            raise ValueError(f"trust.type_decay must be in (0, 1], got {self.type_decay}")
        if not (math.isfinite(self.variance_floor) and self.variance_floor >= 0):
            raise ValueError(f"trust.variance_floor must be >= 0, got {self.variance_floor}")


@dataclass
class SkillSettings:
    source: str = "policy"  # policy: the policy writes them (on-policy) | library: the static library (baselines)
    max_new_tokens: int = 64  # length limit of a written skill, in tokens
    max_chars: int = 400  # longer parsed skills are cut and recorded as too_long
    temperature: float = 1.0  # sampling temperature of skill writing (its log-probs use the same)
    trajectories: int = 2  # attempts shown in the writing prompt (successes and failures alternate)
    max_actions: int = 8  # last commands shown per attempt
    context_prefix: str = "Skill: "  # the skill's line before the first user message (replay, teacher)
    malformed_penalty: float = 0.0  # subtracted from the skill reward of an empty/malformed skill
    min_verbs: int = 2  # command verbs that make a skill "procedural"

    def __post_init__(self):
        if self.source not in SKILL_SOURCES:
            raise ValueError(f"algo.skill.source: unknown '{self.source}'; choose one of {list(SKILL_SOURCES)}")
        if self.max_new_tokens < 1 or self.max_chars < 1:
            raise ValueError("algo.skill.max_new_tokens and algo.skill.max_chars must be >= 1")
        if self.temperature <= 0:
            raise ValueError("algo.skill.temperature must be > 0 (skills are sampled)")


@dataclass
class WarmupSettings:
    """Teaching the tiny policy to write skills: it never saw skill text. By default writing examples
    (prompt → library skill of the task's type) join core's warm start (``warm_start_share``; see
    ``coevo.rsipo.demonstrations``); ``steps`` > 0 adds a separate fine-tune on writing prompts after
    it. With neither, early skills are malformed; they are recorded and rewarded like any other."""

    # share of core's warm-start expert episodes that also give a writing example (0: none). Where the
    # policy writes skills, they join the warm start itself (coevo.rsipo.demonstrations): the tokenizer
    # learns the skills' words and SFT teaches the format beside acting.
    warm_start_share: float = 0.5
    steps: int = 0  # optimizer steps of a separate fine-tune after the warm start (0 disables)
    batch_size: int = 8
    episodes: int = 48  # expert episodes the examples are built from
    lr: float = 1e-4  # 3e-3 for 40 steps eroded acting: sampled success 37% -> 3% at the first RL step
    acting_fraction: float = 0.5  # share of each batch that are expert acting examples (keeps acting intact)

    def __post_init__(self):
        if self.steps < 0 or self.batch_size < 1 or self.episodes < 1:
            raise ValueError("algo.warmup: steps must be >= 0, batch_size and episodes >= 1")
        if not 0 <= self.warm_start_share <= 1:
            raise ValueError(f"algo.warmup.warm_start_share must be in [0, 1], got {self.warm_start_share}")
        if not 0 <= self.acting_fraction < 1:
            raise ValueError(f"algo.warmup.acting_fraction must be in [0, 1), got {self.acting_fraction}")
    first_index: int = 2_000_000  # train-split index of the first expert episode (disjoint from RL's)


@dataclass
class RSIPOConfig(GRPOConfig):
    name: str = "rsipo"
    rlvr: bool = True  # the GRPO term L_RLVR
    opsd_coef: float = 1.0  # λ, weight of L_OPSD(ω) (0: no teacher scoring)
    skill_coef: float = 1.0  # weight of L_skill
    skill_evolution: bool = True  # False: no L_skill, skills written by the frozen initial policy
    dynamic_trust: bool = True  # False: ω ≡ 1
    student_skills: bool = False  # library skills in the *student's* context while training (Skill-GRPO)
    replay_fraction: float = 0.5  # share of each group replayed with the skill (H_r)
    opsd_turns: int = 0  # student turns per step scored by the teacher and distilled (random, seeded); 0 = all
    default_type: str = "default"  # type of tasks that have none (with a warning)
    trust: TrustSettings = field(default_factory=TrustSettings)
    skill: SkillSettings = field(default_factory=SkillSettings)
    warmup: WarmupSettings = field(default_factory=WarmupSettings)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=1e-4))

    def __post_init__(self):
        super().__post_init__()
        if not (math.isfinite(self.opsd_coef) and self.opsd_coef >= 0):
            raise ValueError(f"algo.opsd_coef (λ) must be a finite number >= 0, got {self.opsd_coef}")
        if not (math.isfinite(self.skill_coef) and self.skill_coef >= 0):
            raise ValueError(f"algo.skill_coef must be a finite number >= 0, got {self.skill_coef}")
        if self.opsd_turns < 0:
            raise ValueError(f"algo.opsd_turns must be >= 0 (0: every turn), got {self.opsd_turns}")
        if not 0 < self.replay_fraction < 1:
            raise ValueError(f"algo.replay_fraction must be in (0, 1), got {self.replay_fraction}")
        if self.updates_per_batch != 1:
            raise ValueError("algo.updates_per_batch: RSIPO takes one update per batch (L = L_RLVR + λ L_OPSD + L_skill)")

    @property
    def skill_loss(self) -> bool:
        """L_skill is trained: the policy writes the skills and they evolve."""
        return self.skill_evolution and self.skill.source == "policy" and self.skill_coef > 0

    @property
    def needs_replay(self) -> bool:
        """Replays run when their gain is used: for ω (dynamic trust) or for the skill reward."""
        return self.dynamic_trust or self.skill_loss

    @property
    def needs_skills(self) -> bool:
        return self.needs_replay or self.opsd_coef > 0 or self.student_skills
