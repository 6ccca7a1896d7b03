"""HouseholdEnv.state_key: the world's state, equal however it was reached, changed by what changes it."""

from coevo.envs.household.env import HouseholdEnv


def _play(env, task, commands):
    env.reset(task)
    for command in commands:
        result = env.step(command)
        assert not result.invalid, command
    return env.state_key()


def test_same_state_by_two_orders_same_key_and_take_put_change_it(all_types_env):
    env = all_types_env
    task = env.task("train", 0)  # bowl 1 in the closed cabinet 2; drawer 1 closed (test_env's hand solution)
    start = _play(env, task, [])
    assert start is not None and hash(start) == hash(env.state_key())
    # open both, ending at drawer 1: cabinet first, or drawer first (and back to the drawer)
    first = _play(env, task, ["go to cabinet 2", "open cabinet 2", "go to drawer 1", "open drawer 1"])
    second = _play(env, task, ["go to drawer 1", "open drawer 1", "go to cabinet 2", "open cabinet 2",
                               "go to drawer 1"])
    assert first == second != start
    # steps and memory are not state: a look changes neither the world nor the key
    assert _play(env, task, ["go to cabinet 2", "open cabinet 2", "go to drawer 1", "open drawer 1", "look"]) == first
    # taking changes the state; putting it back restores it, whatever order the contents are in now
    at_cabinet = _play(env, task, ["go to cabinet 2", "open cabinet 2"])
    env.step("take bowl 1 from cabinet 2")
    holding = env.state_key()
    assert holding != at_cabinet
    env.step("put bowl 1 in/on cabinet 2")
    assert env.state_key() == at_cabinet
    # closing changes it too
    env.step("close cabinet 2")
    assert env.state_key() not in (at_cabinet, holding)


def test_state_key_before_reset_is_none_and_survives_restore(all_types_env):
    assert HouseholdEnv(all_types_env.config).state_key() is None
    env = all_types_env
    env.reset(env.task("train", 3))
    env.step(env.expert_action())
    snap, key = env.snapshot(), env.state_key()
    env.step(env.expert_action())
    env.restore(snap)
    assert env.state_key() == key
