"""CommitRollback: a Lightning callback that keeps an update only when a judge says it helped.

The callback holds a *root* snapshot (``coevo.core.state.snapshot``). Every ``every_n_steps``
optimizer steps it asks ``judge(trainer, module, root)`` for a ``Decision`` about the update made
since the root: on commit the current state becomes the new root; on rollback the root is
restored exactly (weights, optimizer, scheduler, RNG, data position), so training continues as if
the excursion never happened. HEIRCOMMIT (coevo-evoheir) is this callback with a judge that runs
a paired comparison on a fresh confirmation pool.

Metrics (``commit/…``): decisions, commits, rollbacks, the judge's gain and threshold.

Checkpoints (``resume=``, a kill -9 included): the callback's state — the root snapshot (weights,
optimizer, scheduler, RNG, data position), the step it was taken at, the decision history and the
judge's own state (``judge.state_dict()`` when it has one: HEIRCOMMIT's decision counter and pool
ledger) — goes into Lightning's checkpoint, so a resumed run judges the same excursion against
the same root and makes the same decisions as a run that was never stopped.

Several processes: every rank runs the judge (it may use collectives), then rank 0's decision is
broadcast and applied on every rank, so the replicas commit or roll back together (a checksum of
the weights is compared across ranks after each decision; a mismatch stops the run). Under FSDP
(a policy sharded over the ranks) each rank's snapshot holds its own shards of the weights and of
the optimizer state, and restores them in place; the checkpoint keeps every rank's, so a resume on
the same number of processes gives each rank its own back. With sharded checkpoints
(``trainer.fsdp.state_dict_type=sharded``) each rank writes its shards of the root to its own file of
the checkpoint folder (``rank<r>.pt``, ``coevo.core.callbacks.per_rank_state``) and reads it back, so
no process ever holds every rank's root; the rest of the root is in rank 0's ``meta.pt``. With full
checkpoints every rank's shards are gathered into the callback's state. A sharded checkpoint may
otherwise be resumed on another number of processes, but a root saved by N processes cannot:
loading it on M != N raises, naming N.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import lightning as L

from coevo.core import distributed as dist
from coevo.core.algorithm_contract import HoldsPolicy, Records
from coevo.core.callbacks.per_rank_state import PER_RANK
from coevo.core.policy.sharding import sharded_over_ranks
from coevo.core.state.snapshot import (
    TrainingSnapshot,
    restore_snapshot,
    snapshot_from_state,
    snapshot_state,
    take_snapshot,
)

SHARDS = " holding shards of the policy"  # what the processes of a sharded run held


@dataclass
class Decision:
    commit: bool
    gain: float = float("nan")  # the judge's estimate of the update's effect (e.g. paired success gain)
    threshold: float = float("nan")  # the bar it had to clear
    details: dict = field(default_factory=dict)


Judge = Callable[[L.Trainer, L.LightningModule, TrainingSnapshot], Decision]


class CommitRollback(L.Callback):
    def __init__(self, judge: Judge, every_n_steps: int):
        if every_n_steps < 1:
            raise ValueError("every_n_steps must be >= 1")
        self.judge = judge
        self.every_n_steps = every_n_steps
        self.root: TrainingSnapshot | None = None
        self.root_step = 0  # global step at which the root was taken
        self.history: list[tuple[int, Decision]] = []  # (global step, decision)
        self._resumed = False  # the root came from a checkpoint: keep it at train start
        self._sharded = False  # the policy is split over the ranks: each rank's root is its shards
        self._own_files = False  # ... and each rank writes its shards to its own checkpoint file
        self._loaded_per_rank: dict | None = None  # this rank's file of the checkpoint being loaded

    @staticmethod
    def _policy(module):
        return module.policy if isinstance(module, HoldsPolicy) else module

    def on_train_start(self, trainer, module) -> None:
        self._sharded = sharded_over_ranks(self._policy(module))
        self._own_files = self._sharded and getattr(trainer.strategy, "per_rank_files", False)
        if self._resumed and self.root is not None:
            return  # resumed: the checkpoint's root and root_step stand
        self.root = take_snapshot(self._policy(module), trainer, module)
        self.root_step = trainer.global_step

    # -- checkpoint ----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Everything a resumed run needs to judge and roll back exactly (collective with several
        processes: each rank's root RNG state is gathered, rank 0 writes them all)."""
        if self.root is None:
            return {}
        root = snapshot_state(self.root)
        root["rng_per_rank"] = dist.gather_objects(root["rng"])
        if self._own_files:  # each rank's shards: its own rank<r>.pt (on_save_checkpoint), not rank 0's meta.pt
            root.update(weights={}, optimizers=[], shards_in_rank_files=dist.world_size())
        elif self._sharded:  # each rank's shards of the weights and the optimizer state
            root["shards_per_rank"] = dist.gather_objects({"weights": root["weights"],
                                                           "optimizers": root["optimizers"]})
        judge_state = self.judge.state_dict() if hasattr(self.judge, "state_dict") else None
        return {"root": root, "root_step": self.root_step, "every_n_steps": self.every_n_steps,
                "history": [[step, asdict(d)] for step, d in self.history], "judge": judge_state}

    def on_save_checkpoint(self, trainer, module, checkpoint) -> None:
        if self.root is not None and self._own_files:
            checkpoint.setdefault(PER_RANK, {})[self.state_key] = {"weights": dict(self.root.weights),
                                                                   "optimizers": self.root.optimizers}

    def on_load_checkpoint(self, trainer, module, checkpoint) -> None:
        self._loaded_per_rank = checkpoint.get(PER_RANK)  # (Lightning calls load_state_dict next)

    @staticmethod
    def _require_saved_world(ranks: int, holding: str) -> None:
        """A root saved by ``ranks`` processes loads only on as many (``holding``: what they held)."""
        if ranks != dist.world_size():
            raise ValueError(
                f"resume: the commit/rollback root was saved by {ranks} processes{holding}, this run has "
                f"{dist.world_size()}; resume with trainer.devices x trainer.num_nodes = {ranks}")

    def _own_shards(self, ranks: int) -> dict:
        """This rank's shards of the root from its file of the checkpoint folder."""
        self._require_saved_world(ranks, SHARDS)
        own = ((self._loaded_per_rank or {}).get("own") or {}).get(self.state_key)
        if own is None:
            raise ValueError(f"resume: the checkpoint folder has no rank{dist.rank()}.pt with this rank's commit/"
                             f"rollback root (written by every rank of a sharded checkpoint); resume from a complete "
                             f"checkpoint")
        return own

    def load_state_dict(self, state_dict: dict) -> None:
        if not state_dict:
            return
        root = dict(state_dict["root"])
        per_rank = root.pop("rng_per_rank", None) or [root["rng"]]
        if len(per_rank) == dist.world_size():
            root["rng"] = per_rank[dist.rank()]
        in_files = root.pop("shards_in_rank_files", None)
        if in_files is not None:
            root.update(self._own_shards(in_files))
        shards = root.pop("shards_per_rank", None)
        if shards is not None:
            self._require_saved_world(len(shards), SHARDS)
            root.update(shards[dist.rank()])
        elif in_files is None:  # the whole state, each rank's RNG stream
            self._require_saved_world(len(per_rank), "")
        self.root = snapshot_from_state(root)
        self.root_step = int(state_dict["root_step"])
        self.history = [(int(step), Decision(**d)) for step, d in state_dict["history"]]
        if state_dict.get("judge") is not None and hasattr(self.judge, "load_state_dict"):
            self.judge.load_state_dict(state_dict["judge"])
        self._resumed = True

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
        if trainer.global_step - self.root_step < self.every_n_steps:
            return
        decision = dist.broadcast_object(self.judge(trainer, module, self.root))  # made once, applied everywhere
        self.history.append((trainer.global_step, decision))
        if decision.commit:
            self.root = take_snapshot(self._policy(module), trainer, module)
        else:
            restore_snapshot(self.root, self._policy(module), trainer, module)
        self.root_step = trainer.global_step
        if dist.world_size() > 1 and not self._sharded:  # the replicas must hold the same weights now
            checksum = sum(float(w.double().sum()) for w in self._policy(module).state_dict().values())
            dist.agree(checksum, "the policy's weights after a commit/rollback decision")
        commits = sum(d.commit for _, d in self.history)
        metrics = {
            "commit/decision": float(decision.commit),
            "commit/gain": decision.gain,
            "commit/threshold": decision.threshold,
            "commit/commits": float(commits),
            "commit/rollbacks": float(len(self.history) - commits),
        }
        if isinstance(module, Records):
            module.record({k.removeprefix("train/"): v for k, v in metrics.items()})
        else:
            module.log_dict(metrics, on_step=True)
