"""Base LightningModule for on-policy algorithms: owns the policy, the engine and the env pool.

Subclasses implement ``training_step``; this base resolves the step's tasks (``take_tasks``) and
does its rollouts with an RNG seeded from ``(seed, batch index)``, so that a resumed or rolled-back
run samples exactly what an uninterrupted run would, and logs the rollout metrics. Optimisation is manual (several
micro-batches per optimizer step), one optimizer step per ``training_step`` by default.

Several processes (``trainer=ddp_cpu``; ``coevo.core.distributed``): each rank rolls out its
contiguous share of the step's tasks with its own seed stream; gradients are averaged over the
ranks before clipping and the optimizer step (not by DDP's backward hooks: ranks take different
numbers of micro-batch backward passes); the logged metrics are those of all ranks' episodes
(``record`` sums counts and averages the rest over ranks), identical on every rank; checkpoints
keep every rank's RNG state, so a resumed run continues exactly.

Sharded (``trainer=fsdp`` / ``fsdp_cpu`` over several processes): every forward through the policy
all-gathers its units, so ranks must run the same forwards. Rollouts therefore sample from a full
copy of the weights (``coevo.core.policy.full_replica``, refreshed in ``rollout``), which needs no
collective; updates call ``lockstep`` to agree on how many micro-batches every rank runs (a rank
with fewer runs padding micro-batches: real forwards and backwards whose loss is multiplied by 0);
FSDP averages the gradients in backward and clips them with the global norm.
"""

from __future__ import annotations

import time

import lightning as L
import torch
from lightning.pytorch.strategies import FSDPStrategy

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.agent.batch_player import BatchPlayer, GroupPlayer
from coevo.core.agent.groups import play_groups
from coevo.core.agent.loop import AgentLoop, summarize
from coevo.core.agent.types import Episode
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.optim import OptimSettings, build_optimizer
from coevo.core.data.rollout_datamodule import TaskBatchRef
from coevo.core.env.protocol import Task
from coevo.core.policy.full_replica import FullReplica
from coevo.core.policy.held_state import held_state_bytes, tensor_bytes
from coevo.core.policy.sharding import (
    clip_grad_norm,
    initialise_root,
    is_sharded,
    shard_frozen,
    shard_policy,
    sharded_over_ranks,
    unwrap_sharded,
)
from coevo.core.seeds import rank_seed, step_seed


