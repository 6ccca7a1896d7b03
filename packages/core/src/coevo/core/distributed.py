"""Collectives for code that runs in every training process (Lightning DDP / FSDP ranks).

Lightning's strategy creates the ``torch.distributed`` process group; these helpers only use it.
In a single process (no process group) every function is the identity or a no-op, so algorithms
call them unconditionally. They are *collective*: every rank must call each of them, in the same
order, or the run hangs.

- ``shard``: this rank's contiguous share of a step's tasks (the global batch is split, not copied).
- ``gather_objects`` / ``broadcast_object``: picklable values across ranks (rank order).
- ``max_over_ranks``: the largest of an integer over the ranks (lockstep forward counts under FSDP).
- ``reduce_metrics``: a step's metrics over all ranks (sum for counts, mean otherwise).
- ``gather_episode_stats``: every rank's episodes reduced to what ``summarize`` reads, so the
  logged success/reward/per-type rates are those of all the step's episodes, not rank 0's.
- ``average_gradients`` / ``broadcast_parameters``: keep replicas identical.
- ``main_first``: run on rank 0 first (e.g. build a cache), share its error if it fails, then the others;
  ``on_main``: run on rank 0 only and share its result (e.g. claim the run folder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import torch
import torch.distributed as dist

from coevo.core.env.protocol import Task

T = TypeVar("T")

# per-step counts (the last '/'-separated part of a metric name) add up over ranks; every other
# metric is averaged. Running totals ("…_total") must already be global (kept from reduced counts).
ADDITIVE = frozenset({"samples", "agent_tokens", "episodes", "env_steps", "tokens", "train_tokens", "rollouts",
                      "student_episodes", "replay_episodes", "padding_micro_batches"})


BUCKET_ELEMENTS = 1 << 26  # gradient values per all-reduce (256 MB in fp32): bounds the extra memory


class RankMismatchError(RuntimeError):
    """Ranks that must agree (same decision, same calibration state) do not."""


def active() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def world_size() -> int:
    return dist.get_world_size() if active() else 1


def rank() -> int:
    return dist.get_rank() if active() else 0


def is_main() -> bool:
    return rank() == 0


def shard(items: list[T], what: str = "algo.tasks_per_step") -> list[T]:
    """This rank's contiguous share of ``items`` (all of them in one process)."""
    n, world = len(items), world_size()
    if world == 1:
        return list(items)
    if n % world:
        raise ValueError(
            f"{what}={n} is not divisible by the {world} training processes (trainer.devices x trainer.num_nodes); "
            f"every rank rolls out an equal share: set {what} to a multiple of {world}"
        )
    share = n // world
    return list(items[rank() * share : (rank() + 1) * share])


def gather_objects(value: Any) -> list[Any]:
    """``[value of rank 0, value of rank 1, …]`` on every rank."""
    if not active():
        return [value]
    out: list[Any] = [None] * world_size()
    dist.all_gather_object(out, value)
    return out


def broadcast_object(value: Any, src: int = 0) -> Any:
    """Rank ``src``'s ``value`` on every rank (the decision is made once, then shared)."""
    if not active():
        return value
    box = [value]
    dist.broadcast_object_list(box, src=src)
    return box[0]


def max_over_ranks(value: int) -> int:
    """The largest ``value`` of any rank, on every rank (e.g. how many forwards every rank must run)."""
    return max(gather_objects(int(value)))  # an object gather: the same call on gloo and NCCL


def barrier() -> None:
    if active():
        dist.barrier()


def main_first(fn: Callable[[], T]) -> T:
    """``fn()`` on rank 0, then on the other ranks (e.g. rank 0 fills a cache they then read).

    If rank 0 fails, the other ranks raise the same error instead of waiting forever.
    """
    if not active():
        return fn()
    if is_main():
        try:
            result = fn()
        except BaseException as exc:
            broadcast_object(("error", exc))
            raise
        broadcast_object(("ok", None))
        return result
    status, error = broadcast_object(None)
    if status == "error":
        raise error
    return fn()


