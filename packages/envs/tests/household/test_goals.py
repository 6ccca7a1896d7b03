"""Task sentences (both ALFWorld phrasings), their parser, and the win test on hand-built worlds."""

import pytest

from coevo.envs.household.catalog import TASK_TYPES
from coevo.envs.household.goals import PHRASINGS, Goal, goal_sentence, is_goal_met, parse_goal


@pytest.mark.parametrize("task_type", TASK_TYPES)
@pytest.mark.parametrize("variant", [0, 1])
def test_every_phrasing_parses_back_to_its_goal(task_type, variant):
    target = "" if task_type == "look_at_obj_in_light" else "countertop"
    sentence = goal_sentence(task_type, "apple", target, variant)
    assert parse_goal(f"Your task is to: {sentence}.") == Goal(task_type, "apple", target, sentence)


def test_phrasings_match_alfworld():
    assert goal_sentence("pick_and_place_simple", "apple", "countertop", 1) == "put some apple on countertop"
    assert goal_sentence("pick_two_obj_and_place", "cd", "shelf", 0) == "put two cd in shelf"
    assert goal_sentence("look_at_obj_in_light", "book", "", 0) == "look at book under the desklamp"
    assert goal_sentence("pick_clean_then_place_in_recep", "mug", "shelf", 0) == "put a clean mug in shelf"
    assert (
        goal_sentence("pick_heat_then_place_in_recep", "apple", "fridge", 1)
        == "heat some apple and put it in fridge"
    )
    assert goal_sentence("pick_cool_then_place_in_recep", "mug", "cabinet", 0) == "put a cool mug in cabinet"
    assert len(PHRASINGS) == 6


def _goal(task_type, target="countertop"):
    return Goal(task_type, "apple", target, "")


def test_place_goals_need_the_object_in_a_receptacle_of_the_target_kind(build_world):
    world = build_world(
        {"countertop 1": [], "countertop 2": ["apple 1"]}, goal=_goal("pick_and_place_simple")
    )
    assert is_goal_met(world)
    world.contents["countertop 2"].remove("apple 1")
    world.holding = "apple 1"
    assert not is_goal_met(world)


def test_two_objects_must_share_one_receptacle(build_world):
    goal = _goal("pick_two_obj_and_place")
    apart = build_world({"countertop 1": ["apple 1"], "countertop 2": ["apple 2"]}, goal=goal)
    assert not is_goal_met(apart)
    together = build_world({"countertop 1": ["apple 1", "apple 2"], "countertop 2": []}, goal=goal)
    assert is_goal_met(together)


@pytest.mark.parametrize(
    "task_type,state",
    [
        ("pick_clean_then_place_in_recep", "clean"),
        ("pick_heat_then_place_in_recep", "hot"),
        ("pick_cool_then_place_in_recep", "cool"),
    ],
)
def test_transform_goals_need_the_state(build_world, task_type, state):
    world = build_world({"countertop 1": ["apple 1"]}, goal=_goal(task_type))
    assert not is_goal_met(world)
    world.states["apple 1"] = frozenset({state})
    assert is_goal_met(world)


def test_look_goal_needs_object_in_hand_and_lamp_on_here(build_world):
    goal = _goal("look_at_obj_in_light", target="")
    world = build_world(
        {"desk 1": ["desklamp 1"], "shelf 1": []}, goal=goal, agent_at="desk 1", holding="apple 1"
    )
    assert not is_goal_met(world)
    world.lamp_on = True
    assert is_goal_met(world)
    world.agent_at = "shelf 1"
    assert not is_goal_met(world)
