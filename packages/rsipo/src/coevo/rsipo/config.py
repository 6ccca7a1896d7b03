"""RSIPO's settings (``algo=rsipo``): GRPO's fields plus the skill, replay, trust and OPSD knobs.

Every "our choice" of the spec is a field here. λ (``opsd_coef``), κ (``trust.kappa``) and ω_max
(``trust.omega_max``) are validated when the config is built, before any work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.algos.grpo import GRPOConfig
from coevo.core.algos.optim import OptimSettings
from coevo.core.fields import bounded, check_instance, choice, free_text, registry_name

SKILL_KINDS = ("library", "hindsight")  # algo.warmup.skill_kind
SKILL_SOURCES = ("policy", "library", "hindsight")


@dataclass
class TrustSettings:
    kappa: float = bounded(1.0, ge=0)  # κ in ω = clip(1 + κ·Δ̃, 0, ω_max)
    omega_max: float = bounded(2.0, ge=1)  # ω_max (>= 1, so that a neutral skill keeps ω = 1)
    # running per-type estimates: weight of the past per update of a type (1 = cumulative)
    type_decay: float = bounded(0.9, gt=0, le=1)
    variance_floor: float = bounded(0.01, ge=0)  # floor of the binomial variance σ_x² of a replay gain

    def __post_init__(self):
        check_instance(self, "algo.trust")


@dataclass
class SkillSettings:
    # policy: the policy writes them (on-policy) | library: the static library (baselines) | hindsight: the
    # env expert's attempt at each task with its search cut out (an oracle writer: how much a perfect
    # hindsight skill is worth to the replay and the teacher; needs an env expert; coevo.rsipo.hindsight)
    source: str = choice("policy", SKILL_SOURCES)
    max_new_tokens: int = bounded(64, ge=1)  # length limit of a written skill, in tokens
    max_chars: int = bounded(400, ge=1)  # longer parsed skills are cut and recorded as too_long
    # sampling temperature of skill writing (its log-probs use the same; skills are sampled, so > 0)
    temperature: float = bounded(1.0, gt=0)
    trajectories: int = bounded(2, ge=1)  # attempts shown in the writing prompt (successes and failures alternate)
    max_actions: int = bounded(8, ge=1)  # last commands shown per attempt
    # the skill's line before the first user message (replay, teacher): any text
    context_prefix: str = free_text("Skill: ")
    malformed_penalty: float = bounded(0.0, ge=0)  # subtracted from the skill reward of an empty/malformed skill
    min_verbs: int = bounded(2, ge=0)  # command verbs that make a skill "procedural"

    def __post_init__(self):
        check_instance(self, "algo.skill")


@dataclass
class WarmupSettings:
    """Teaching the tiny policy to write skills: it never saw skill text. By default writing examples
    (prompt → library skill of the task's type) join core's warm start (``warm_start_share``; see
    ``coevo.rsipo.demonstrations``); ``steps`` > 0 adds a separate fine-tune on writing prompts after
    it. With neither, early skills are malformed; they are recorded and rewarded like any other."""

    # share of core's warm-start expert episodes that also give a writing example (0: none). Where the
    # policy writes skills, they join the warm start itself (coevo.rsipo.demonstrations): the tokenizer
    # learns the skills' words and SFT teaches the format beside acting.
    warm_start_share: float = bounded(0.5, ge=0, le=1)
    # share of those expert episodes whose acting steps are given a second time with the library skill
    # of the task's type before the first message (0: none), so the policy learns to act with a skill in
    # its context, as the replay and the teacher use it (coevo.rsipo.demonstrations)
    in_context_share: float = bounded(0.0, ge=0, le=1)
    # what those writing and in-context examples teach (coevo.rsipo.hindsight): library = the static library
    # skill of the task's type; hindsight = the expert's attempt with its search cut out (where things are
    # in this room), written from the attempt and, in context, followed command by command
    skill_kind: str = choice("library", SKILL_KINDS)
    # optimizer steps of a separate fine-tune after the warm start (0 disables)
    steps: int = bounded(0, ge=0)
    batch_size: int = bounded(8, ge=1)  # examples per optimizer step of that fine-tune
    episodes: int = bounded(48, ge=1)  # expert episodes the examples are built from
    # 3e-3 for 40 steps eroded acting: sampled success 37% -> 3% at the first RL step
    lr: float = bounded(1e-4, gt=0)
    # share of each batch that are expert acting examples (keeps acting intact; < 1 leaves room for writing)
    acting_fraction: float = bounded(0.5, ge=0, lt=1)
    # train-split index of the first expert episode (disjoint from RL's)
    first_index: int = bounded(2_000_000, ge=0)

    def __post_init__(self):
        check_instance(self, "algo.warmup")


@dataclass
class RSIPOConfig(GRPOConfig):
    name: str = registry_name("rsipo")
    rlvr: bool = True  # the GRPO term L_RLVR
    # λ, weight of L_OPSD(ω) (0: no teacher scoring). 0.1, not 1: OPSD's dense per-token gradient is
    # 2-10x the RLVR term's, so under grad clipping at λ = 1 it drowns the reward signal and pulls
    # toward a teacher less sure than the student; the default run then fell 52% -> 18%
    # (packages/rsipo/README.md, Measured)
    opsd_coef: float = bounded(0.1, ge=0)
    skill_coef: float = bounded(1.0, ge=0)  # weight of L_skill
    skill_evolution: bool = True  # False: no L_skill, skills written by the frozen initial policy
    dynamic_trust: bool = True  # False: ω ≡ 1
    student_skills: bool = False  # library skills in the *student's* context while training (Skill-GRPO)
    replay_fraction: float = bounded(0.5, gt=0, lt=1)  # share of each group replayed with the skill (H_r)
    # student turns per step scored by the teacher and distilled (random, seeded); 0 = all
    opsd_turns: int = bounded(64, ge=0)
    default_type: str = free_text("default")  # type of tasks that have none (with a warning): a label
    trust: TrustSettings = field(default_factory=TrustSettings)
    skill: SkillSettings = field(default_factory=SkillSettings)
    warmup: WarmupSettings = field(default_factory=WarmupSettings)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=2e-4))

    def __post_init__(self):
        super().__post_init__()  # checks every declared field (GRPOConfig)
        if self.updates_per_batch != 1:
            raise ValueError("algo.updates_per_batch: RSIPO takes one update per batch (L = L_RLVR + λ L_OPSD + L_skill)")
        if self.dynamic_sampling.enabled:
            raise ValueError("algo.dynamic_sampling.enabled: RSIPO plays its own groups (students, replays, "
                             "skills); dynamic sampling is GRPO's option; set it to false")

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
