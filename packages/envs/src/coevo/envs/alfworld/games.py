"""Where the ALFWorld games are and which ones a split holds (reads files only; no alfworld import).

The data folder is ALFWorld's ``$ALFWORLD_DATA``: it holds ``json_2.1.1/`` with one folder per
split (``train``, ``valid_seen``, ``valid_unseen``), one folder per task in each, and one trial
folder per game with ``game.tw-pddl`` and ``traj_data.json``. A folder that is itself
``json_2.1.1`` (it holds the split folders directly) is accepted too.

A split's games are those ALFWorld's ``AlfredTWEnv`` plays: marked ``solvable``, not ``movable``
or ``Sliced`` variants. Task indices are deterministic: the games of each task type sorted by
path, interleaved round-robin over the task types in ``TASK_TYPES`` order (a type that runs out
is skipped), so that the first ``n`` tasks of a split cover every type, as household's do.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path

from coevo.envs.household.catalog import TASK_TYPES

ENV_VAR = "ALFWORLD_DATA"
FORMAT = "json_2.1.1"
SPLIT_FOLDERS: dict[str, str] = {
    "train": "train",
    "eval_in_distribution": "valid_seen",
    "eval_out_of_distribution": "valid_unseen",
}


@dataclass(frozen=True)
class Game:
    """One playable ALFWorld game."""

    path: str  # the game.tw-pddl file
    name: str  # "<task folder>/<trial folder>", relative to the split folder
    task_type: str  # from traj_data.json, one of ALFWorld's six


def resolve_data_dir(data_dir: str | None) -> Path:
    """The folder holding the split folders; a clear error naming the key and the variable if none."""
    source = f"env.data_dir={data_dir!r}" if data_dir else f"${ENV_VAR}"
    value = data_dir or os.environ.get(ENV_VAR, "")
    if not value:
        raise ValueError(
            f"alfworld needs its game files: set env.data_dir=<folder> or export {ENV_VAR}=<folder>, "
            f"the folder that holds {FORMAT}/ (e.g. ../shared/alfworld; ALFWorld's alfworld-download "
            f"fills ~/.cache/alfworld)"
        )
    root = Path(os.path.expandvars(os.path.expanduser(value))).resolve()
    if not root.is_dir():
        raise ValueError(
            f"alfworld data folder {root} (from {source}) does not exist; point env.data_dir or "
            f"${ENV_VAR} at the folder that holds {FORMAT}/"
        )
    if (root / FORMAT).is_dir():
        return root / FORMAT
    if any((root / folder).is_dir() for folder in SPLIT_FOLDERS.values()):
        return root
    raise ValueError(
        f"alfworld data folder {root} (from {source}) holds neither {FORMAT}/ nor the split folders "
        f"{sorted(set(SPLIT_FOLDERS.values()))}; point it at the folder that holds {FORMAT}/"
    )


def split_games(root: Path, split: str, task_types: list[str] | tuple[str, ...]) -> list[Game]:
    """The games of ``split`` whose type is in ``task_types``, in task-index order."""
    if split not in SPLIT_FOLDERS:
        raise ValueError(f"unknown split {split!r}; alfworld has {list(SPLIT_FOLDERS)}")
    folder = root / SPLIT_FOLDERS[split]
    games = [g for g in _index(str(folder)) if g.task_type in task_types]
    if not games:
        where = f"{folder} does not exist" if not folder.is_dir() else f"{folder} holds none of types {list(task_types)}"
        raise ValueError(
            f"alfworld split {split!r} has no games: {where}; put ALFWorld's {SPLIT_FOLDERS[split]} "
            f"games there or choose another split"
        )
    return games


def interleave_by_type(games: list[Game]) -> list[Game]:
    """Games sorted by name within each type, then round-robin over ``TASK_TYPES``."""
    queues = [sorted((g for g in games if g.task_type == t), key=lambda g: g.name) for t in TASK_TYPES]
    ordered: list[Game] = []
    for position in range(max((len(q) for q in queues), default=0)):
        ordered += [q[position] for q in queues if position < len(q)]
    return ordered


@functools.lru_cache(maxsize=16)
def _index(folder: str) -> tuple[Game, ...]:
    """All playable games under ``folder`` (cached per process; the files are read-only data)."""
    games = []
    for traj in sorted(Path(folder).glob("*/*/traj_data.json")):
        trial = traj.parent
        name = f"{trial.parent.name}/{trial.name}"
        game_file = trial / "game.tw-pddl"
        if "movable" in name or "Sliced" in name or not game_file.is_file():
            continue
        task_type = json.loads(traj.read_text())["task_type"]
        if task_type not in TASK_TYPES or not json.loads(game_file.read_text()).get("solvable", False):
            continue
        games.append(Game(str(game_file), name, task_type))
    return tuple(interleave_by_type(games))
