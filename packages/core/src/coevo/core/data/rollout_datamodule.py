"""RolloutDataModule: the stream of task batches an on-policy algorithm trains on.

Batch ``k`` is a deterministic function of ``(split, seed, k)``: for an unbounded (procedural)
split it is tasks ``k*B … k*B+B-1``; for a finite split, a seeded shuffle of all tasks, cycled.

The data loader yields ``TaskBatchRef`` placeholders; the algorithm resolves one with
``ref.take()`` inside its training step, which returns the tasks at the module's cursor
(``position``, the number of batches consumed) and advances it. Resolving at use time, not at
fetch time, matters because Lightning fetches one batch ahead: the cursor is exact state that a
checkpoint saves (exact resume) and that a snapshot restores (bit-exact rollback, see
``coevo.core.state``).

With several processes every rank holds the same cursor and resolves the same (global) batch;
the algorithm then keeps its rank's share (``RolloutModule.take_tasks`` → ``coevo.core.distributed.shard``).
"""

from __future__ import annotations

from collections.abc import Iterator

import lightning as L
import torch
from torch.utils.data import DataLoader, IterableDataset

from coevo.core.env.protocol import Environment, Task


def task_batch(env: Environment, split: str, batch_size: int, index: int, seed: int) -> list[Task]:
    """The ``index``-th batch of tasks of ``split``."""
    total = env.num_tasks(split)
    if total is None:
        return [env.task(split, index * batch_size + i) for i in range(batch_size)]
    positions = []
    for i in range(batch_size):
        flat = index * batch_size + i
        epoch, offset = divmod(flat, total)
        order = torch.randperm(total, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
        positions.append(order[offset])
    return [env.task(split, p) for p in positions]


class TaskBatchRef:
    """What the data loader yields: a claim on the next batch, resolved by ``take()``."""

    def __init__(self, source: RolloutDataModule):
        self._source = source

    def take(self) -> tuple[int, list[Task]]:
        """``(index, tasks)`` of the batch at the cursor; advances the cursor."""
        return self._source.take()


class _TaskBatchRefs(IterableDataset):
    def __init__(self, source: RolloutDataModule):
        self.source = source

    def __iter__(self) -> Iterator[TaskBatchRef]:
        while True:
            yield TaskBatchRef(self.source)


class RolloutDataModule(L.LightningDataModule):
    def __init__(self, env: Environment, batch_size: int, split: str = "train", seed: int = 0):
        super().__init__()
        self.env, self.batch_size, self.split, self.seed = env, batch_size, split, seed
        self.position = 0  # batches consumed

    def take(self) -> tuple[int, list[Task]]:
        index = self.position
        self.position += 1
        return index, task_batch(self.env, self.split, self.batch_size, index, self.seed)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(_TaskBatchRefs(self), batch_size=None, collate_fn=_identity, num_workers=0)

    def state_dict(self) -> dict:
        return {"batches_consumed": self.position}

    def load_state_dict(self, state: dict) -> None:
        self.position = int(state["batches_consumed"])


def _identity(batch):
    return batch
