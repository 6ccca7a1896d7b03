"""State each rank writes to its own file of a sharded checkpoint folder (``rank<r>.pt``).

A sharded checkpoint (``trainer.fsdp.state_dict_type=sharded``) holds the model and the optimizer
as torch.distributed.checkpoint shards written by every rank, and everything else in rank 0's
``meta.pt``. A callback whose state is itself each rank's shards (``CommitRollback``'s root under
FSDP: each rank's shards of the weights and of the AdamW state) would otherwise gather every rank's
shards for ``meta.pt``: the whole model and optimizer state in one process, which is what sharded
checkpoints avoid. Instead, in ``on_save_checkpoint`` it puts its own part under
``checkpoint[PER_RANK][<its state key>]``; ``CoevoFSDPStrategy`` writes that dict as ``rank<r>.pt``
into the checkpoint's (temporary, then renamed) folder, and on load hands each rank
``{"ranks": <files found>, "own": <its file's dict>}`` under the same key.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

PER_RANK = "coevo_per_rank"
RANK_FILE = re.compile(r"rank(\d+)\.pt$")


def rank_file(folder: Path, rank: int) -> Path:
    return Path(folder) / f"rank{rank}.pt"


def write_own(folder: Path, rank: int, state: dict) -> None:
    torch.save(state, rank_file(folder, rank))


def read_own(folder: Path, rank: int) -> dict | None:
    """``{"ranks": n, "own": this rank's dict or None}``, or None where the folder has no rank files."""
    ranks = sum(1 for p in Path(folder).iterdir() if RANK_FILE.match(p.name))
    if not ranks:
        return None
    own = rank_file(folder, rank)
    return {"ranks": ranks, "own": torch.load(own, weights_only=True) if own.is_file() else None}
