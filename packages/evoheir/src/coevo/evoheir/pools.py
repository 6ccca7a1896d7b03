"""Item pools carved out of an environment's train split, disjoint by construction and by check.

Training consumes train-split indices ``[0, batches·B)`` (``RolloutDataModule`` on an unbounded
split), the warm start ``[first_index, first_index + episodes)``; screening, confirmation and
audit pools each own a region far beyond (``start`` indices, defaults 2M/3M/4M), and every
draw takes fresh, never-used indices from its region. ``check_regions`` refuses overlapping
regions at startup; ``PoolLedger`` re-checks every drawn item against everything used so far and
raises ``PoolOverlapError`` — it never silently reuses an item. ``state_dict`` /
``load_state_dict`` carry the cursors and used items through a checkpoint (``resume=``).
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core.config import ConfigError
from coevo.core.env.protocol import Environment, Task


class PoolOverlapError(ConfigError):
    """Two pools (or a pool and the training items) share an item (a config error: the CLI prints it)."""


@dataclass(frozen=True)
class IndexRegion:
    name: str  # "training", "screening", "confirmation", ...
    split: str
    start: int
    stop: int  # exclusive

    def overlaps(self, other: IndexRegion) -> bool:
        return self.split == other.split and self.start < other.stop and other.start < self.stop

    def __len__(self) -> int:
        return self.stop - self.start


def check_regions(regions: list[IndexRegion]) -> None:
    """Raise ``PoolOverlapError`` naming the first two regions that share indices."""
    for i, a in enumerate(regions):
        if a.stop <= a.start:
            raise PoolOverlapError(f"pool '{a.name}' is empty ([{a.start}, {a.stop}))")
        for b in regions[i + 1 :]:
            if a.overlaps(b):
                raise PoolOverlapError(
                    f"pools overlap: '{a.name}' [{a.start}, {a.stop}) and '{b.name}' [{b.start}, {b.stop}) of split "
                    f"'{a.split}'; move one of them (e.g. its *_start index) so they are disjoint"
                )


def require_unbounded_train(env: Environment, where: str) -> None:
    """Pools are carved from the train split beyond the training stream; a finite train split is
    cycled entirely by the training stream, so no disjoint pool exists."""
    total = env.num_tasks("train")
    if total is not None:
        raise PoolOverlapError(
            f"{where}: env '{env.name}' has a finite train split ({total} tasks) that training cycles through "
            f"entirely, so a confirmation/screening pool cannot be disjoint from training items; use a "
            f"procedural train split (e.g. env=math without data_file)"
        )


class PoolLedger:
    """Hands out fresh items from named regions and checks each draw against all used items."""

    def __init__(self, env: Environment, regions: list[IndexRegion]):
        check_regions(regions)
        self.env = env
        self.regions = {r.name: r for r in regions}
        self.cursor = {r.name: r.start for r in regions}
        self.used: dict[tuple[str, int], str] = {}  # (split, index) -> pool that used it

    def state_dict(self) -> dict:
        """Cursors and used items (plain values, for a checkpoint)."""
        return {"cursor": dict(self.cursor), "used": [[split, index, owner] for (split, index), owner in self.used.items()]}

    def load_state_dict(self, state: dict) -> None:
        """Continue from a checkpoint: every item used before stays used, cursors move on from
        where they were (regions may have grown, e.g. a resume with a larger ``trainer.max_steps``)."""
        for name, cursor in state["cursor"].items():
            if name in self.cursor:
                self.cursor[name] = max(self.cursor[name], int(cursor))
        self.used = {(split, int(index)): owner for split, index, owner in state["used"]}

    def mark_used(self, name: str, tasks: list[Task]) -> None:
        """Record items used outside the ledger's draws (e.g. the training batches)."""
        region = self.regions[name]
        for task in tasks:
            if not region.start <= task.index < region.stop or task.split != region.split:
                raise PoolOverlapError(f"item {task.task_id} is outside the '{name}' region [{region.start}, {region.stop})")
            self._claim(name, task)

    def draw(self, name: str, n: int) -> list[Task]:
        """``n`` never-used items of pool ``name``."""
        region = self.regions[name]
        start = self.cursor[name]
        if start + n > region.stop:
            raise PoolOverlapError(
                f"pool '{name}' is exhausted: {n} more items needed beyond index {start}, region ends at {region.stop}"
            )
        tasks = [self.env.task(region.split, i) for i in range(start, start + n)]
        for task in tasks:
            self._claim(name, task)
        self.cursor[name] = start + n
        return tasks

    def _claim(self, name: str, task: Task) -> None:
        key = (task.split, task.index)
        owner = self.used.get(key)
        if owner is not None and not (owner == name == "training"):
            raise PoolOverlapError(f"item {task.task_id} drawn for '{name}' was already used by '{owner}'")
        for other in self.regions.values():
            if other.name != name and other.split == task.split and other.start <= task.index < other.stop:
                raise PoolOverlapError(f"item {task.task_id} drawn for '{name}' lies in the '{other.name}' region")
        self.used[key] = name
