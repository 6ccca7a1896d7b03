"""HEIRCOMMIT: keep a training update only when it wins a paired comparison on fresh items.

``HeirCommit`` is core's ``CommitRollback`` callback with ``ConfirmationJudge``: every
``every_n_steps`` optimizer steps the current weights are a *proposal*; the judge draws ``m``
never-used items from the confirmation region of the env's train split (disjoint from the
training stream, checked at startup and on every draw), plays each item ``samples`` times with
the proposal and, with the root's weights swapped in, ``samples`` times with the root (with the
same seeds, ``common_seeds``: common random numbers), and computes the mean paired success gain
v. It commits when v > τ_t
(``mode=empirical``: τ=0; ``certified``: τ_t = σ·sqrt(2·log(1/δ_t)/m)); otherwise the callback
restores the root exactly (weights, optimizer, scheduler, RNG, data position). With
``bound=sequential`` the judge plays ``batch_items`` items at a time and stops as soon as an
e-process decides (``coevo.evoheir.sequential``): commit when the evidence for a gain reaches
1/δ_t, roll back when the evidence for a loss does or after ``max_items`` items.

Checkpointed (``resume=``, kill -9): the decision counter t, the pool ledger (cursors and every
used item), the audit rows and the error budget spent Σ_{s≤t} δ_s, with the root snapshot and
decision history of ``CommitRollback``; a resumed run numbers its next decision t+1 (so τ_t and
δ_t continue), draws only never-used items and keeps Σδ_t ≤ δ. A decision a kill interrupted is
replayed from the last checkpoint: same number, items and seeds (``coevo.evoheir.sequential``).

Wrap any rollout-based training: ``make train ALGO=grpo ARGS="+callbacks=heircommit"``.
Metrics ``train/commit/*`` (decision, gain, threshold, commits, rollbacks) and
``train/heircommit/*`` (proposal and root success, paired std, optional audit gain).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import lightning as L

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.algorithm_contract import HoldsPolicy, Records
from coevo.core.callbacks.commit_rollback import CommitRollback, Decision
from coevo.core.fields import bounded, check_instance, choice, registry_name
from coevo.core.state.snapshot import TrainingSnapshot
from coevo.evoheir.paired import (
    METRICS,
    PairedResult,
    check_metric,
    derived_seed,
    evaluation_guard,
    item_success,
    load_weights,
    paired_gain,
)
from coevo.evoheir.pools import IndexRegion, PoolLedger, PoolOverlapError, require_unbounded_train
from coevo.evoheir.sequential import SequentialTest, judge_in_batches
from coevo.evoheir.threshold import (
    BOUNDS,
    MODES,
    check_bound,
    check_certifiable,
    commit_threshold,
    decision_delta,
    spent_delta,
)

log = logging.getLogger(__name__)

# The role part of derived_seed(run seed, decision, ROLE, batch...): the proposal plays ROLE and the
# root ROLE + 1 (or ROLE too under common_seeds). Fixed values: renumbering one changes seeded runs.
CONFIRMATION_ROLE = 0  # the paired comparison on the confirmation items
AUDIT_ROLE = 2  # the audit's true gain on its own items


@dataclass
class HeirCommitConfig:
    name: str = registry_name("heircommit")
    every_n_steps: int = bounded(5, ge=1)  # optimizer steps per proposal
    mode: str = choice("empirical", MODES)  # empirical: τ = 0 | certified: τ_t = σ·sqrt(2·log(1/δ_t)/m)
    # certified bar: subgaussian (the paper's formula) | sign (exact sign test on the items where the
    # two policies differ; needs samples=1) | sequential (e-processes on batches of fresh items, stopped
    # when the evidence suffices): each keeps P(a harmful update commits at decision t) ≤ δ_t
    bound: str = choice("subgaussian", BOUNDS)
    pool_size: int = bounded(16, ge=1)  # m: confirmation items per decision (fresh each decision); not sequential
    samples: int = bounded(1, ge=1)  # episodes per item and policy (greedy: 1)
    # how an item is played: greedy (one argmax answer, the metric of eval's greedy success; samples = 1) |
    # sampled (``samples`` answers with the agent's sampling)
    metric: str = choice("greedy", METRICS)
    max_items: int = bounded(1024, ge=1)  # sequential: the most items one decision plays (then it rolls back)
    batch_items: int = bounded(64, ge=1)  # sequential: items played between two looks at the evidence
    # sequential: > 0 rolls back once the evidence that the update does not help reaches 1/futility (a
    # useful update is lost this way with probability ≤ futility; never a harmful commit more); 0: at 1/δ_t
    futility: float = bounded(0.3, ge=0, lt=1)
    # sub-Gaussian scale of a paired difference (1 for differences in [-1, 1])
    sigma: float = bounded(1.0, gt=0)
    delta: float = bounded(0.1, gt=0, lt=1)  # certified mode: total error budget over all decisions
    confirm_start: int = bounded(3_000_000, ge=0)  # first train-split index of the confirmation region
    # > 0: also measure each proposal's true gain on this many audit items
    audit_pool_size: int = bounded(0, ge=0)
    audit_start: int = bounded(4_000_000, ge=0)  # first train-split index of the audit region
    audit_samples: int = bounded(1, ge=1)  # sampled episodes per audit item and policy
    # true: both policies replay each item with the same sampling seeds (common random numbers: where
    # they agree they draw the same answers, so v varies less); false: independent seeds
    common_seeds: bool = True

    def __post_init__(self):
        check_instance(self, "callbacks.heircommit")
        check_metric("callbacks.heircommit.metric", self.metric,
                     {"callbacks.heircommit.samples": self.samples,
                      "callbacks.heircommit.audit_samples": self.audit_samples})
        check_bound(self.mode, self.bound, self.samples, "callbacks.heircommit")
        if self.mode == "certified":
            check_certifiable(self.sigma, self.delta, self.pool_size, 1, "callbacks.heircommit", self.bound,
                              self.max_items)

    @property
    def items_per_decision(self) -> int:
        """The confirmation items one decision may use (its share of the confirmation region)."""
        return self.max_items if self.bound == "sequential" else self.pool_size


class ConfirmationJudge:
    """The paired fresh-pool judge; ``audit`` records each proposal's true gain when enabled."""

    def __init__(self, config: HeirCommitConfig):
        self.config = config
        self.ledger: PoolLedger | None = None
        self.decisions = 0
        self.audit: list[dict] = []  # one row per decision: gain, threshold, commit, true_gain
        self._pending: dict | None = None  # checkpoint state waiting for the ledger (built in setup)

    @property
    def spent_delta(self) -> float:
        """Σ_{t≤decisions} δ_t: the certified error budget spent so far (< δ)."""
        return spent_delta(self.config.delta, self.decisions)

    def state_dict(self) -> dict:
        return {"decisions": self.decisions, "spent_delta": self.spent_delta, "audit": [dict(r) for r in self.audit],
                "ledger": self.ledger.state_dict() if self.ledger is not None else None}

    def load_state_dict(self, state: dict) -> None:
        """Restore the counter and audit now, the ledger once ``setup`` has built it."""
        if abs(spent_delta(self.config.delta, state["decisions"]) - state["spent_delta"]) > 1e-12:
            raise ValueError(f"callbacks.heircommit: the checkpoint's error budget Σδ_t = {state['spent_delta']} does "
                             f"not match {state['decisions']} decisions at delta={self.config.delta}; "
                             f"callbacks.heircommit.delta cannot change on resume")
        self.decisions = int(state["decisions"])
        self.audit = [dict(r) for r in state["audit"]]
        self._pending = state.get("ledger")

    def setup(self, trainer: L.Trainer, module: L.LightningModule) -> None:
        """Carve the pools and check them against the training stream (before any training)."""
        c = self.config
        if not hasattr(module, "agent") or not hasattr(module, "envs"):
            raise TypeError("HEIRCOMMIT needs a rollout algorithm (a coevo RolloutModule: grpo, rsipo, ...)")
        env = module.envs(1)[0]
        require_unbounded_train(env, "callbacks.heircommit")
        max_decisions = max(1, (trainer.max_steps if trainer.max_steps and trainer.max_steps > 0 else 10_000)
                            // c.every_n_steps)
        if c.mode == "certified":
            check_certifiable(c.sigma, c.delta, c.pool_size, max_decisions, "callbacks.heircommit", c.bound,
                              c.max_items)
        datamodule = getattr(trainer, "datamodule", None)
        batch = getattr(datamodule, "batch_size", 1)
        steps = trainer.max_steps if trainer.max_steps and trainer.max_steps > 0 else 10_000
        regions = [
            IndexRegion("training", "train", 0, steps * batch),
            IndexRegion("confirmation", "train", c.confirm_start,
                        c.confirm_start + max_decisions * c.items_per_decision),
        ]
        if c.audit_pool_size > 0:
            regions.append(IndexRegion("audit", "train", c.audit_start, c.audit_start + max_decisions * c.audit_pool_size))
        self.ledger = PoolLedger(env, regions)
        if self._pending is not None:  # resumed: items used before the stop stay used
            self.ledger.load_state_dict(self._pending)
            self._pending = None

    def __call__(self, trainer: L.Trainer, module: L.LightningModule, root: TrainingSnapshot) -> Decision:
        c = self.config
        self.decisions += 1
        t = self.decisions
        self._check_training_items(trainer)
        tasks = self.ledger.draw("confirmation", c.items_per_decision)
        audit_tasks = self.ledger.draw("audit", c.audit_pool_size) if c.audit_pool_size > 0 else []
        if c.bound == "sequential":  # no bar fixed in advance: τ is nan, the e-processes decide
            result, test = self._sequential(module, root, tasks, t)
            tau, commit, details = math.nan, test.verdict == "commit", test.details()
        else:
            new, old = self._paired_scores(module, root, tasks, c.samples, t, role=CONFIRMATION_ROLE)
            result = paired_gain(new, old)
            tau = commit_threshold(c.mode, c.bound, t, c.sigma, c.delta, new, old)
            commit, details = result.gain > tau, {}
        details |= {"new_success": result.new_success, "old_success": result.old_success, "paired_std": result.std,
                    "t": t, "m": result.m, "wins": result.wins, "losses": result.losses}
        if audit_tasks:
            a_new, a_old = self._paired_scores(module, root, audit_tasks, c.audit_samples, t, role=AUDIT_ROLE)
            details["true_gain"] = paired_gain(a_new, a_old).gain
        self.audit.append({"decision": t, "gain": result.gain, "threshold": tau, "commit": commit,
                           "true_gain": details.get("true_gain"), "wins": result.wins, "losses": result.losses,
                           "items": result.m})
        log.info("HEIRCOMMIT decision %d: v=%+.3f vs τ=%.3f on %d items → %s", t, result.gain, tau, result.m,
                 "COMMIT" if commit else "ROLLBACK")
        if isinstance(module, Records):
            module.record({f"heircommit/{k}": float(v) for k, v in details.items() if isinstance(v, int | float)})
        return Decision(commit, result.gain, tau, details)

    def _sequential(self, module, root: TrainingSnapshot, tasks, t: int) -> tuple[PairedResult, SequentialTest]:
        """Batches of the reserved items until the e-processes decide: the paired result over the items
        played, and the test. Rank 0's verdict after each batch is every rank's."""
        c = self.config
        test = SequentialTest(decision_delta(c.delta, t), c.max_items, c.futility)
        new, old = judge_in_batches(
            test, tasks, c.batch_items,
            lambda batch, items: self._paired_scores(module, root, items, c.samples, t, role=CONFIRMATION_ROLE,
                                                          batch=batch),
            dist.broadcast_object)
        return paired_gain(new, old), test

    def _paired_scores(self, module, root: TrainingSnapshot, tasks, samples: int, t: int, role: int,
                       batch: int | None = None):
        """Per-item success of the proposal and of the root on ``tasks``, seeded by the decision, the role
        (``CONFIRMATION_ROLE``, ``AUDIT_ROLE``) and the sequential judge's batch."""
        batches = () if batch is None else (batch,)
        policy = module.policy if isinstance(module, HoldsPolicy) else module
        seed = module.context.seed
        envs = module.envs(len(tasks) * samples)
        with evaluation_guard(policy):
            module.engine.sync_weights(policy)
            greedy = self.config.metric == "greedy"
            new = item_success(module.agent, envs, tasks, samples, derived_seed(seed, t, role, *batches), greedy)
            load_weights(policy, root.weights)
            module.engine.sync_weights(policy)
            old_seed = derived_seed(seed, t, role if self.config.common_seeds else role + 1, *batches)
            old = item_success(module.agent, envs, tasks, samples, old_seed, greedy)
        module.engine.sync_weights(policy)
        return new, old

    def _check_training_items(self, trainer) -> None:
        """Every training item consumed so far lies in the training region (fails loudly)."""
        datamodule = getattr(trainer, "datamodule", None)
        if datamodule is None or not hasattr(datamodule, "position"):
            return
        last = datamodule.position * datamodule.batch_size
        region = self.ledger.regions["training"]
        if last > region.stop:
            raise PoolOverlapError(f"training consumed items up to index {last}, beyond its region [0, {region.stop})")


@registry.callbacks.register("heircommit")
class HeirCommit(CommitRollback):
    """``CommitRollback`` with the fresh-pool paired judge (``+callbacks=heircommit``)."""

    Config = HeirCommitConfig

    def __init__(self, config: HeirCommitConfig | None = None):
        self.config = config or HeirCommitConfig()
        self.confirmation = ConfirmationJudge(self.config)
        super().__init__(self.confirmation, self.config.every_n_steps)

    def on_train_start(self, trainer, module) -> None:
        self.confirmation.setup(trainer, module)
        super().on_train_start(trainer, module)
