"""Household and ALFWorld shorten their task types on plots (core's report knows no env's names)."""

from coevo.core.env.protocol import Environment
from coevo.envs.alfworld.env import AlfworldEnv
from coevo.envs.household.catalog import TASK_TYPES
from coevo.envs.household.env import HouseholdEnv


def test_long_household_types_are_shortened_and_others_kept():
    labels = [HouseholdEnv.task_type_label(t) for t in TASK_TYPES]
    assert labels == ["pick_and_place_simple", "pick_two_obj_and_place", "look_at_obj_in_light",
                      "pick_clean", "pick_heat", "pick_cool"]
    assert [AlfworldEnv.task_type_label(t) for t in TASK_TYPES] == labels
    assert Environment.task_type_label("pick_heat_then_place_in_recep") == "pick_heat_then_place_in_recep"
