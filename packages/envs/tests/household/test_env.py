"""HouseholdEnv end to end: hand-written wins per task type, determinism, splits, invalid
commands, snapshot/restore, max_steps, and the protocol's surface."""

import pytest

from coevo.core.env.protocol import Environment, Task
from coevo.envs.household.catalog import OOD_OBJECT_KINDS, OOD_RECEPTACLE_KINDS, TASK_TYPES
from coevo.envs.household.env import HouseholdEnv
from coevo.envs.household.goals import parse_goal

# train tasks 0..5 of the all-types config (seed 0), one per type (round-robin), solved by hand
# from the generated layouts (noted per case), i.e. without searching.
HAND_SOLUTIONS = {
    # bowl 1 in the closed cabinet 2; drawer 1 closed
    0: (
        "put some bowl on drawer",
        [
            "go to cabinet 2",
            "open cabinet 2",
            "take bowl 1 from cabinet 2",
            "go to drawer 1",
            "open drawer 1",
            "put bowl 1 in/on drawer 1",
        ],
    ),
    # lettuce 1 and 2 in the closed fridge 1; either diningtable will do
    1: (
        "find two lettuce and put them in diningtable",
        [
            "go to fridge 1",
            "open fridge 1",
            "take lettuce 1 from fridge 1",
            "go to diningtable 2",
            "put lettuce 1 in/on diningtable 2",
            "go to fridge 1",
            "take lettuce 2 from fridge 1",
            "go to diningtable 2",
            "put lettuce 2 in/on diningtable 2",
        ],
    ),
    # bowl 1 on desk 1, desklamp 1 on desk 2
    2: (
        "examine the bowl with the desklamp",
        [
            "go to desk 1",
            "take bowl 1 from desk 1",
            "go to desk 2",
            "use desklamp 1",
        ],
    ),
    # mug 1 on countertop 1; drawer 1 starts open
    3: (
        "clean some mug and put it in drawer",
        [
            "go to countertop 1",
            "take mug 1 from countertop 1",
            "go to sinkbasin 1",
            "clean mug 1 with sinkbasin 1",
            "go to drawer 1",
            "put mug 1 in/on drawer 1",
        ],
    ),
    # bowl 1 on shelf 1
    4: (
        "put a hot bowl in desk",
        [
            "go to shelf 1",
            "take bowl 1 from shelf 1",
            "go to microwave 1",
            "heat bowl 1 with microwave 1",
            "go to desk 2",
            "put bowl 1 in/on desk 2",
        ],
    ),
    # bowl 1 in the closed fridge 1
    5: (
        "put a cool bowl in desk",
        [
            "go to fridge 1",
            "open fridge 1",
            "take bowl 1 from fridge 1",
            "cool bowl 1 with fridge 1",
            "go to desk 1",
            "put bowl 1 in/on desk 1",
        ],
    ),
}


@pytest.mark.parametrize("index", sorted(HAND_SOLUTIONS))
def test_each_task_type_is_won_by_a_hand_written_sequence(all_types_env, index):
    env = all_types_env
    task = env.task("train", index)
    assert task.task_type == TASK_TYPES[index]
    env.reset(task)
    goal, actions = HAND_SOLUTIONS[index]
    assert env.goal == goal
    for i, action in enumerate(actions):
        result = env.step(action)
        assert not result.invalid, (action, result.observation)
        assert result.done == result.won == (i == len(actions) - 1)
    assert result.reward == 1.0


def test_the_same_step_before_the_goal_state_does_not_win(all_types_env):
    env = all_types_env
    env.reset(env.task("train", 4))  # "put a hot bowl in desk", without heating it
    for action in ["go to shelf 1", "take bowl 1 from shelf 1", "go to desk 2", "put bowl 1 in/on desk 2"]:
        result = env.step(action)
    assert not result.done and result.reward == 0.0


def test_reset_is_deterministic_across_instances():
    a, b = HouseholdEnv(), HouseholdEnv()
    for split in HouseholdEnv.splits:
        for index in range(12):
            task = a.task(split, index)
            assert task == b.task(split, index)
            assert a.reset(task) == b.reset(task)
            assert a.admissible_actions() == b.admissible_actions()
            action = a.expert_action()
            assert a.step(action) == b.step(action)
            assert a.memory() == b.memory()


def test_resetting_again_restores_the_initial_state(all_types_env):
    env = all_types_env
    task = env.task("train", 3)
    first = env.reset(task)
    admissible = env.admissible_actions()
    env.step("go to countertop 1")
    assert env.reset(task) == first and env.admissible_actions() == admissible


def test_task_addressing_and_split_sizes():
    env = HouseholdEnv(HouseholdEnv.Config(eval_in_distribution_size=7, eval_out_of_distribution_size=9))
    assert env.num_tasks("train") is None
    assert env.num_tasks("eval_in_distribution") == 7 and env.num_tasks("eval_out_of_distribution") == 9
    task = env.task("eval_out_of_distribution", 2)
    assert task == Task("household", "eval_out_of_distribution", 2, task.task_type, task.seed)
    assert task.task_id == "household/eval_out_of_distribution/2"
    with pytest.raises(IndexError):
        env.task("eval_in_distribution", 7)
    with pytest.raises(ValueError):
        env.task("test", 0)
    assert env.task("train", 10**6).split == "train"  # unbounded


