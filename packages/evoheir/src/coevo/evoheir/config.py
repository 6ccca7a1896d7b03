"""``algo=evoheir`` settings (preset ``configs/algo/evoheir.yaml`` lists every field)."""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.algos.optim import OptimSettings
from coevo.evoheir.recovery import RecoverySettings
from coevo.evoheir.threshold import MODES, check_certifiable
from coevo.evoheir.verifiers import VERIFIERS

HOST_NAMES = ("r_zero", "grpo")


@dataclass
class ScoutSettings:
    attempts: int = 16  # Scout problems written per explore step (paper: 1,024 per round)
    max_new_tokens: int = 64  # length limit of a Scout reply
    consensus_answers: int = 6  # Learner answers per proposed problem (paper: 10)
    min_support: float = 0.5  # consensus: admit when the largest answer cluster has this share (paper: 0.7)
    warmup_examples: int = 300  # Scout replies from the math generator taught before round 1 (0: none)
    warmup_epochs: int = 3
    warmup_lr: float = 2.0e-3
    warmup_first_index: int = 5_000_000  # train-split indices of the warm-up problems


@dataclass
class ScreenSettings:
    pool_size: int = 8  # screening items per round (paper: 16)
    samples: int = 2  # fresh answers per item and candidate (paper: 4)
    start: int = 2_000_000  # first train-split index of the screening region


@dataclass
class CommitSettings:
    enabled: bool = True  # false: ablation "no confirm" (commit every proposal)
    mode: str = "empirical"  # empirical: τ = 0 | certified: τ_t = σ·sqrt(2·log(1/δ_t)/m)
    pool_size: int = 16  # m: fresh confirmation items per round (paper: 32-64)
    samples: int = 2  # fresh answers per item and policy
    sigma: float = 1.0  # sub-Gaussian scale of a paired difference in [-1, 1]
    delta: float = 0.1  # certified: total error budget over all rounds
    start: int = 3_000_000  # first train-split index of the confirmation region


@dataclass
class ArchiveSettings:
    enabled: bool = True  # false: ablation "archive off" (no M_t, nothing persisted)
    cap: int = 256
    current_round_only: bool = False  # ablation: Recovery sees only this round's experience E_t
    file: str = "archive.json"  # in the run folder, written atomically after every round
    load: str = ""  # start from a saved archive (e.g. a previous run's archive.json); empty: start empty


@dataclass
class AuditSettings:
    enabled: bool = False  # measure every proposal's true gain on a large held-out pool
    pool_size: int = 64
    samples: int = 1
    start: int = 4_000_000  # first train-split index of the audit region


@dataclass
class EvoHeirConfig:
    name: str = "evoheir"
    rounds: int = 4  # self-evolution rounds (one Lightning step each)
    host: str = "r_zero"  # native update source: r_zero (Scout + consensus solver) | grpo (generated problems)
    verifier: str = "consensus"  # r_zero labels: consensus (pseudo-labels) | exact (computed answers)
    branches: int = 2  # K isolated explore branches per round
    explore_steps: int = 3  # optimizer steps per branch (paper: 15)
    tasks_per_step: int = 4  # grpo host: problems per explore step (also the data module's batch)
    group_size: int = 4  # grpo host: answers per problem
    heldout_tasks: int = 40  # greedy held-out (eval_in_distribution) accuracy after every round; 0: off
    audit: bool = False  # shorthand for audit_settings.enabled
    scout: ScoutSettings = field(default_factory=ScoutSettings)
    screen: ScreenSettings = field(default_factory=ScreenSettings)
    recovery: RecoverySettings = field(default_factory=RecoverySettings)
    commit: CommitSettings = field(default_factory=CommitSettings)
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    audit_settings: AuditSettings = field(default_factory=AuditSettings)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=2e-4))  # each branch's AdamW

    def __post_init__(self):
        if self.host not in HOST_NAMES:
            raise ValueError(f"algo.host: unknown host '{self.host}'; choose one of {list(HOST_NAMES)}")
        if self.verifier not in VERIFIERS:
            raise ValueError(f"algo.verifier: unknown '{self.verifier}'; choose one of {list(VERIFIERS)}")
        if self.commit.mode not in MODES:
            raise ValueError(f"algo.commit.mode: unknown '{self.commit.mode}'; choose one of {list(MODES)}")
        for key in ("rounds", "branches", "explore_steps", "tasks_per_step", "group_size"):
            if getattr(self, key) < 1:
                raise ValueError(f"algo.{key}: must be >= 1, got {getattr(self, key)}")
        if self.group_size < 2 and self.host == "grpo":
            raise ValueError("algo.group_size: the grpo host needs at least 2 answers per problem")
        if self.commit.enabled and self.commit.mode == "certified":
            check_certifiable(self.commit.sigma, self.commit.delta, self.commit.pool_size, self.rounds, "algo.commit")
        if self.audit:
            self.audit_settings.enabled = True
