"""ALFWorld's texts: lists, the intro, receptacle and object descriptions."""

from coevo.envs.household import wording


def test_lists_read_like_alfworld():
    assert wording.a_list([]) == "nothing"
    assert wording.a_list(["apple 1"]) == "a apple 1"
    assert wording.a_list(["apple 1", "mug 2"]) == "a apple 1, and a mug 2"
    assert wording.a_list(["a 1", "b 1", "c 1"]) == "a a 1, a b 1, and a c 1"


def test_intro_has_welcome_overview_and_task(build_world):
    world = build_world({"cabinet 1": [], "countertop 1": [], "fridge 1": ["apple 1"]})
    assert wording.intro(world) == (
        "-= Welcome to TextWorld, ALFRED! =-\n\n"
        "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, "
        "a countertop 1, and a fridge 1.\n\n"
        "Your task is to: put some apple on countertop."
    )


def test_receptacle_descriptions(build_world):
    world = build_world(
        {"cabinet 1": ["mug 1"], "countertop 1": [], "drawer 1": ["pen 1"]}, opened=("drawer 1",)
    )
    assert wording.describe_receptacle(world, "cabinet 1") == "The cabinet 1 is closed."
    assert wording.describe_receptacle(world, "drawer 1") == "The drawer 1 is open. In it, you see a pen 1."
    assert wording.describe_receptacle(world, "countertop 1") == "On the countertop 1, you see nothing."
    assert wording.arrive(world, "cabinet 1") == "You arrive at cabinet 1. The cabinet 1 is closed."


def test_object_descriptions_follow_states(build_world):
    world = build_world({"countertop 1": []}, holding="apple 1")
    assert wording.describe_object(world, "apple 1") == "There's nothing special about apple 1."
    world.states["apple 1"] = frozenset({"hot"})
    assert wording.describe_object(world, "apple 1") == "This is a hot apple 1."
    world.states["apple 1"] = frozenset({"cool"})
    assert wording.describe_object(world, "apple 1") == "This is a cold apple 1."
    world.states["apple 1"] = frozenset({"clean", "hot"})
    assert wording.describe_object(world, "apple 1") == "This is a hot and clean apple 1."