def on_main(fn: Callable[[], T]) -> T:
    """``fn()`` on rank 0 only; its result (or its error) on every rank."""
    if not active():
        return fn()
    outcome = None
    if is_main():
        try:
            outcome = ("ok", fn())
        except Exception as exc:
            outcome = ("error", exc)
    status, value = broadcast_object(outcome)
    if status == "error":
        raise value
    return value


def agree(value: Any, what: str) -> Any:
    """Rank 0's ``value``; fails loudly if another rank holds a different one."""
    values = gather_objects(value)
    for other_rank, other in enumerate(values[1:], start=1):
        if other != values[0]:
            raise RankMismatchError(f"{what} differs between rank 0 and rank {other_rank}: {values[0]!r} vs {other!r}")
    return values[0]


def reduce_metrics(metrics: dict[str, float]) -> dict[str, float]:
    """Each key summed (``ADDITIVE`` counts) or averaged over the ranks that logged it."""
    if not active():
        return dict(metrics)
    out: dict[str, float] = {}
    per_rank = gather_objects({k: float(v) for k, v in metrics.items()})
    for key in dict.fromkeys(k for values in per_rank for k in values):
        values = [m[key] for m in per_rank if key in m]
        total = sum(values)
        out[key] = total if key.rsplit("/", 1)[-1] in ADDITIVE else total / len(values)
    return out


@dataclass
class EpisodeStats:
    """What ``coevo.core.agent.loop.summarize`` reads from an episode (cheap to send)."""

    task: Task
    won: bool
    reward: float
    num_turns: int
    num_invalid: int
    context_overflow: bool
    env_errors: int = 0


def gather_episode_stats(episodes: Iterable) -> list:
    """All ranks' episodes (rank order) as ``EpisodeStats``; the episodes themselves in one process."""
    if not active():
        return list(episodes)
    mine = [EpisodeStats(ep.task, bool(ep.won), float(ep.reward), ep.num_turns, int(ep.num_invalid),
                         bool(ep.context_overflow), int(getattr(ep, "env_errors", 0))) for ep in episodes]
    return [ep for share in gather_objects(mine) for ep in share]


def average_gradients(parameters: Iterable[torch.nn.Parameter]) -> None:
    """Replace every gradient by its mean over the ranks (a missing gradient counts as zero).

    Flat all-reduces over buckets of at most ``BUCKET_ELEMENTS`` gradient values of one dtype and
    device. Used instead of DDP's backward hooks because ranks take different numbers of
    micro-batch backward passes (their rollouts differ), which DDP's reducer cannot match up.
    """
    if not active():
        return
    params = [p for p in parameters if p.requires_grad]
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    buckets: list[list[torch.nn.Parameter]] = []
    open_buckets: dict[tuple, tuple[list[torch.nn.Parameter], list[int]]] = {}  # key -> (params, [size])
    for p in params:
        key = (p.grad.dtype, p.grad.device)
        bucket, size = open_buckets.get(key, (None, [0]))
        if bucket is None or size[0] + p.grad.numel() > BUCKET_ELEMENTS:
            bucket, size = [], [0]
            open_buckets[key] = (bucket, size)
            buckets.append(bucket)
        bucket.append(p)
        size[0] += p.grad.numel()
    world = world_size()
    for bucket in buckets:
        flat = torch.cat([p.grad.reshape(-1) for p in bucket])
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        flat /= world
        offset = 0
        for p in bucket:
            n = p.grad.numel()
            p.grad.copy_(flat[offset : offset + n].view_as(p.grad))
            offset += n


@torch.no_grad()
def broadcast_parameters(module: torch.nn.Module, src: int = 0) -> None:
    """Every rank's parameters become rank ``src``'s (e.g. after per-rank work outside DDP)."""
    if not active():
        return
    for p in module.parameters():
        dist.broadcast(p.data, src=src)
