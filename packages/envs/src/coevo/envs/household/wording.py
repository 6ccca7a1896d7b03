"""ALFWorld's observation texts (json_2.1.1 grammar), as plain functions of the world.

Lists read "a x 1", "a x 1, and a y 2", "a x 1, a y 2, and a z 3" or "nothing"; ALFWorld uses
the article "a" for every name ("a apple 1"), and so do we. Like the real games, lists go by kind
A→Z and, within a kind, numbers high to low ("a cabinet 2, a cabinet 1, a drawer 1"), and arriving
names the location number ("You arrive at loc 14. On the desk 1, you see …").
"""

from __future__ import annotations

from coevo.envs.household.catalog import kind_of
from coevo.envs.household.world import World

#: object kinds ALFWorld describes as containers when examined ("This is a normal mug 1. In it, …")
RECEPTACLE_OBJECT_KINDS = frozenset({"bowl", "box", "cup", "mug", "pan", "plate", "pot"})


def alfworld_order(names) -> list[str]:
    """Kind A→Z, then numbers high to low, as the real games list things."""

    def key(name: str):
        number = name.rsplit(" ", 1)[-1]
        return kind_of(name), -int(number) if number.isdigit() else 0

    return sorted(names, key=key)

WELCOME = "-= Welcome to TextWorld, ALFRED! =-"


def a_list(names: list[str] | tuple[str, ...]) -> str:
    if not names:
        return "nothing"
    items = [f"a {n}" for n in alfworld_order(names)]
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + ", and " + items[-1]


def room_overview(world: World) -> str:
    return f"You are in the middle of a room. Looking quickly around you, you see {a_list(world.layout.receptacles)}."


def intro(world: World) -> str:
    return f"{WELCOME}\n\n{room_overview(world)}\n\nYour task is to: {world.layout.goal.sentence}."


def describe_receptacle(world: World, receptacle: str) -> str:
    """ALFWorld's examineReceptacle feedback."""
    if receptacle in world.layout.openable:
        if receptacle not in world.opened:
            return f"The {receptacle} is closed."
        return f"The {receptacle} is open. In it, you see {a_list(world.contents[receptacle])}."
    return f"On the {receptacle}, you see {a_list(world.contents[receptacle])}."


def arrive(world: World, receptacle: str) -> str:
    return f"You arrive at {world.layout.location_of(receptacle)}. {describe_receptacle(world, receptacle)}"


def look(world: World) -> str:
    if not world.agent_at:
        return "You are in the middle of a room. Looking quickly around you, you see nothing."
    return f"You are facing the {world.agent_at}. Next to it, you see nothing."


def inventory(world: World) -> str:
    if world.holding:
        return f"You are carrying: a {world.holding}."
    return "You are not carrying anything."


def describe_object(world: World, obj: str) -> str:
    """ALFWorld's examineObject feedback for a plain (non-sliced, non-container) object."""
    if kind_of(obj) in RECEPTACLE_OBJECT_KINDS:  # the real games say this in every state
        return f"This is a normal {obj}. In it, you see nothing."
    states = world.states.get(obj, frozenset())
    clean, hot, cool = "clean" in states, "hot" in states, "cool" in states
    if clean and hot:
        return f"This is a hot and clean {obj}."
    if clean and cool:
        return f"This is a cool and clean {obj}."
    if hot:
        return f"This is a hot {obj}."
    if clean:
        return f"This is a clean {obj}."
    if cool:
        return f"This is a cold {obj}."
    return f"There's nothing special about {obj}."
