"""The static skill library (for the baselines): one hand-written skill per task type, as package data.

``data/<env>.json`` maps each task type of the environment to a skill and ``"default"`` to the
skill of any other type. Household's skills follow the oracle's procedure in the environment's own
words (so the tiny model's vocabulary covers them); ``alfworld`` shares them.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def library(env_name: str) -> dict[str, str]:
    """The library of ``env_name``; raises ValueError naming the environments that have one."""
    path = resources.files("coevo.rsipo.skills") / "data" / f"{env_name}.json"
    if not path.is_file():
        raise ValueError(f"no static skill library for env '{env_name}'; libraries exist for {available()}")
    return json.loads(path.read_text())


def available() -> list[str]:
    folder = resources.files("coevo.rsipo.skills") / "data"
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))


def static_skill(env_name: str, task_type: str) -> str:
    """The library skill of ``task_type`` (the library's ``default`` for a type it lacks)."""
    skills = library(env_name)
    return skills.get(task_type, skills.get("default", ""))
