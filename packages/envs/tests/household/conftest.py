"""Shared builders for the household tests: hand-built worlds and environments."""

from __future__ import annotations

import pytest

from coevo.envs.household.catalog import OPENABLE_KINDS, TASK_TYPES, kind_of
from coevo.envs.household.env import HouseholdEnv
from coevo.envs.household.goals import Goal
from coevo.envs.household.world import Layout, World


def _build_world(
    contents: dict[str, list[str]],
    *,
    opened: tuple[str, ...] = (),
    goal: Goal | None = None,
    agent_at: str = "",
    holding: str = "",
) -> World:
    """A world with exactly these receptacles and objects; openable kinds are openable."""
    receptacles = tuple(contents)
    lamp = next((o for objs in contents.values() for o in objs if kind_of(o) == "desklamp"), "")
    layout = Layout(
        receptacles=receptacles,
        openable=frozenset(r for r in receptacles if kind_of(r) in OPENABLE_KINDS),
        lamp=lamp,
        goal=goal or Goal("pick_and_place_simple", "apple", "countertop", "put some apple on countertop"),
    )
    world = World(layout=layout, contents={r: list(o) for r, o in contents.items()}, opened=set(opened))
    world.agent_at, world.holding = agent_at, holding
    return world


@pytest.fixture
def build_world():
    """``build_world(contents, opened=..., goal=..., agent_at=..., holding=...)`` → World."""
    return _build_world


@pytest.fixture
def all_types_env() -> HouseholdEnv:
    """Default knobs, every task type."""
    return HouseholdEnv(HouseholdEnv.Config(task_types=list(TASK_TYPES)))
