"""Hindsight skills: a winning attempt with its search cut out, checked by replaying it."""

import pytest

from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv
from coevo.envs.household.catalog import TASK_TYPES
from coevo.envs.household.env import HouseholdEnv
from coevo.rsipo.hindsight import direct_path, expert_attempt, expert_direct_path, hindsight_skill, wins


def boxes_detour(env: BoxesEnv, index: int) -> tuple[list[str], list[str]]:
    """The expert's two commands on task ``index``, and the same with a visit to another box first."""
    expert, won = expert_attempt(env, "train", index)
    assert won and len(expert) == 2 and expert[0].startswith("go to ")
    env.reset(env.task("train", index))
    other = next(a for a in env.admissible_actions() if a.startswith("go to ") and a != expert[0])
    return expert, [other, *expert]


def test_a_detour_is_cut_and_the_commands_the_win_needs_stay():
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4))
    for index in range(8):
        expert, detour = boxes_detour(env, index)
        assert wins(env, "train", index, detour)
        assert direct_path(env, "train", index, detour) == expert


def test_attempts_that_do_not_win_exactly_at_their_end_are_returned_unchanged():
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4))
    expert, _ = boxes_detour(env, 0)
    for actions in ([expert[0]], [expert[1], expert[0]], [*expert, "look"], ["dance", *expert], []):
        assert not wins(env, "train", 0, actions)
        assert direct_path(env, "train", 0, actions) == actions


@pytest.mark.parametrize("scale", ["small", "alfworld"])
def test_household_paths_win_are_subsequences_of_the_attempt_and_drop_nothing_more(scale):
    env = HouseholdEnv(HouseholdEnv.Config(scale=scale, task_types=list(TASK_TYPES)))
    shorter = 0
    for index in range(24):
        attempt, won = expert_attempt(env, "train", index)
        assert won  # the oracle wins every room
        path = direct_path(env, "train", index, attempt)
        assert wins(env, "train", index, path) and len(path) <= len(attempt)
        remaining = iter(attempt)
        assert all(command in remaining for command in path)  # a subsequence, in order
        # minimal: without any one of its commands the path no longer wins
        assert not any(wins(env, "train", index, path[:i] + path[i + 1:]) for i in range(len(path) - 1))
        shorter += len(path) < len(attempt)
    if scale == "alfworld":  # 20-40 receptacles: the oracle searches, and hindsight knows where it found things
        assert shorter >= 8


def test_the_skill_is_the_path_in_one_line():
    assert hindsight_skill(["go to cabinet 3", "take mug 1 from cabinet 3"]) == "go to cabinet 3, take mug 1 from cabinet 3."
    assert hindsight_skill([]) == ""


def test_the_experts_direct_path_or_none_without_an_expert(no_expert_boxes):
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4))
    expert, _ = boxes_detour(env, 2)
    assert expert_direct_path(env, "train", 2) == expert
    assert expert_direct_path(no_expert_boxes(BoxesConfig()), "train", 2) is None
