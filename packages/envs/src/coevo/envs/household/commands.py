"""ALFWorld's command grammar: which commands are admissible in a state, and what each one does.

Commands (json_2.1.1 wording): ``go to R``, ``open R``, ``close R``, ``take O from R``,
``put O in/on R``, ``clean O with sinkbasin N``, ``heat O with microwave N``,
``cool O with fridge N``, ``use desklamp N``, ``examine R|O``, ``inventory``, ``look``.
The admissible list is sorted alphabetically, as ALFWorld's is. ``apply_command`` assumes the
command is admissible; the environment checks that first.
"""

from __future__ import annotations

from coevo.envs.household import wording
from coevo.envs.household.catalog import STATE_CANCELS, STATE_OF_VERB, VERB_OF_APPLIANCE, kind_of
from coevo.envs.household.world import World


def admissible_commands(world: World) -> list[str]:
    here = world.agent_at
    commands = [f"go to {r}" for r in world.layout.receptacles if r != here]
    commands += ["inventory", "look"]
    if world.holding:
        commands.append(f"examine {world.holding}")
    if here:
        commands.append(f"examine {here}")
        if here in world.layout.openable:
            commands.append(f"close {here}" if here in world.opened else f"open {here}")
        accessible = world.is_accessible(here)
        if world.holding:
            if accessible:
                commands.append(f"put {world.holding} in/on {here}")
            verb = VERB_OF_APPLIANCE.get(kind_of(here))
            if verb:
                commands.append(f"{verb} {world.holding} with {here}")
        elif accessible:
            commands += [f"take {o} from {here}" for o in world.contents[here] if o != world.layout.lamp]
        if world.layout.lamp and world.layout.lamp in world.contents[here]:
            commands.append(f"use {world.layout.lamp}")
    commands.sort()
    return commands


def apply_command(world: World, command: str) -> str:
    """Change ``world`` by the admissible ``command``; return ALFWorld's feedback text."""
    verb, _, rest = command.partition(" ")
    if verb == "go":
        receptacle = rest.removeprefix("to ")
        world.agent_at = receptacle
        return wording.arrive(world, receptacle)
    if verb == "open":
        world.opened.add(rest)
        return f"You open the {rest}. {wording.describe_receptacle(world, rest)}"
    if verb == "close":
        world.opened.discard(rest)
        return f"You close the {rest}."
    if verb == "take":
        obj, _, receptacle = rest.partition(" from ")
        world.contents[receptacle].remove(obj)
        world.holding = obj
        return f"You pick up the {obj} from the {receptacle}."
    if verb == "put":
        obj, _, receptacle = rest.partition(" in/on ")
        world.contents[receptacle].append(obj)
        world.holding = ""
        return f"You put the {obj} in/on the {receptacle}."
    if verb in STATE_OF_VERB:
        obj, _, appliance = rest.partition(" with ")
        state = STATE_OF_VERB[verb]
        world.states[obj] = (world.states.get(obj, frozenset()) - {STATE_CANCELS[state]}) | {state}
        return f"You {verb} the {obj} using the {appliance}."
    if verb == "use":
        world.lamp_on = not world.lamp_on
        return f"You turn {'on' if world.lamp_on else 'off'} the {rest}."
    if verb == "examine":
        if rest == world.holding:
            return wording.describe_object(world, rest)
        return wording.describe_receptacle(world, rest)
    if verb == "inventory":
        return wording.inventory(world)
    if verb == "look":
        return wording.look(world)
    raise ValueError(f"not a household command: {command!r}")