def test_task_types_are_round_robin_and_configurable():
    env = HouseholdEnv(HouseholdEnv.Config(task_types=["look_at_obj_in_light", "pick_two_obj_and_place"]))
    assert [env.task("train", i).task_type for i in range(4)] == [
        "look_at_obj_in_light",
        "pick_two_obj_and_place",
        "look_at_obj_in_light",
        "pick_two_obj_and_place",
    ]
    with pytest.raises(ValueError):
        HouseholdEnv(HouseholdEnv.Config(task_types=["make_coffee"]))


def test_split_seeds_are_disjoint():
    env = HouseholdEnv()
    seeds = {
        split: {env.task(split, i).seed for i in range(2000 if split == "train" else 60)}
        for split in env.splits
    }
    assert len(seeds["train"]) == 2000
    assert not seeds["train"] & seeds["eval_in_distribution"]
    assert not seeds["train"] & seeds["eval_out_of_distribution"]
    assert not seeds["eval_in_distribution"] & seeds["eval_out_of_distribution"]


def _texts_of_episode(env, task):
    texts = [env.reset(task), *env.admissible_actions()]
    while True:
        result = env.step(env.expert_action())
        texts += [result.observation, *env.admissible_actions()]
        if result.done:
            return " ".join(texts)


def test_out_of_distribution_names_never_appear_in_train_or_in_distribution(all_types_env):
    env = all_types_env
    reserved = OOD_OBJECT_KINDS | OOD_RECEPTACLE_KINDS
    for split, count in [("train", 300), ("eval_in_distribution", 60)]:
        for i in range(count):
            words = set(
                _texts_of_episode(env, env.task(split, i)).replace(",", " ").replace(".", " ").split()
            )
            assert not words & reserved, (split, i, words & reserved)


def test_out_of_distribution_tasks_use_reserved_objects_and_receptacles(all_types_env):
    env = all_types_env
    for i in range(60):
        intro = env.reset(env.task("eval_out_of_distribution", i))
        assert parse_goal(env.goal).object_kind in OOD_OBJECT_KINDS, env.goal
        assert any(f"a {kind} " in intro for kind in OOD_RECEPTACLE_KINDS), intro


def test_inadmissible_commands_do_nothing(all_types_env):
    env = all_types_env
    env.reset(env.task("train", 0))
    env.step("go to cabinet 2")
    before_snapshot, before_admissible, before_memory = env.snapshot(), env.admissible_actions(), env.memory()
    for bad in [
        "take bowl 1 from cabinet 2",
        "go to cabinet 2",
        "fly away",
        "",
        "put bowl 1 in/on cabinet 2",
        "heat bowl 1 with microwave 1",
        "go to fridge 7",
    ]:
        result = env.step(bad)
        assert (result.observation, result.invalid, result.reward) == ("Nothing happens.", True, 0.0)
        assert env.admissible_actions() == before_admissible and env.memory() == before_memory
    assert env.snapshot()[1] == before_snapshot[1]  # the world state itself


def test_commands_are_normalised_for_case_and_spaces(all_types_env):
    env = all_types_env
    env.reset(env.task("train", 0))
    assert not env.step("  Go to   cabinet 2 ").invalid


def test_snapshot_restore_replays_identically(all_types_env):
    env = all_types_env
    for index in range(6):
        env.reset(env.task("train", index))
        env.step(env.expert_action())
        env.step(env.expert_action())
        snap = env.snapshot()
        first = _continue_with_oracle(env)
        env.restore(snap)
        assert _continue_with_oracle(env) == first
        other = HouseholdEnv(env.config)
        other.restore(snap)  # into a fresh instance too
        assert _continue_with_oracle(other) == first


def _continue_with_oracle(env):
    record = []
    while True:
        record.append((env.admissible_actions(), env.memory()))
        action = env.expert_action()
        result = env.step(action)
        record.append((action, result))
        if result.done:
            return record


def test_episode_ends_unsuccessfully_at_max_steps():
    env = HouseholdEnv(HouseholdEnv.Config(max_steps=3))
    env.reset(env.task("train", 0))
    results = [env.step(a) for a in ["look", "inventory", "jump"]]
    assert [r.done for r in results] == [False, False, True]
    assert not results[-1].won and results[-1].reward == 0.0
    after = env.step("look")
    assert after.done and after.invalid and env.expert_action() is None


def test_protocol_surface():
    env = HouseholdEnv()
    assert isinstance(env, Environment) and env.name == "household"
    assert env.task_types == TASK_TYPES and env.max_steps == 20
    with pytest.raises(RuntimeError):
        env.step("look")
    intro = env.reset(env.task("train", 0))
    assert intro.startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.")
    assert intro.endswith(f"Your task is to: {env.goal}.")
    env.close()
