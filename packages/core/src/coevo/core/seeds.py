"""The seeds a run's step batches are played with: one per (run seed, step), one stream per rank.

Shared by the synchronous batch player, the rollout workers and the algorithms that draw their own
batches, so that a step plays the same tasks and samples wherever it is played.
"""

from __future__ import annotations

from coevo.core import distributed as dist


def step_seed(seed: int, step: int) -> int:
    """A distinct, reproducible seed per (run seed, step)."""
    return (seed * 1_000_003 + step * 7_919 + 17) % (2**31 - 1)


def rank_seed(seed: int) -> int:
    """``seed`` on rank 0 (a one-process run is unchanged); a distinct stream on every other rank."""
    r = dist.rank()
    return seed if r == 0 else (seed + r * 104_729 + 1) % (2**31 - 1)
