"""Task splits of procedurally generated environments: stable seeds, split sizes, the OOD knob.

The generated environments (``longctx``, ``craft``, ``algebra``, ``maze``) address a task by
``(split, index)``. Its seed is SHA-256 of ``"<env>/<split>/<index>/<base seed>"`` (never
Python's salted ``hash()``), so ``reset(env.task(split, i))`` builds the identical initial state
in every process and on every machine, and the splits get unrelated seeds. ``train`` is
unbounded; the two eval splits hold ``eval_in_distribution_size`` and
``eval_out_of_distribution_size`` tasks. Each environment has one difficulty knob (``size``,
``depth``, ``num_chunks``): ``train`` and ``eval_in_distribution`` use it,
``eval_out_of_distribution`` uses a separate, larger value (``ood_<knob>``; 0 picks a default
beyond the training value, see ``ood_knob``).
"""

from __future__ import annotations

import hashlib

from coevo.core.env.protocol import Environment, Task

OOD_SPLIT = "eval_out_of_distribution"


def task_seed(env: str, split: str, index: int, base_seed: int) -> int:
    """A non-negative 63-bit seed, the same everywhere for the same arguments."""
    digest = hashlib.sha256(f"{env}/{split}/{index}/{base_seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def ood_knob(name: str, value: int, ood_value: int, default: int) -> int:
    """The out-of-distribution value of knob ``name``: ``ood_value``, or ``default`` when it is 0.

    It must lie beyond the training value (that is what out of distribution means here).
    """
    chosen = ood_value if ood_value else default
    if chosen <= value:
        raise ValueError(f"env.ood_{name} must be larger than env.{name} ({value}), got {chosen}")
    return chosen


class ProceduralEnv(Environment):
    """``task``/``num_tasks`` for an environment whose config has ``seed`` and the eval sizes."""

    config: object  # a dataclass with seed, eval_in_distribution_size, eval_out_of_distribution_size

    def num_tasks(self, split: str) -> int | None:
        if split == "train":
            return None
        if split == "eval_in_distribution":
            return self.config.eval_in_distribution_size
        if split == OOD_SPLIT:
            return self.config.eval_out_of_distribution_size
        raise ValueError(f"unknown split {split!r}; {self.name} has {list(self.splits)}")

    def task(self, split: str, index: int) -> Task:
        size = self.num_tasks(split)
        if index < 0 or (size is not None and index >= size):
            raise IndexError(f"task index {index} out of range for split {split!r} of size {size}")
        return Task(
            env=self.name,
            split=split,
            index=index,
            task_type=self.task_type_at(index),
            seed=task_seed(self.name, split, index, self.config.seed),
        )

    def task_type_at(self, index: int) -> str:
        """Round-robin over ``task_types``, so consecutive tasks cover every type."""
        return self.task_types[index % len(self.task_types)]
