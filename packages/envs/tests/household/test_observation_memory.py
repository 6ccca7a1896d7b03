"""The memory line is read from observation texts only."""

from coevo.envs.household.observation_memory import ObservationMemory, parse_list

INTRO = (
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, "
    "you see a cabinet 1, a countertop 1, a fridge 1, and a microwave 1.\n\n"
    "Your task is to: heat some apple and put it in countertop."
)


def test_parse_list():
    assert parse_list("nothing") == []
    assert parse_list("a apple 1") == ["apple 1"]
    assert parse_list("a apple 1, and a mug 2") == ["apple 1", "mug 2"]
    assert parse_list("a apple 1, a bread 1, and a mug 2") == ["apple 1", "bread 1", "mug 2"]


def test_memory_line_follows_observations():
    memory = ObservationMemory()
    memory.observe(INTRO)
    assert memory.render() == "seen: nothing; unexplored: cabinet 1, countertop 1, fridge 1, microwave 1; holding: nothing"
    assert memory.receptacles == ["cabinet 1", "countertop 1", "fridge 1", "microwave 1"]
    assert memory.goal.task_type == "pick_heat_then_place_in_recep"
    for text in [
        "You arrive at cabinet 1. The cabinet 1 is closed.",
        "You arrive at countertop 1. On the countertop 1, you see nothing.",
        "You arrive at fridge 1. The fridge 1 is closed.",
        "You open the fridge 1. The fridge 1 is open. In it, you see a apple 1, and a mug 2.",
    ]:
        memory.observe(text)
    assert memory.render() == (
        "seen: cabinet 1 (closed), countertop 1 (nothing), fridge 1 (apple 1, mug 2); "
        "unexplored: cabinet 1, microwave 1; holding: nothing"
    )
    memory.observe("You pick up the apple 1 from the fridge 1.")
    memory.observe("Nothing happens.")
    memory.observe("You arrive at microwave 1. The microwave 1 is closed.")
    memory.observe("You heat the apple 1 using the microwave 1.")
    assert memory.at == "microwave 1"
    assert memory.render() == (
        "seen: cabinet 1 (closed), countertop 1 (nothing), fridge 1 (mug 2), microwave 1 (closed); "
        "unexplored: cabinet 1, microwave 1; holding: apple 1 (hot)"
    )
    memory.observe("You arrive at countertop 1. On the countertop 1, you see nothing.")
    memory.observe("You put the apple 1 in/on the countertop 1.")
    assert memory.render() == (
        "seen: cabinet 1 (closed), countertop 1 (apple 1), fridge 1 (mug 2), microwave 1 (closed); "
        "unexplored: cabinet 1, microwave 1; holding: nothing"
    )


def test_a_new_intro_forgets_the_previous_episode():
    memory = ObservationMemory()
    memory.observe(INTRO)
    memory.observe("You arrive at countertop 1. On the countertop 1, you see a apple 1.")
    memory.observe(INTRO)
    assert memory.render() == "seen: nothing; unexplored: cabinet 1, countertop 1, fridge 1, microwave 1; holding: nothing"


def test_env_memory_only_reflects_what_was_observed(all_types_env):
    env = all_types_env
    env.reset(env.task("train", 1))  # two lettuces hidden in the closed fridge 1
    room = "cabinet 1, desk 1, diningtable 2, diningtable 1, fridge 1, shelf 1"  # in the overview's order
    assert env.memory() == f"seen: nothing; unexplored: {room}; holding: nothing"
    env.step("go to fridge 1")
    assert env.memory() == f"seen: fridge 1 (closed); unexplored: {room}; holding: nothing"
    env.step("open fridge 1")
    env.step("take lettuce 1 from fridge 1")
    assert env.memory() == (
        "seen: fridge 1 (lettuce 2); unexplored: cabinet 1, desk 1, diningtable 2, diningtable 1, shelf 1; "
        "holding: lettuce 1"
    )


def test_arrival_at_a_location_number_records_the_receptacle_named_next():
    memory = ObservationMemory()
    memory.observe(INTRO)
    memory.observe("You arrive at loc 14. On the countertop 1, you see a apple 1.")
    assert memory.at == "countertop 1" and memory.contents["countertop 1"] == ["apple 1"]
    memory.observe("You arrive at loc 3. The fridge 1 is closed.")
    assert memory.at == "fridge 1" and "fridge 1" in memory.seen_closed
