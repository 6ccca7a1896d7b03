"""The command grammar: admissible lists in hand-built states and each command's wording."""

from coevo.envs.household.commands import admissible_commands, apply_command
from coevo.envs.household.goals import Goal
from coevo.envs.household.wording import room_overview

ROOM = {
    "cabinet 1": ["mug 1"],
    "countertop 1": ["apple 1", "bread 1"],
    "desk 1": ["desklamp 1", "book 1"],
    "fridge 1": [],
    "microwave 1": [],
    "sinkbasin 1": [],
}


def test_admissible_in_the_middle_of_the_room(build_world):
    world = build_world(ROOM)
    assert admissible_commands(world) == [
        "go to cabinet 1",
        "go to countertop 1",
        "go to desk 1",
        "go to fridge 1",
        "go to microwave 1",
        "go to sinkbasin 1",
        "inventory",
        "look",
    ]


def test_admissible_at_a_closed_receptacle(build_world):
    world = build_world(ROOM, agent_at="cabinet 1")
    commands = admissible_commands(world)
    assert "open cabinet 1" in commands and "examine cabinet 1" in commands
    assert "go to cabinet 1" not in commands
    assert not [
        c for c in commands if c.startswith(("take", "close", "put"))
    ]  # closed: nothing inside reachable


def test_admissible_at_an_open_receptacle_with_empty_hand(build_world):
    world = build_world(ROOM, opened=("cabinet 1",), agent_at="cabinet 1")
    commands = admissible_commands(world)
    assert "close cabinet 1" in commands and "take mug 1 from cabinet 1" in commands
    assert "open cabinet 1" not in commands


def test_admissible_on_a_surface_lists_every_object_but_the_lamp(build_world):
    world = build_world(ROOM, agent_at="desk 1")
    commands = admissible_commands(world)
    assert "take book 1 from desk 1" in commands and "use desklamp 1" in commands
    assert "take desklamp 1 from desk 1" not in commands


def test_admissible_while_holding_one_object(build_world):
    world = build_world(ROOM, agent_at="countertop 1", holding="mug 1")
    commands = admissible_commands(world)
    assert "put mug 1 in/on countertop 1" in commands and "examine mug 1" in commands
    assert not [c for c in commands if c.startswith("take")]  # the hand holds one object at most


def test_appliance_commands_need_the_appliance_and_an_object(build_world):
    at_sink = admissible_commands(build_world(ROOM, agent_at="sinkbasin 1", holding="apple 1"))
    assert "clean apple 1 with sinkbasin 1" in at_sink
    at_microwave = admissible_commands(build_world(ROOM, agent_at="microwave 1", holding="apple 1"))
    assert "heat apple 1 with microwave 1" in at_microwave
    assert "put apple 1 in/on microwave 1" not in at_microwave  # closed
    at_fridge = admissible_commands(build_world(ROOM, agent_at="fridge 1", holding="apple 1"))
    assert "cool apple 1 with fridge 1" in at_fridge
    empty_handed = admissible_commands(build_world(ROOM, agent_at="microwave 1"))
    assert not [c for c in empty_handed if c.startswith("heat")]


def test_wording_of_every_command(build_world):
    world = build_world(ROOM)
    assert apply_command(world, "go to cabinet 1") == "You arrive at cabinet 1. The cabinet 1 is closed."
    assert (
        apply_command(world, "open cabinet 1")
        == "You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1."
    )
    assert apply_command(world, "take mug 1 from cabinet 1") == "You pick up the mug 1 from the cabinet 1."
    assert apply_command(world, "examine cabinet 1") == "The cabinet 1 is open. In it, you see nothing."
    assert apply_command(world, "close cabinet 1") == "You close the cabinet 1."
    assert apply_command(world, "inventory") == "You are carrying: a mug 1."
    assert apply_command(world, "look") == "You are facing the cabinet 1. Next to it, you see nothing."
    assert (
        apply_command(world, "go to sinkbasin 1")
        == "You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing."
    )
    assert (
        apply_command(world, "clean mug 1 with sinkbasin 1") == "You clean the mug 1 using the sinkbasin 1."
    )
    apply_command(world, "go to microwave 1")
    assert apply_command(world, "heat mug 1 with microwave 1") == "You heat the mug 1 using the microwave 1."
    # containers (bowl, cup, mug, pan, plate, pot, box) read as "normal" in any state, as in ALFWorld
    assert apply_command(world, "examine mug 1") == "This is a normal mug 1. In it, you see nothing."
    apply_command(world, "go to fridge 1")
    assert apply_command(world, "cool mug 1 with fridge 1") == "You cool the mug 1 using the fridge 1."
    assert apply_command(world, "examine mug 1") == "This is a normal mug 1. In it, you see nothing."
    assert (
        apply_command(world, "go to desk 1")
        == "You arrive at desk 1. On the desk 1, you see a book 1, and a desklamp 1."
    )
    assert apply_command(world, "use desklamp 1") == "You turn on the desklamp 1."
    assert apply_command(world, "use desklamp 1") == "You turn off the desklamp 1."
    assert apply_command(world, "put mug 1 in/on desk 1") == "You put the mug 1 in/on the desk 1."
    assert apply_command(world, "inventory") == "You are not carrying anything."
    assert world.contents["desk 1"] == ["desklamp 1", "book 1", "mug 1"]


def test_plain_objects_describe_their_state_and_lists_follow_alfworld_order(build_world):
    world = build_world({"countertop 1": ["apple 1"], "sinkbasin 1": [], "microwave 1": [],
                         "cabinet 1": ["pen 1", "cd 2", "pen 2", "cd 1"], "cabinet 2": []},
                        agent_at="sinkbasin 1", holding="apple 1")
    assert apply_command(world, "examine apple 1") == "There's nothing special about apple 1."
    apply_command(world, "clean apple 1 with sinkbasin 1")
    assert apply_command(world, "examine apple 1") == "This is a clean apple 1."
    assert room_overview(world).endswith(
        "you see a cabinet 2, a cabinet 1, a countertop 1, a microwave 1, and a sinkbasin 1.")
    apply_command(world, "go to cabinet 1")
    assert apply_command(world, "open cabinet 1").endswith("you see a cd 2, a cd 1, a pen 2, and a pen 1.")
    world.agent_at = ""
    assert apply_command(world, "look") == "You are in the middle of a room. Looking quickly around you, you see nothing."


def test_arrival_names_the_location_number_when_the_layout_has_them(build_world):
    from dataclasses import replace

    world = build_world({"desk 1": ["book 1"], "drawer 1": []})
    world.layout = replace(world.layout, locations=(14, 3))
    assert apply_command(world, "go to desk 1") == "You arrive at loc 14. On the desk 1, you see a book 1."
    assert apply_command(world, "go to drawer 1") == "You arrive at loc 3. The drawer 1 is closed."


def test_heating_a_cold_object_makes_it_hot_not_both(build_world):
    world = build_world(ROOM, agent_at="fridge 1", holding="apple 1")
    apply_command(world, "cool apple 1 with fridge 1")
    apply_command(world, "go to microwave 1")
    apply_command(world, "heat apple 1 with microwave 1")
    assert world.states["apple 1"] == {"hot"}


def test_goal_of_a_hand_built_world_does_not_leak_into_commands(build_world):
    world = build_world(ROOM, goal=Goal("pick_and_place_simple", "mug", "desk", "put a mug in desk"))
    assert all("mug" not in c for c in admissible_commands(world))  # nothing about the goal until seen
