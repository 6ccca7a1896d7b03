"""Rollouts beside training: batches played by Ray workers with a staleness bound and versioned weights.

The trainer's weights after ``v`` optimizer steps are version ``v``. Batch ``k`` is trained at
trainer version ``k + offset`` (one batch per optimizer step; ``offset`` is the step at which the
run started minus its first batch index), and may be played with any version ``>= k + offset - s``
(``s`` = ``rollout.async.max_staleness``). So after every push of version ``v`` the driver submits
each batch up to ``v - offset + s``, to the workers in turn, with the newest weights: while the
trainer updates on batch ``k``, the workers play batches ``k+1 … k+s``. With ``s = 0`` nothing is
played ahead: batch ``k`` is played with the weights it is trained into, the synchronous algorithm
in another process (the same episodes: the same weights, tasks and seed, and the trainer adopts the
worker's RNG state after the play).

A result older than the bound when it is taken (a worker slower than the schedule) is dropped,
counted (``dropped_stale``) and played again with the current weights; it is never trained on.
Workers keep the newest ``s + 1`` versions, so a batch always finds the version it was sent with.

A worker that dies (its process killed) is restarted by Ray (``max_restarts``); the driver keeps the
last ``s + 1`` weight versions in Ray's object store, sends them to the new process and replays the
dead worker's unfinished batches with the version and seed each was started with, so the episodes
are the ones it would have returned (counted: ``worker_restarts``, ``replayed_batches``).

Exact resume: ``state_dict`` (taken at a checkpoint) waits for the batches in flight and keeps their
finished episodes; ``load_state_dict`` puts them back, so no episode is trained on twice or lost, and
every later batch is played as in the uninterrupted run.
"""

from __future__ import annotations

import copy
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import torch

from coevo.core.agent.batch_player import BatchPlayer
from coevo.core.config import ConfigError
from coevo.core.env.protocol import Task
from coevo.core.progress import activity
from coevo.core.rollout.async_settings import RaySettings, RolloutPlacement
from coevo.core.state.plain import from_plain, to_plain
from coevo.core.workers.rollout_worker import RolloutWorker, StaleVersionError

RESTART_SECONDS = 120  # the longest wait for Ray to start a dead worker again

#: set to "0" before Ray is imported, Ray takes 127.0.0.1 as this node's address: a local instance
#: (and a cluster on this machine's loopback) then listens and talks on the loopback interface only
LOOPBACK_NODE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def connect(settings: RaySettings) -> bool:
    """Start or join Ray (``rollout.ray.address``); ``True`` when this call started a local instance
    (on the loopback interface only). A ``host:port`` that does not accept a connection within
    ``connect_timeout_s``, or a cluster Ray cannot join, is refused naming the key. (``ray.init`` runs
    in the calling thread: the local instance's processes die with the thread that started them.)"""
    host, _, port = settings.address.rpartition(":")
    if host in ("", "127.0.0.1", "localhost") and "://" not in settings.address:
        os.environ.setdefault(LOOPBACK_NODE, "0")
    import ray

    if ray.is_initialized():
        return False
    where = settings.address or "a local instance"
    if host and port.isdigit() and "://" not in settings.address:
        try:
            socket.create_connection((host, int(port)), timeout=settings.connect_timeout_s).close()
        except OSError as exc:
            raise ConfigError(f"config error at 'rollout.ray.address': nothing answers at '{where}' ({exc}); start "
                              f"a cluster (ray start --head) and pass its address, or leave rollout.ray.address empty "
                              f"for a local instance") from None
    kwargs = {"address": settings.address} if settings.address else {}
    try:
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"config error at 'rollout.ray.address': cannot join the Ray cluster at '{where}' "
                          f"({' '.join(str(exc).split())[:200]}); check the address, or leave it empty for a local "
                          f"instance") from None
    return not settings.address


