"""Checkpoint I/O that never leaves a truncated checkpoint: write to a temporary name, then rename.

- A file (one process, DDP, FSDP with ``trainer.fsdp.state_dict_type=full``): ``AtomicCheckpointIO``
  writes ``<name>.tmp-<pid>`` and renames it over ``<name>``.
- A folder (FSDP's sharded checkpoint: torch.distributed.checkpoint shard files of every rank plus
  Lightning's ``meta.pt``): ``save_folder_atomically`` has every rank write into one temporary folder
  ``<name>.tmp-<token>`` (the token, rank 0's pid, is broadcast so all ranks agree), then after a
  barrier rank 0 moves the previous checkpoint aside to ``<name>.old-<token>``, renames the new
  folder in and deletes the old one. A folder cannot be renamed over a non-empty folder in one
  step; between the two renames ``<name>`` is missing and ``<name>.old-<token>`` holds the last
  complete checkpoint, which the next run puts back (``coevo.core.cli.run_dir.restore_moved_aside``).

A failed write removes its temporary; a write cut short by a kill leaves it behind, and the next
run on the folder removes it when it claims the folder (``coevo.core.cli.run_dir.claim_run_dir``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO


class AtomicCheckpointIO(TorchCheckpointIO):
    def save_checkpoint(self, checkpoint, path, storage_options=None) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
        try:
            with open(tmp, "wb") as handle:
                torch.save(checkpoint, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_folder_atomically(path: Path, token: int, write: Callable[[Path], None], is_main: bool,
                           barrier: Callable[[], None]) -> None:
    """Every rank calls it with the same ``path`` and ``token``; ``write(tmp)`` writes this rank's part
    of the checkpoint folder ``tmp``. ``path`` is replaced only once every rank's part is on disk."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.tmp-{token}")
    if is_main:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove(tmp)
    barrier()
    try:
        write(tmp)
    except BaseException:
        if is_main:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    barrier()  # every rank's shard files are written
    if is_main:
        replace_folder(tmp, path, token)
    barrier()  # nobody reads or writes the new checkpoint before it is in place


def replace_folder(tmp: Path, path: Path, token: int) -> None:
    """Rename the complete ``tmp`` to ``path`` (a folder or file there is moved aside first, then deleted)."""
    aside = path.with_name(f"{path.name}.old-{token}")
    if path.exists() or path.is_symlink():  # (else a folder moved aside stays the last complete one until now)
        _remove(aside)
        os.replace(path, aside)
    os.replace(tmp, path)
    _fsync_folder(path.parent)
    _remove(aside)