class RolloutModule(L.LightningModule):
    # True: the algorithm runs no-grad forwards of the full current weights on each rank besides its
    # rollouts (teacher log-probs, a distillation student), which under FSDP over several processes
    # need the hf engine's full copy (``no_grad_policy``); other engines are refused before any work
    full_weight_forwards = False
    # True: every step's batch is played by ``rollout()`` with the step's default seed, so Ray workers
    # may play it beside training (rollout.async.enabled; coevo.core.workers.async_rollouts)
    plays_async = False

    @classmethod
    def async_refusal(cls, config) -> tuple[str, str] | None:
        """``(key, reason)`` when ``config`` cannot play beside training although the algorithm can
        (``plays_async``); ``None`` when it can."""
        return None

    def __init__(self, context: AlgorithmContext, optim: OptimSettings, group_size: int):
        super().__init__()
        self.automatic_optimization = False
        self.policy = context.model
        self.context = context
        self.optim_settings = optim
        self.group_size = group_size
        engine_cls = registry.rollout_engines.get(context.engine_name)
        self.engine = engine_cls(context.engine_config, self.policy, context.tokenizer)
        self.agent = AgentLoop(self.engine, context.tokenizer, context.agent)
        self._envs = []
        self._player: BatchPlayer | None = None  # built on first use (batch_player)
        self.batch_index = 0  # index of the current step's task batch in the data stream
        self.async_rollouts = None  # rollout.async.enabled: the Ray workers' driver (use_async_rollouts)
        self._async_state = None  # its checkpointed state, until training starts
        self.rollout_staleness = 0  # trainer version - the version this step's episodes were played with

    def configure_model(self) -> None:
        # trainer=fsdp: the policy is the root FSDP unit, not this module (see policy/sharding.py)
        strategy = self.trainer.strategy
        if dist.world_size() > 1 and isinstance(strategy, FSDPStrategy) and not is_sharded(self.policy):
            # several ranks: rollouts sample from a full copy, taken before the policy is sharded
            # (an engine that streams the sharded weights instead, vllm, builds none)
            self.engine.use_replica(lambda: FullReplica(self.policy, strategy.root_device, _compute_dtype(strategy)))
            # the KL reference's frozen copy is sharded too (its forwards run in the lockstep updates)
            reference = getattr(self, "reference", None)
            if reference is not None:
                reference.shard(lambda frozen: shard_frozen(frozen, strategy))
        self.policy = shard_policy(self.policy, strategy)

    @property
    def sharded_over_ranks(self) -> bool:
        """Whether the policy is split over several processes (its forwards are collective)."""
        return sharded_over_ranks(self.policy)

    def lockstep(self, count: int) -> int:
        """How many forwards every rank runs in a phase where this rank needs ``count``: the maximum
        over the ranks when the policy is sharded (collective: every rank calls it), else ``count``."""
        return dist.max_over_ranks(count) if self.sharded_over_ranks else count

    def no_grad_policy(self) -> torch.nn.Module:
        """The model for no-grad forwards of the current weights between a rollout and the update
        (teacher log-probs, a frozen copy): the rollout replica when sharded over ranks (its
        forwards need no collective; refreshed by the last rollout), else the policy itself."""
        replica = getattr(self.engine, "replica", None)
        return replica.model if replica is not None else self.policy

    def full_policy(self) -> torch.nn.Module:
        """The policy with its full weights on this rank, for rollouts outside ``fit`` (evaluation
        after training): the refreshed replica when sharded over ranks (collective), else the policy
        model (inside its FSDP unit on one process)."""
        replica = getattr(self.engine, "replica", None)
        return replica.refresh(self.policy) if replica is not None else unwrap_sharded(self.policy)

    def configure_optimizers(self):
        return build_optimizer(self.policy.parameters(), self.optim_settings)

    def on_fit_start(self) -> None:
        initialise_root(self.policy)  # before any rollout (subclasses' warm-ups included)
        self.policy.train()  # from_pretrained returns modules in eval mode

    def on_train_start(self) -> None:
        # warm-ups in on_fit_start ran on every rank after DDP's initial broadcast: align the replicas
        # (a sharded policy has one copy of each parameter, split over the ranks: nothing to align)
        if not is_sharded(self.policy):
            dist.broadcast_parameters(self.policy)
        if self.async_rollouts is not None:
            self.on_train_start_async()

    def transfer_batch_to_device(self, batch, device, dataloader_idx):
        return batch  # a list of Tasks: nothing to move; the agent loop places tensors itself

    @property
    def decoding_mode(self) -> str:
        """"generate" or "choose": ``agent.mode`` resolved for this run's environment."""
        return self.agent.mode_for(self.envs(1)[0])

    # -- rollouts -----------------------------------------------------------------------------
    def envs(self, n: int):
        while len(self._envs) < n:
            self._envs.append(self.context.make_env())
        return self._envs[:n]

    def batch_player(self) -> BatchPlayer:
        """What is played for each step batch (``coevo.core.agent.batch_player``): ``group_size``
        episodes of every task. An algorithm whose step plays more overrides it; the same object plays
        in this process (synchronous rollouts) and, shipped to each Ray worker, beside training."""
        return GroupPlayer(self.context.make_env, self.group_size, self.context.seed)

    @property
    def player(self) -> BatchPlayer:
        if self._player is None:
            self._player = self.batch_player()
            self._player.share_envs(self._envs)  # in this process it plays in the module's environments
        return self._player

    def play_batch(self, tasks: list[Task]):
        """This step's batch as ``player`` plays it: by a Ray worker when rollouts are asynchronous,
        else here with the current weights."""
        if self.async_rollouts is not None:
            return self._async_played(tasks)
        self.rollout_staleness = 0
        start = time.perf_counter()
        self.engine.sync_weights(self.policy)
        played = self.player.play(self.engine, self.agent, tasks, self.batch_index)
        self._rollout_seconds = time.perf_counter() - start
        return played

    def take_tasks(self, batch: TaskBatchRef | list[Task]) -> list[Task]:
        """The tasks of this training step (resolving the data loader's placeholder); the rollout
        seed follows the batch index, so a rolled-back or resumed run replays the same episodes."""
        if isinstance(batch, TaskBatchRef):
            self.batch_index, tasks = batch.take()
            return dist.shard(tasks)
        self.batch_index = self.global_step
        return dist.shard(list(batch))

    def rollout(self, tasks: list[Task], group_size: int | None = None, seed: int | None = None,
                sync: bool = True) -> list[Episode]:
        """``group_size`` episodes of every task, seeded by the batch index (or by ``seed``, e.g. a
        refill round's; this rank's stream of it); ``sync=False`` when the engine already holds
        this step's weights (a second rollout before the update)."""
        g = group_size or self.group_size
        if self.async_rollouts is not None and seed is None and g == self.group_size and sync:
            return self.play_batch(tasks)  # the group player's batch (GroupPlayer plays as below)
        self.rollout_staleness = 0
        start = time.perf_counter()
        if sync:
            self.engine.sync_weights(self.policy)
        episodes = play_groups(self.agent, tasks, g, self.envs(len(tasks) * g),
                               rank_seed(step_seed(self.context.seed, self.batch_index) if seed is None else seed))
        self._rollout_seconds = time.perf_counter() - start
        return episodes

    # -- rollouts beside training (rollout.async; coevo.core.workers.async_rollouts) -------------
    def use_async_rollouts(self, rollouts) -> None:
        """Take this run's step batches from ``rollouts`` (an ``AsyncRollouts``) instead of playing them."""
        self.async_rollouts = rollouts

    def push_weights(self) -> None:
        """Send the weights after this step's update to the rollout workers (``AsyncWeightPush``); their
        version is the number of batches trained on."""
        self.async_rollouts.push(self.batch_index + 1, pushed_weights(unwrap_sharded(self.policy),
                                                                     self.async_rollouts.settings.push))

    def _async_played(self, tasks: list[Task]):
        """This step's batch as a worker played it; adopts the play's RNG state (as if played here)
        and records its staleness (``rollout/staleness_*``, ``rollout/dropped_stale``)."""
        result = self.async_rollouts.take(self.batch_index, tasks, self.batch_index)
        torch.set_rng_state(result["rng_state"])
        self.rollout_staleness = result["staleness"]
        self._rollout_seconds = result["wait_seconds"]
        metrics = {"rollout/policy_version": float(result["version"]), "rollout/staleness_mean": float(result["staleness"]),
                   "rollout/staleness_max": float(result["staleness"]), "rollout/dropped_stale": float(result["dropped"]),
                   "rollout/play_seconds": float(result["seconds"]),
                   "rollout/worker_restarts": float(self.async_rollouts.worker_restarts),
                   "rollout/push_bytes": self.async_rollouts.last_push["bytes"],
                   "rollout/push_seconds": self.async_rollouts.last_push["seconds"]}
        self.step_metrics.update(metrics)
        self.log_dict(metrics, on_step=True, prog_bar=False)
        self.log("stale", float(result["staleness"]), prog_bar=True, on_step=True, logger=False)
        return result["played"]

    def on_train_start_async(self) -> None:
        """Restore the workers' schedule from the checkpoint (if any) and push the starting weights."""
        if self._async_state is not None:
            self.async_rollouts.load_state_dict(self._async_state)
            self._async_state = None
        datamodule = self.trainer.datamodule  # (None when fed by a plain data loader: one batch per step)
        position = datamodule.position if datamodule is not None else self.global_step  # batches trained so far
        self.async_rollouts.start(position, position, unwrap_sharded(self.policy).state_dict())

    def log_rollout_metrics(self, episodes: list[Episode]) -> dict[str, float]:
        """Success, reward, per-type rates… of all ranks' episodes of this step (identical on every rank)."""
        stats = summarize(dist.gather_episode_stats(episodes), self.context.task_types)
        stats.update(dist.reduce_metrics({
            "rollout_seconds": self._rollout_seconds,
            "agent_tokens": float(sum(len(t.response_ids) for ep in episodes for t in ep.turns)),
        }))
        self.record(stats, reduce=False)
        self.log("reward", stats["reward"], prog_bar=True, on_step=True, logger=False)
        self.log("success", stats["success"], prog_bar=True, on_step=True, logger=False)
        return stats

    def record(self, metrics: dict[str, float], reduce: bool = True) -> None:
        """Log ``metrics`` as ``train/<key>`` for this step (TensorBoard and ``step_metrics``).

        With several processes this is collective: each key is summed (counts, see
        ``coevo.core.distributed.ADDITIVE``) or averaged over the ranks (``reduce=False``: the values
        are already the same on every rank)."""
        if reduce:
            metrics = dist.reduce_metrics(metrics)
        values = {f"train/{k}": float(v) for k, v in metrics.items()}
        self.step_metrics.update(values)
        self.log_dict(values, on_step=True, prog_bar=False)

    def on_train_batch_start(self, batch, batch_idx) -> None:
        self.step_metrics: dict[str, float] = {}  # exactly what this step logged (no stale keys)
        wrapper = self.trainer.strategy.model if self._trainer is not None else None
        if isinstance(wrapper, torch.nn.parallel.DistributedDataParallel):
            wrapper.require_backward_grad_sync = False  # average_gradients does it, once per optimizer step

    def average_gradients(self, parameters) -> None:
        """Mean of the gradients over the ranks under DDP (FSDP reduces them in backward itself)."""
        wrapper = self.trainer.strategy.model if self._trainer is not None else None
        if isinstance(wrapper, torch.nn.parallel.DistributedDataParallel):
            dist.average_gradients(parameters)

    def optimizer_step_with_clipping(self) -> float:
        optimizer = self.optimizers()
        self.average_gradients(self.policy.parameters())
        norm = clip_grad_norm(self.policy, self.optim_settings.grad_clip)  # sharded: over all ranks' shards
        optimizer.step()
        self.record_held_state(optimizer.optimizer)
        optimizer.zero_grad(set_to_none=True)
        scheduler = self.lr_schedulers()
        if scheduler is not None:
            scheduler.step()
        return float(norm)

    def record_held_state(self, optimizer: torch.optim.Optimizer) -> None:
        """Sharded over ranks: log the most any rank holds of the model's training state (parameters,
        gradients, ``optimizer``'s state) as ``train/held_*_bytes`` (collective: one gather)."""
        if not is_sharded(self.policy):
            return
        held = held_state_bytes(self.policy.parameters(), optimizer)
        frozen = getattr(getattr(self, "reference", None), "frozen", None)
        if frozen is not None:  # the KL reference's frozen copy (sharded too)
            held["reference"] = tensor_bytes(frozen.parameters())
        per_rank = dist.gather_objects(held)
        self.record({f"held_{key}_bytes": float(max(held[key] for held in per_rank)) for key in per_rank[0]},
                    reduce=False)

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        states = dist.gather_objects(torch.get_rng_state())  # collective: every rank saves, rank 0 writes
        checkpoint["coevo_rng"] = {"torch": states[0], "torch_per_rank": states}
        if self.async_rollouts is not None:  # the batches in flight, finished: exact resume
            checkpoint["coevo_async_rollouts"] = self.async_rollouts.state_dict()

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        self._async_state = checkpoint.get("coevo_async_rollouts")
        state = checkpoint.get("coevo_rng")
        if state is None:
            return
        per_rank = state.get("torch_per_rank") or [state["torch"]]
        torch.set_rng_state(per_rank[dist.rank()] if len(per_rank) == dist.world_size() else state["torch"])


def pushed_weights(policy: torch.nn.Module, what: str) -> dict[str, torch.Tensor]:
    """The weights a step sends to the rollout workers: ``full`` (the state dict) or ``trainable`` (the
    parameters that require grad: the LoRA adapter alone with LoRA; every parameter without)."""
    if what == "full":
        return policy.state_dict()
    names = {name for name, p in policy.named_parameters() if p.requires_grad}
    return {name: value for name, value in policy.state_dict().items() if name in names}


def _compute_dtype(strategy) -> torch.dtype | None:
    """The dtype FSDP computes in (``bf16-mixed``: bfloat16), which the rollout replica is kept in."""
    precision = getattr(strategy, "mixed_precision_config", None)
    return getattr(precision, "param_dtype", None) if precision is not None else None
