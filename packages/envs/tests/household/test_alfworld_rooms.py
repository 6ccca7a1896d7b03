"""``env.scale=alfworld``: rooms of ALFWorld's size, the 50-step limit, an oracle that wins them all,
and a clear refusal of an unknown scale."""

from __future__ import annotations

import statistics
from collections import defaultdict

import pytest

from coevo.core import registry
from coevo.core.config import ConfigError, build_component
from coevo.envs.household import vocabulary as V
from coevo.envs.household.alfworld_rooms import generate_alfworld_room
from coevo.envs.household.catalog import TASK_TYPES, kind_of
from coevo.envs.household.env import HouseholdEnv

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


@pytest.fixture
def alfworld_env() -> HouseholdEnv:
    return HouseholdEnv(HouseholdEnv.Config(scale="alfworld", task_types=list(TASK_TYPES)))


def test_oracle_wins_every_task_within_alfworlds_50_steps(alfworld_env):
    env = alfworld_env
    assert env.max_steps == V.MAX_STEPS == 50
    tasks = [env.task("train", i) for i in range(120)] + [env.task(s, i) for s in SPLITS[1:] for i in range(60)]
    assert {t.task_type for t in tasks} == set(TASK_TYPES)  # 40 of each type
    for task in tasks:
        env.reset(task)
        while True:
            result = env.step(env.expert_action())
            assert not result.invalid, (task, result.observation)
            if result.done:
                break
        assert result.won and env.steps_taken <= 50, task


def test_room_sizes_follow_the_real_room_types():
    sizes = defaultdict(list)
    for task_type in TASK_TYPES:
        for seed in range(100):
            room, world = generate_alfworld_room(task_type, "train", seed, max_steps=50, goal_variants=True)
            sizes[room].append(len(world.layout.receptacles))
            kinds = V.ROOM_TYPES[room].receptacles
            for kind in {kind_of(r) for r in world.layout.receptacles}:
                count = sum(kind_of(r) == kind for r in world.layout.receptacles)
                assert kinds[kind][0] <= count <= kinds[kind][1] or count == 1, (room, kind, count)
    for room, got in sizes.items():
        real = V.ROOM_TYPES[room].sizes
        assert min(real) <= min(got) and max(got) <= max(real), room
    # real games: kitchens 20-54 receptacles (median 34), the other rooms 6-35 (median 14-15)
    assert min(sizes["kitchen"]) >= 20 and 28 <= statistics.median(sizes["kitchen"]) <= 40
    assert 10 <= statistics.median(sizes["bedroom"] + sizes["bathroom"] + sizes["livingroom"]) <= 20


def test_rooms_start_closed_and_goal_objects_start_outside_the_target():
    for task_type in TASK_TYPES:
        for seed in range(30):
            _, world = generate_alfworld_room(task_type, "train", seed, max_steps=50, goal_variants=True)
            goal = world.layout.goal
            assert world.opened == set()  # every openable starts closed, as in ALFWorld
            held = [r for r, objs in world.contents.items() for o in objs if kind_of(o) == goal.object_kind]
            assert len(held) >= (2 if task_type == "pick_two_obj_and_place" else 1)
            assert all(kind_of(r) != goal.target_kind for r in held)
            assert all(kind_of(o) in V.OBJECT_KINDS or o == world.layout.lamp for objs in world.contents.values() for o in objs)
            if task_type == "look_at_obj_in_light":
                assert world.layout.lamp


def test_alfworld_tasks_replay_and_restore(alfworld_env):
    env = alfworld_env
    task = env.task("eval_in_distribution", 7)
    first = env.reset(task)
    saved = env.snapshot()
    steps = [env.step(env.expert_action()).observation for _ in range(3)]
    env.restore(saved)
    assert [env.step(env.expert_action()).observation for _ in range(3)] == steps
    assert env.reset(task) == first


def test_small_scale_is_the_default():
    env = HouseholdEnv()
    assert env.config.scale == "small" and env.max_steps == 20


def test_an_unknown_scale_is_refused_naming_the_key_and_the_choices():
    with pytest.raises(ConfigError) as info:
        build_component(registry.envs, {"name": "household", "scale": "huge"}, "env")
    message = str(info.value)
    assert "'env.scale'" in message and "'huge'" in message and "['small', 'alfworld']" in message
    assert "\n" not in message.strip()


@pytest.mark.parametrize("knob", ["num_receptacles=10", "max_per_kind=3", "num_objects=5", "closed_fraction=0.2",
                                  "usual_place_prob=0.5", "max_steps=30"])
def test_a_small_scale_knob_at_alfworld_scale_is_refused_not_ignored(knob):
    key, value = knob.split("=")
    with pytest.raises(ValueError) as info:
        HouseholdEnv(HouseholdEnv.Config(scale="alfworld", **{key: type(getattr(HouseholdEnv.Config(), key))(value)}))
    message = str(info.value)
    assert message.startswith(f"env.{key}=") and "env.scale=small" in message and "\n" not in message
