"""A math problem with its gold answer, and the stable per-task seeds problems derive from."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    text: str  # the question, LaTeX math inside $...$
    answer: str  # the gold final answer, e.g. "42" or "\frac{3}{4}"
    problem_type: str  # "arithmetic", "fractions", ... or a data file's type


def task_seed(split: str, index: int, base_seed: int) -> int:
    """SHA-256 of ``"math/<split>/<index>/<seed>"`` (never the salted ``hash()``): the same on every machine."""
    digest = hashlib.sha256(f"math/{split}/{index}/{base_seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
