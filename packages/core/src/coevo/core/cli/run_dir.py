"""Claim the output folder of a run: refuse to overwrite a run unless asked, or resume one.

- A fresh run refuses a folder that holds a run; the message says how out: ``resume=`` where the
  run has a checkpoint to continue from, ``overwrite=true`` where it stopped before its first
  checkpoint (then there is nothing to resume).
- ``claim_run_dir`` (rank 0, before anything is written) takes the folder's lock
  (``cli/run_lock.py``: a second run on the same folder is refused) and removes what writes
  killed half-way left behind: ``*.tmp-<pid>`` files and folders of the atomic writers
  (checkpoints, sharded checkpoint folders written by every rank, the policy export,
  ``config.yaml``) and ``*.tmp`` files (the EVOHEIR archive). A checkpoint moved aside
  (``<name>.old-<pid>``) while its replacement folder was renamed in is put back first when the
  kill came between the two renames (``callbacks/atomic_checkpoint_io.py``), else removed.
- The checkpoint to resume from, ``checkpoints/last.ckpt``, is a file (one process, DDP, FSDP with
  ``trainer.fsdp.state_dict_type=full``) or a folder (FSDP's sharded checkpoint, with ``meta.pt``).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from coevo.core.cli.run_lock import RunDirError, lock_run_dir

RUN_MARKERS = ("config.yaml", "checkpoints", "metrics.jsonl")
LAST_CHECKPOINT = Path("checkpoints") / "last.ckpt"
LEFTOVER = re.compile(r".*(\.tmp(-\d+)?|\.old-\d+)$")  # name.tmp-<pid> (atomic writers), name.tmp (archive)
MOVED_ASIDE = re.compile(r"(?P<name>.*)\.old-\d+$")  # a complete checkpoint moved aside by replace_folder
SHARDED_METADATA = "meta.pt"  # Lightning's file of a sharded checkpoint folder (everything but the tensors)


def holds_run(folder: Path) -> bool:
    return any((folder / marker).exists() for marker in RUN_MARKERS)


def is_checkpoint(path: Path) -> bool:
    """A complete checkpoint: a file, or a sharded checkpoint folder (with ``meta.pt``)."""
    return path.is_file() or (path / SHARDED_METADATA).is_file()


def has_checkpoint(folder: Path) -> bool:
    """``folder`` holds ``checkpoints/last.ckpt``, or that checkpoint moved aside by a write a kill cut
    short (the claim puts it back)."""
    last = folder / LAST_CHECKPOINT
    return is_checkpoint(last) or any(is_checkpoint(p) for p in last.parent.glob(f"{last.name}.old-*")
                                      if MOVED_ASIDE.match(p.name))


def prepare_run_dir(run_dir: str, resume: str | None, overwrite: bool,
                    say: Callable[[str], None] | None = None) -> tuple[Path, Path | None]:
    """``(folder, checkpoint to resume from or None)``. With ``resume`` only checks (any process may
    call it); a fresh run's folder is claimed (lock, leftovers removed) before it is emptied."""
    if resume:
        folder = Path(resume)
        last = folder / LAST_CHECKPOINT
        if not has_checkpoint(folder):
            if holds_run(folder):
                raise RunDirError(
                    f"resume: '{folder}' stopped before its first checkpoint (no {LAST_CHECKPOINT}), so there is "
                    f"nothing to resume; start it again with run_dir={folder} overwrite=true"
                )
            raise RunDirError(
                f"resume: '{folder}' has no {LAST_CHECKPOINT}; pass resume=<a run folder written by coevo-train>"
            )
        return folder, last
    folder = Path(run_dir)
    if holds_run(folder) and not overwrite:
        if has_checkpoint(folder):
            raise RunDirError(
                f"run_dir: '{folder}' already holds a run; pass resume={folder} to continue it, "
                f"overwrite=true to replace it, or another run_dir=..."
            )
        raise RunDirError(
            f"run_dir: '{folder}' already holds a run that stopped before its first checkpoint (nothing to "
            f"resume); pass overwrite=true to start it again, or another run_dir=..."
        )
    claim_run_dir(folder, say)
    if overwrite:
        for marker in (*RUN_MARKERS, "policy", "tb", "eval_before.json", "eval_after.json", "training.png"):
            target = folder / marker
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    return folder, None


def claim_run_dir(folder: Path, say: Callable[[str], None] | None = None) -> Path:
    """Lock ``folder`` for this process (``RunDirError`` if another run holds it), then remove the
    leftovers of writes a killed run did not finish. Rank 0 only."""
    say = say or print
    lock_run_dir(folder, say)
    for path in restore_moved_aside(folder):
        say(f"run_dir: put back {path.relative_to(folder)}, moved aside by a checkpoint write that did not finish")
    removed = remove_leftovers(folder)
    if removed:
        say(f"run_dir: removed {len(removed)} unfinished write(s) of an interrupted run: "
            + ", ".join(str(p.relative_to(folder)) for p in removed[:5]) + (" …" if len(removed) > 5 else ""))
    return folder


def restore_moved_aside(folder: Path) -> list[Path]:
    """Rename each ``<name>.old-<pid>`` back to ``<name>`` where ``<name>`` is missing (a kill between
    ``replace_folder``'s two renames); returns the paths restored."""
    if not folder.is_dir():
        return []
    restored = []
    for aside in sorted(folder.rglob("*.old-*")):
        match = MOVED_ASIDE.match(aside.name)
        target = aside.with_name(match["name"]) if match else None
        if target is not None and not target.exists() and is_checkpoint(aside):
            aside.rename(target)
            restored.append(target)
    return restored


def remove_leftovers(folder: Path) -> list[Path]:
    """Delete ``*.tmp-<pid>`` / ``*.tmp`` / ``*.old-<pid>`` files and folders under ``folder``; returns what went."""
    if not folder.is_dir():
        return []
    found = sorted(p for p in folder.rglob("*") if LEFTOVER.match(p.name))
    removed = []
    for path in found:
        if not path.exists() and not path.is_symlink():  # inside a folder removed already
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        removed.append(path)
    return removed
