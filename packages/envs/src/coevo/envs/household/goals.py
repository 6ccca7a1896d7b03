"""Task sentences in ALFWorld's two phrasings per task type, their parser, and the win test.

The phrasings are the ones ALFWorld's json_2.1.1 games use, e.g. "put a hot apple in fridge"
and "heat some apple and put it in fridge". ``parse_goal`` inverts ``goal_sentence`` and is what
the observable oracle uses to read its task from the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coevo.envs.household.catalog import STATE_OF_VERB, kind_of

if TYPE_CHECKING:  # the world is only read by is_goal_met; the oracle imports this module
    from coevo.envs.household.world import World


@dataclass(frozen=True)
class Goal:
    """What the task asks, in catalog terms."""

    task_type: str
    object_kind: str  # e.g. "apple"
    target_kind: str  # receptacle kind to put it in/on; "" for look_at_obj_in_light
    sentence: str  # ALFWorld's task sentence without "Your task is to: " and the final period


# task type → (first phrasing, second phrasing); {o} object kind, {r} target receptacle kind
PHRASINGS: dict[str, tuple[str, str]] = {
    "pick_and_place_simple": ("put a {o} in {r}", "put some {o} on {r}"),
    "pick_two_obj_and_place": ("put two {o} in {r}", "find two {o} and put them in {r}"),
    "look_at_obj_in_light": ("look at {o} under the desklamp", "examine the {o} with the desklamp"),
    "pick_clean_then_place_in_recep": ("put a clean {o} in {r}", "clean some {o} and put it in {r}"),
    "pick_heat_then_place_in_recep": ("put a hot {o} in {r}", "heat some {o} and put it in {r}"),
    "pick_cool_then_place_in_recep": ("put a cool {o} in {r}", "cool some {o} and put it in {r}"),
}

# the object state each transforming task asks for
REQUIRED_STATE: dict[str, str] = {
    "pick_clean_then_place_in_recep": STATE_OF_VERB["clean"],
    "pick_heat_then_place_in_recep": STATE_OF_VERB["heat"],
    "pick_cool_then_place_in_recep": STATE_OF_VERB["cool"],
}

# most specific patterns first: "put a clean X in Y" before "put a X in Y"
_PATTERNS: list[tuple[re.Pattern[str], str]] = sorted(
    (
        (re.compile("^" + p.replace("{o}", r"(?P<o>\w+)").replace("{r}", r"(?P<r>\w+)") + "$"), task_type)
        for task_type, pair in PHRASINGS.items()
        for p in pair
    ),
    key=lambda item: -len(item[0].pattern.replace(r"(?P<o>\w+)", "").replace(r"(?P<r>\w+)", "")),
)


def goal_sentence(task_type: str, object_kind: str, target_kind: str, variant: int) -> str:
    return PHRASINGS[task_type][variant].format(o=object_kind, r=target_kind)


def parse_goal(sentence: str) -> Goal | None:
    """The goal a task sentence states (with or without "Your task is to: " and the period)."""
    text = sentence.strip().removeprefix("Your task is to: ").rstrip(".")
    for pattern, task_type in _PATTERNS:
        match = pattern.match(text)
        if match:
            groups = match.groupdict()
            return Goal(task_type, groups["o"], groups.get("r") or "", text)
    return None


def is_goal_met(world: World) -> bool:
    goal = world.layout.goal
    if goal.task_type == "look_at_obj_in_light":
        return (
            world.lamp_on
            and kind_of(world.holding or "x 0") == goal.object_kind
            and world.agent_at == world.receptacle_of_lamp()
        )
    needed = 2 if goal.task_type == "pick_two_obj_and_place" else 1
    state = REQUIRED_STATE.get(goal.task_type)
    for receptacle, objects in world.contents.items():
        if kind_of(receptacle) != goal.target_kind:
            continue
        matching = [
            o
            for o in objects
            if kind_of(o) == goal.object_kind and (state is None or state in world.states.get(o, ()))
        ]
        if len(matching) >= needed:
            return True
    return False
