"""DAPO's dynamic sampling (Yu et al. 2025): train only on groups that carry a learning signal.

A group whose returns are all equal (every episode won, or every one failed alike) has advantage 0
for every member under group normalisation: it costs an update and teaches nothing. With
``algo.dynamic_sampling.enabled`` the step's groups are played as usual (round 1: the data stream's
tasks, the step's seed: exactly what a run without the option plays), the tied groups are dropped
(``informative``: the returns' spread exceeds ``advantages.TIE_TOLERANCE``), and further rounds
play fresh tasks until ``tasks_per_step`` informative groups are collected or ``max_rounds`` rounds
were played; the step then trains on what was collected (possibly fewer groups, logged).

Refill tasks are a deterministic function of ``(run seed, batch index, round)`` (``refill_tasks``),
so a resumed or rolled-back run replays them: on a procedurally unbounded split they are indices
from ``REFILL_INDEX_BASE`` on, one block of ``tasks_per_step`` per (step, round), disjoint from the
data stream's ``[0, steps x tasks_per_step)`` and from every other step's refills; on a finite split
they follow a second seeded shuffle of the split (``seed + REFILL_SALT``), so a refill task may also
appear in the stream (a finite split has no unused tasks). Their rollouts are seeded with
``refill_seed`` (a hash of the same triple; distinct from the stream's ``step_seed`` values).

Several ranks: round ``r`` needs ``need`` more groups in all; every rank plays its equal share of
``ceil(need / world) x world`` refill tasks, the ranks agree on how many informative groups each
found (one gather a round, so every rank runs the same number of rounds), and the first ``need`` of
them in rank order are kept (the surplus of the last round is dropped).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from coevo.core import distributed as dist
from coevo.core.agent.types import Episode
from coevo.core.algos.advantages import is_tie
from coevo.core.data.rollout_datamodule import task_batch
from coevo.core.env.protocol import Environment, Task
from coevo.core.fields import bounded

REFILL_INDEX_BASE = 2**40  # first task index of refills on an unbounded split (the stream never gets there)
REFILL_SALT = 0x5A17  # offsets the shuffle seed of refills on a finite split


@dataclass
class DynamicSamplingSettings:
    enabled: bool = False  # drop groups whose returns are all equal and refill with fresh tasks
    max_rounds: int = bounded(3, ge=1)  # rounds of rollouts per step at most (round 1: the step's own tasks)


@dataclass
class DynamicSample:
    episodes: list[Episode]  # this rank's kept episodes, group by group, group ids renumbered 0..K-1
    first_round: list[Episode]  # this rank's episodes of round 1 (the stream's tasks), all of them
    rounds: int  # rounds played (the same on every rank)
    informative_groups: int  # kept groups over all ranks (at most the target)


def refill_seed(seed: int, batch_index: int, round_: int) -> int:
    """The rollout seed of refill round ``round_`` (>= 2) of batch ``batch_index``: a hash, in [0, 2**31 - 1)."""
    digest = hashlib.sha256(f"dynamic_sampling/{seed}/{batch_index}/{round_}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (2**31 - 1)


def refill_tasks(env: Environment, split: str, block: int, count: int, batch_index: int, round_: int,
                 max_rounds: int, seed: int) -> list[Task]:
    """The first ``count`` (<= ``block``) tasks of refill round ``round_`` (>= 2) of batch ``batch_index``;
    every (batch, round) has its own block of ``block`` tasks (see the module docstring)."""
    if not 2 <= round_ <= max_rounds or count > block:
        raise ValueError(f"refill round {round_} of {max_rounds}, {count} tasks of a block of {block}")
    position = batch_index * (max_rounds - 1) + (round_ - 2)  # blocks 0, 1, … in (batch, round) order
    if env.num_tasks(split) is None:
        first = REFILL_INDEX_BASE + position * block
        return [env.task(split, first + i) for i in range(count)]
    return task_batch(env, split, block, position, seed + REFILL_SALT)[:count]


def informative(episodes: list[Episode], group_size: int) -> list[list[Episode]]:
    """The groups (``group_size`` adjacent episodes each, as ``play_groups`` returns them) whose
    returns are not all equal (within ``TIE_TOLERANCE``, as the advantages count ties)."""
    groups = [episodes[i : i + group_size] for i in range(0, len(episodes), group_size)]
    return [g for g in groups if not is_tie(min(ep.reward for ep in g), max(ep.reward for ep in g))]


def sample_informative_groups(
    tasks: list[Task],  # this rank's share of the step's tasks
    play: Callable[[list[Task], int], list[Episode]],  # (tasks, round) -> their groups, task-major
    refill: Callable[[int, int], list[Task]],  # (round, count) -> the round's global refill tasks
    target: int,  # informative groups wanted over all ranks (tasks_per_step)
    group_size: int,
    max_rounds: int,
) -> DynamicSample:
    """Round 1 on ``tasks``, then refill rounds until ``target`` informative groups (see the module
    docstring). Collective: every rank calls it, one gather a round."""
    first = play(tasks, 1)
    kept = informative(first, group_size)
    total = sum(dist.gather_objects(len(kept)))  # <= target: round 1 has target groups in all
    rounds = 1
    while total < target and rounds < max_rounds:
        rounds += 1
        need = target - total
        world = dist.world_size()
        share = dist.shard(refill(rounds, -(-need // world) * world), "dynamic sampling's refill")
        found = informative(play(share, rounds), group_size)
        counts = dist.gather_objects(len(found))
        before = sum(counts[: dist.rank()])  # informative groups of the lower ranks this round
        kept += found[: max(0, min(len(found), need - before))]
        total += min(need, sum(counts))
    episodes = []
    for group_id, group in enumerate(kept):
        for episode in group:
            episode.group_id = group_id  # rounds restart their ids at 0: keep every group distinct
            episodes.append(episode)
    return DynamicSample(episodes, first, rounds, total)
