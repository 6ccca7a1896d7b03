"""The splits of an environment that reads its tasks from data files (math problems, QA rows).

Such an environment has a train file and, optionally, an in-distribution eval file and an
out-of-distribution file. Without an eval file, the last ``eval_in_distribution_size`` rows of the
train file (at most half of them) are held out as ``eval_in_distribution``. A file's train split is
cycled, as training cycles it: any train index >= 0 is a task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def split_rows(split: str, load: Callable[[str], tuple[T, ...]], train_file: str, eval_file: str, ood_file: str,
               eval_in_distribution_size: int) -> tuple[T, ...]:
    """The rows of ``split``; ``load`` reads a file (cached by the caller's loader)."""
    if split == "eval_out_of_distribution":
        return load(ood_file) if ood_file else ()
    rows = load(train_file)
    if eval_file:
        return rows if split == "train" else load(eval_file)
    held_out = min(eval_in_distribution_size, len(rows) // 2)
    return rows[: len(rows) - held_out] if split == "train" else rows[len(rows) - held_out :]


def task_index(split: str, index: int, size: int | None) -> int:
    """``index`` within a split of ``size`` tasks (``None``: unbounded); a file's train split is
    cycled, any other index out of range raises IndexError."""
    if split == "train" and size and index >= size:
        index %= size
    if index < 0 or (size is not None and index >= size):
        raise IndexError(f"task index {index} out of range for split {split!r} of size {size}")
    return index
