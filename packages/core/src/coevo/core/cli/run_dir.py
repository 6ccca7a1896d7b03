"""Claim the output folder of a run: refuse to overwrite a run unless asked, or resume one."""

from __future__ import annotations

import shutil
from pathlib import Path

RUN_MARKERS = ("config.yaml", "checkpoints", "metrics.jsonl")


class RunDirError(FileExistsError):
    pass


def holds_run(folder: Path) -> bool:
    return any((folder / marker).exists() for marker in RUN_MARKERS)


def prepare_run_dir(run_dir: str, resume: str | None, overwrite: bool) -> tuple[Path, Path | None]:
    """``(folder, checkpoint to resume from or None)``."""
    if resume:
        folder = Path(resume)
        last = folder / "checkpoints" / "last.ckpt"
        if not last.is_file():
            raise RunDirError(
                f"resume: '{folder}' has no checkpoints/last.ckpt; pass resume=<a run folder written by coevo-train>"
            )
        return folder, last
    folder = Path(run_dir)
    if holds_run(folder):
        if not overwrite:
            raise RunDirError(
                f"run_dir: '{folder}' already holds a run; pass resume={folder} to continue it, "
                f"overwrite=true to replace it, or another run_dir=..."
            )
        for marker in (*RUN_MARKERS, "policy", "tb", "eval_before.json", "eval_after.json", "training.png"):
            target = folder / marker
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    return folder, None