class AsyncRollouts:
    def __init__(self, placement: RolloutPlacement, model: torch.nn.Module, tokenizer, player: BatchPlayer, agent,
                 engine_name: str, engine_config: Any, tasks_for: Callable[[int], list[Task]], threads: int):
        import ray

        self.settings = placement.asynchronous
        self.staleness_bound = self.settings.max_staleness
        self.tasks_for = tasks_for
        connect(placement.ray)  # (the CLI connected before any work; a no-op then)
        # CPU-bound like the trainer: no reservation; a dead worker's process is started again
        worker_cls = ray.remote(num_cpus=0, max_restarts=-1)(RolloutWorker)
        with activity(f"starting {self.settings.workers} rollout worker(s) on Ray"):
            # held for the run: a restarted worker is built again from the same arguments
            self.shipped_model = shipped = ray.put(copy.deepcopy(model).cpu())
            self.workers = [worker_cls.remote(shipped, tokenizer, player, agent, engine_name, engine_config,
                                              self.settings.threads or threads, self.staleness_bound + 1)
                            for _ in range(self.settings.workers)]
            ray.get([worker.versions_held.remote() for worker in self.workers])  # every worker is up
        self.version: int | None = None  # the newest weights pushed
        self.offset = 0  # trainer version at which batch k is trained, minus k
        self.next_index = 0  # the next batch to submit
        self.pending: dict[int, tuple[Any, int]] = {}  # batch index -> (ObjectRef of its result, its version)
        self.finished: dict[int, dict] = {}  # batch index -> result (restored from a checkpoint)
        self.version_refs: dict[int, Any] = {}  # the last s + 1 weight versions, in Ray's object store
        self.dropped_stale = 0  # episodes dropped for staleness, over the run
        self.worker_restarts = 0  # plays lost with a dead worker, over the run
        self.replayed_batches = 0  # batches played again after it
        self.last_push = {"bytes": 0.0, "seconds": 0.0}  # the last weight push: its size and the put time

    # -- the schedule ---------------------------------------------------------------------------
    def start(self, version: int, first_index: int, state: dict[str, torch.Tensor]) -> None:
        """Begin at trainer version ``version`` with batch ``first_index`` next; push the weights."""
        self.offset = version - first_index
        self.next_index = max(self.next_index, first_index)
        self.push(version, state)

    def push(self, version: int, state: dict[str, torch.Tensor]) -> None:
        """Send weight version ``version`` to every worker, then submit the batches it may play."""
        import ray

        self.version = version
        start = time.perf_counter()
        tensors = {k: v.detach().cpu() for k, v in state.items()}
        shared = ray.put(tensors)
        self.last_push = {"bytes": float(sum(v.numel() * v.element_size() for v in tensors.values())),
                          "seconds": time.perf_counter() - start}
        self.version_refs[version] = shared
        for old in sorted(self.version_refs)[: -(self.staleness_bound + 1)]:
            del self.version_refs[old]
        for worker in self.workers:
            worker.set_weights.remote(version, shared)
        while self.next_index + self.offset - self.staleness_bound <= version:
            self._submit(self.next_index)
            self.next_index += 1

    def _submit(self, index: int, version: int | None = None) -> None:
        if index in self.finished:
            return
        version = self.version if version is None else version
        worker = self.workers[index % len(self.workers)]
        ref = worker.play.remote(index, self.tasks_for(index), version)
        self.pending[index] = (ref, version)

    def _result(self, index: int) -> dict:
        """Batch ``index``'s result; a worker that died meanwhile is given the weights again and the batch
        is replayed with the version it was started with."""
        import ray
        from ray.exceptions import RayActorError

        while True:
            ref, version = self.pending.pop(index)
            try:
                return ray.get(ref)
            except (RayActorError, StaleVersionError):  # died, or restarted and missed the weights sent before
                worker = self.workers[index % len(self.workers)]
                if self._await_restart(worker):
                    self.worker_restarts += 1
                    for kept, weights in sorted(self.version_refs.items()):  # oldest first
                        worker.set_weights.remote(kept, weights)
                self._submit(index, version)
                self.replayed_batches += 1

    def _await_restart(self, worker) -> bool:
        """Wait until Ray has started ``worker`` again (``RESTART_SECONDS`` at most); ``True`` if it had
        lost its weights (a new process), ``False`` if it still holds them."""
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError

        deadline = time.monotonic() + RESTART_SECONDS
        while time.monotonic() < deadline:
            try:
                return not ray.get(worker.versions_held.remote(), timeout=RESTART_SECONDS)
            except (RayActorError, GetTimeoutError):
                time.sleep(0.5)
        raise RuntimeError(f"a rollout worker died and Ray did not start it again within {RESTART_SECONDS} s; "
                           f"check the Ray cluster (ray status)")

    def take(self, index: int, tasks: list[Task], trainer_version: int) -> dict:
        """Batch ``index``'s result for training at ``trainer_version``: ``{played, samples, version,
        staleness, rng_state, dropped, wait_seconds, seconds}``; a result past the bound is dropped
        (its ``samples`` counted) and replayed."""

        if [t.task_id for t in tasks] != [t.task_id for t in self.tasks_for(index)]:
            raise RuntimeError(f"batch {index}: the trainer's tasks differ from the ones played for it")
        start, dropped = time.perf_counter(), 0
        while True:
            if index not in self.finished and index not in self.pending:
                self._submit(index)
            result = self.finished.pop(index, None) or self._result(index)
            staleness = trainer_version - result["version"]
            if staleness <= self.staleness_bound:
                break
            dropped += result["samples"]
        self.dropped_stale += dropped
        return {**result, "staleness": staleness, "dropped": dropped, "wait_seconds": time.perf_counter() - start}

    # -- checkpoints ------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The batches in flight, finished (waits for them), as plain data; the schedule's counters."""

        for index in sorted(self.pending):
            self.finished[index] = self._result(index)
        return {"next_index": self.next_index, "dropped_stale": self.dropped_stale,
                "worker_restarts": self.worker_restarts, "replayed_batches": self.replayed_batches,
                "finished": {str(k): plain_result(r) for k, r in sorted(self.finished.items())}}

    def load_state_dict(self, state: dict) -> None:
        self.next_index = int(state["next_index"])
        self.dropped_stale = int(state["dropped_stale"])
        self.worker_restarts = int(state.get("worker_restarts", 0))
        self.replayed_batches = int(state.get("replayed_batches", 0))
        self.finished = {int(k): result_from_plain(r) for k, r in state["finished"].items()}

    def close(self) -> None:
        import ray

        for worker in self.workers:
            ray.kill(worker)
        self.workers, self.pending = [], {}


def plain_result(result: dict) -> dict:
    """A worker's result as plain containers (a checkpoint loads them with ``weights_only``)."""
    return {**result, "played": to_plain(result["played"])}


def result_from_plain(result: dict) -> dict:
    return {**result, "played": from_plain(result["played"])}
