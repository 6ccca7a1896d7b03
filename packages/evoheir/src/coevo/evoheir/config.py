"""``algo=evoheir`` settings (every field and its default; the preset ``algo/evoheir.yaml`` inherits them as ``base_evoheir``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core import registry
from coevo.core.algos import gigpo, losses  # noqa: F401 (registers the advantage estimators and the losses)
from coevo.core.algos.optim import OptimSettings
from coevo.core.fields import bounded, check_instance, choice, path, registry_name
from coevo.evoheir.paired import METRICS, check_metric
from coevo.evoheir.recovery import RecoverySettings
from coevo.evoheir.threshold import BOUNDS, MODES, check_bound, check_certifiable
from coevo.evoheir.verifiers import VERIFIERS

HOST_NAMES = ("r_zero", "grpo")


@dataclass
class ScoutSettings:
    attempts: int = bounded(16, ge=1)  # Scout problems written per explore step (paper: 1,024 per round)
    max_new_tokens: int = bounded(64, ge=1)  # length limit of a Scout reply
    consensus_answers: int = bounded(6, ge=1)  # Learner answers per proposed problem (paper: 10)
    # consensus: admit when the largest answer cluster has this share (paper: 0.7)
    min_support: float = bounded(0.5, gt=0, le=1)
    # Scout replies from the math generator taught before round 1 (0: none)
    warmup_examples: int = bounded(300, ge=0)
    warmup_epochs: int = bounded(3, ge=1)  # passes over them
    warmup_lr: float = bounded(2.0e-3, gt=0)  # the Scout warm-up's learning rate
    warmup_first_index: int = bounded(5_000_000, ge=0)  # train-split indices of the warm-up problems
    # the order the warm-up's examples are shuffled in: fixed, like the core warm start's, so every run seed
    # starts round 1 from the same root (with the run's seed, round 0 moved 21-33% from seed to seed)
    warmup_seed: int = bounded(0, ge=0)


@dataclass
class ScreenSettings:
    pool_size: int = bounded(8, ge=1)  # screening items per round (paper: 16)
    samples: int = bounded(1, ge=1)  # answers per item and candidate (paper: 4 sampled; greedy: 1)
    start: int = bounded(2_000_000, ge=0)  # first train-split index of the screening region


@dataclass
class CommitSettings:
    enabled: bool = True  # false: ablation "no confirm" (commit every proposal)
    mode: str = choice("empirical", MODES)  # empirical: τ = 0 | certified: τ_t = σ·sqrt(2·log(1/δ_t)/m)
    # certified bar: subgaussian (the paper's formula) | sign (exact sign test on the items where the
    # two policies differ; needs samples=1) | sequential (e-processes on batches of fresh items, stopped
    # when the evidence suffices: coevo.evoheir.sequential): each keeps P(a harmful update commits at
    # decision t) ≤ δ_t
    bound: str = choice("subgaussian", BOUNDS)
    # how screening, confirmation and the audit play an item: greedy (one argmax answer: the metric of the
    # held-out accuracy; samples = 1) | sampled (the agent's sampling, ``samples`` answers per item)
    metric: str = choice("greedy", METRICS)
    pool_size: int = bounded(16, ge=1)  # m: fresh confirmation items per round (paper: 32-64); not sequential
    samples: int = bounded(1, ge=1)  # answers per item and policy (greedy: 1)
    max_items: int = bounded(1024, ge=1)  # sequential: the most items one decision plays (then it rolls back)
    batch_items: int = bounded(64, ge=1)  # sequential: items played between two looks at the evidence
    # sequential: > 0 rolls back once the evidence that the update does not help reaches 1/futility (a
    # useful update is lost this way with probability ≤ futility; never a harmful commit more); 0: at 1/δ_t
    futility: float = bounded(0.3, ge=0, lt=1)
    sigma: float = bounded(1.0, gt=0)  # sub-Gaussian scale of a paired difference in [-1, 1]
    delta: float = bounded(0.1, gt=0, lt=1)  # certified: total error budget over all rounds
    start: int = bounded(3_000_000, ge=0)  # first train-split index of the confirmation region
    # true: in screening, confirmation and the audit every policy replays each item with the same
    # sampling seeds (common random numbers: v varies less); false: independent seeds per policy
    common_seeds: bool = True


@dataclass
class ArchiveSettings:
    enabled: bool = True  # false: ablation "archive off" (no M_t, nothing persisted)
    cap: int = bounded(256, ge=1)  # records kept (oldest dropped first)
    current_round_only: bool = False  # ablation: Recovery sees only this round's experience E_t
    file: str = path("archive.json")  # in the run folder, written atomically after every round
    # start from a saved archive (e.g. a previous run's archive.json); empty: start empty
    load: str = path("", empty="start empty")


@dataclass
class AuditSettings:
    enabled: bool = False  # measure every proposal's true gain on a large held-out pool
    pool_size: int = bounded(64, ge=1)  # held-out items per proposal
    samples: int = bounded(1, ge=1)  # answers per item and policy
    start: int = bounded(4_000_000, ge=0)  # first train-split index of the audit region


@dataclass
class EvoHeirConfig:
    name: str = registry_name("evoheir")
    rounds: int = bounded(4, ge=1)  # self-evolution rounds (one Lightning step each)
    # native update source: r_zero (Scout + consensus solver) | grpo (generated problems)
    host: str = choice("r_zero", HOST_NAMES)
    verifier: str = choice("consensus", VERIFIERS)  # r_zero labels: consensus (pseudo-labels) | exact (computed answers)
    branches: int = bounded(2, ge=1)  # K isolated explore branches per round
    explore_steps: int = bounded(3, ge=1)  # optimizer steps per branch (paper: 15)
    tasks_per_step: int = bounded(4, ge=1)  # grpo host: problems per explore step (also the data module's batch)
    group_size: int = bounded(4, ge=1)  # grpo host: answers per problem (>= 2 there)
    # grpo host: registry name of the advantage estimator, as GRPO's algo.advantage (grpo | rloo | gigpo)
    advantage: str = choice("grpo", registry.advantages.names)
    # grpo host: registry name of the policy loss, as GRPO's algo.loss (clipped_pg | dapo | gspo | cispo)
    loss: str = choice("clipped_pg", registry.losses.names)
    # greedy held-out (eval_in_distribution) accuracy after every round; 0: off
    heldout_tasks: int = bounded(40, ge=0)
    audit: bool = False  # shorthand for audit_settings.enabled
    scout: ScoutSettings = field(default_factory=ScoutSettings)
    screen: ScreenSettings = field(default_factory=ScreenSettings)
    recovery: RecoverySettings = field(default_factory=RecoverySettings)
    commit: CommitSettings = field(default_factory=CommitSettings)
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    audit_settings: AuditSettings = field(default_factory=AuditSettings)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=2e-4))  # each branch's AdamW

    def __post_init__(self):
        check_instance(self, "algo")
        if self.group_size < 2 and self.host == "grpo":
            raise ValueError("algo.group_size: the grpo host needs at least 2 answers per problem")
        if self.host != "grpo" and (self.advantage != "grpo" or self.loss != "clipped_pg"):
            raise ValueError(f"algo.advantage={self.advantage} algo.loss={self.loss}: only the grpo host chooses "
                             f"them (the {self.host} host trains Scout and solver with GRPO advantages and its "
                             f"own objective); add algo.host=grpo, or leave them at grpo / clipped_pg")
        c = self.commit
        check_metric("algo.commit.metric", c.metric, {"algo.screen.samples": self.screen.samples,
                                                      "algo.commit.samples": c.samples,
                                                      "algo.audit_settings.samples": self.audit_settings.samples})
        if c.enabled:
            check_bound(c.mode, c.bound, c.samples, "algo.commit")
        if c.enabled and c.mode == "certified":
            check_certifiable(c.sigma, c.delta, c.pool_size, self.rounds, "algo.commit", c.bound, c.max_items)
        if self.audit:
            self.audit_settings.enabled = True
