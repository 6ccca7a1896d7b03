"""Checks run before any work and before anything is written: can the run folder be created and
written, and is a configured model folder a model. Each failure names the key and the fix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from coevo.core.cli.errors import InputError


def check_writable_folder(path: str | Path, key: str = "run_dir") -> None:
    """Refuse ``path`` unless it is (or can be created as) a folder this process can write.

    Nothing is left on disk: the test write is a temporary folder in the nearest existing
    ancestor, removed at once.
    """
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{key}: '{folder}' exists and is not a folder; pass {key}=<a folder path>")
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"{key}: '{folder}' cannot be created ('{existing}' is not a folder); "
                         f"pass {key}=<a writable folder path>")
    try:
        probe = tempfile.mkdtemp(prefix=".coevo-write-check-", dir=existing)
        os.rmdir(probe)
    except OSError as exc:
        raise InputError(f"{key}: '{folder}' cannot be written ({exc.strerror or exc} in '{existing}'); "
                         f"pass {key}=<a writable folder path>") from None


def eval_task_count(make_env, split: str, num_tasks: int) -> int:
    """The number of tasks an evaluation of ``split`` plays (``num_tasks``, or all of a smaller
    finite split); refuses a split the env does not have, or one without tasks."""
    env = make_env()
    try:
        if split not in env.splits:
            raise InputError(f"eval.split: unknown split '{split}' of env '{env.name}'; choose one of {list(env.splits)}")
        total = env.num_tasks(split)
    finally:
        env.close()
    if total == 0:
        raise InputError(f"eval.split: split '{split}' of env '{env.name}' has no tasks (a file-backed env needs "
                         f"the file of that split, e.g. env.ood_data_file); choose another eval.split")
    return num_tasks if total is None else min(num_tasks, total)
