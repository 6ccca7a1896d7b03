"""ALFWorld's observation texts (json_2.1.1 grammar), as plain functions of the world.

Lists read "a x 1", "a x 1, and a y 2", "a x 1, a y 2, and a z 3" or "nothing"; ALFWorld uses
the article "a" for every name ("a apple 1"), and so do we.
"""

from __future__ import annotations

from coevo.envs.household.world import World

WELCOME = "-= Welcome to TextWorld, ALFRED! =-"


def a_list(names: list[str] | tuple[str, ...]) -> str:
    if not names:
        return "nothing"
    items = [f"a {n}" for n in names]
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
    return f"You arrive at {receptacle}. {describe_receptacle(world, receptacle)}"


def look(world: World) -> str:
    if not world.agent_at:
        return room_overview(world)
    return f"You are facing the {world.agent_at}. Next to it, you see nothing."


def inventory(world: World) -> str:
    if world.holding:
        return f"You are carrying: a {world.holding}."
    return "You are not carrying anything."


def describe_object(world: World, obj: str) -> str:
    """ALFWorld's examineObject feedback for a plain (non-sliced, non-container) object."""
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
