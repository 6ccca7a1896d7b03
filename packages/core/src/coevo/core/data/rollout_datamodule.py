"""RolloutDataModule: the stream of task batches an on-policy algorithm trains on.

Batch ``k`` is a deterministic function of ``(split, seed, k)``: for an unbounded (procedural)
split it is tasks ``k*B … k*B+B-1``; for a finite split, a seeded shuffle of all tasks, cycled.
The module's state is the number of batches consumed, saved in every checkpoint and derived from
the trainer's step, so a resumed run continues at exactly the next batch even though Lightning
pre-fetches one batch ahead.
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


class _TaskBatches(IterableDataset):
    def __init__(self, env: Environment, split: str, batch_size: int, seed: int, start: int):
        self.env, self.split, self.batch_size, self.seed, self.start = env, split, batch_size, seed, start

    def __iter__(self) -> Iterator[list[Task]]:
        index = self.start
        while True:
            yield task_batch(self.env, self.split, self.batch_size, index, self.seed)
            index += 1


class RolloutDataModule(L.LightningDataModule):
    def __init__(self, env: Environment, batch_size: int, split: str = "train", seed: int = 0, steps_per_batch: int = 1):
        super().__init__()
        self.env, self.batch_size, self.split, self.seed = env, batch_size, split, seed
        self.steps_per_batch = steps_per_batch  # optimizer steps taken per batch
        self.start = 0

    def train_dataloader(self) -> DataLoader:
        dataset = _TaskBatches(self.env, self.split, self.batch_size, self.seed, self.start)
        return DataLoader(dataset, batch_size=None, collate_fn=_identity, num_workers=0)

    def state_dict(self) -> dict:
        consumed = self.trainer.global_step // self.steps_per_batch if self.trainer is not None else self.start
        return {"batches_consumed": consumed}

    def load_state_dict(self, state: dict) -> None:
        self.start = int(state["batches_consumed"])


def _identity(batch):
    return batch
