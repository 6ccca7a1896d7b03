"""Task addressing: stable per-task seeds and the round-robin choice of task types.

Seeds come from SHA-256 of ``"household/<split>/<index>/<base seed>"`` (never Python's salted
``hash()``), so they are the same in every process and on every machine, and different splits
get unrelated seeds.
"""

from __future__ import annotations

import hashlib


def task_seed(split: str, index: int, base_seed: int) -> int:
    digest = hashlib.sha256(f"household/{split}/{index}/{base_seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # a non-negative 63-bit int


def task_type_at(index: int, task_types: list[str]) -> str:
    """Round-robin, so any batch of ``len(task_types)`` consecutive tasks holds every type."""
    return task_types[index % len(task_types)]
