"""The craft environment: tasks, the depth knob, commands, the oracle, fork and join."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.protocol import ForkError
from coevo.envs.craft.env import CraftEnv
from coevo.envs.expert_play import play_expert

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _env(**knobs) -> CraftEnv:
    return CraftEnv(CraftEnv.Config(**knobs))


def _chest(env: CraftEnv, book) -> CraftEnv:
    env.reset(env.task("train", 0))
    env._begin(book, 1, "chest")
    return env


def test_same_task_same_book():
    a, b = _env(), _env()
    for split in SPLITS:
        assert a.reset(a.task(split, 4)) == b.reset(b.task(split, 4))
        assert a.book == b.book
    assert a.reset(a.task("train", 0)) != a.reset(a.task("train", 1))


def test_depth_knob_train_and_out_of_distribution():
    env = _env(depth=2)
    for index in range(10):
        env.reset(env.task("train", index))
        assert max(env.book.levels.values()) == 2
        env.reset(env.task("eval_out_of_distribution", index))
        assert max(env.book.levels.values()) == 4
    env = _env(depth=2, ood_depth=3)
    env.reset(env.task("eval_out_of_distribution", 0))
    assert max(env.book.levels.values()) == 3
    with pytest.raises(ValueError, match="ood_depth must be larger"):
        _env(depth=3, ood_depth=3)


@pytest.mark.parametrize("recursive", [True, False], ids=["recursive", "flat"])
def test_oracle_wins_every_task(recursive):
    env = _env()
    tasks = [env.task("train", i) for i in range(80)] + [env.task(s, i) for s in SPLITS[1:] for i in range(30)]
    plays = [play_expert(env, t, recursive=recursive) for t in tasks]
    assert [t.task_id for t, p in zip(tasks, plays) if not p.won] == []
    if recursive:
        assert all(p.children_won == p.children > 0 for p in plays)


def test_playing_a_chest_by_hand(chest_book):
    env = _chest(_env(max_steps=0), chest_book)
    assert env.goal == "craft 1 chest" and env.max_steps == 2 * 6 + 5
    assert env.admissible_actions()[:3] == ["inventory", "get 1 iron", "get 2 iron"]
    assert not any(a.startswith("craft") for a in env.admissible_actions())
    assert env.step("get 1 iron").observation == "Got 1 iron."
    env.step("get 2 log")
    assert env.step("craft plank").observation == "Crafted 2 plank."
    assert "craft plank" in env.admissible_actions() and "craft stick" in env.admissible_actions()
    env.step("craft plank")
    env.step("craft stick")
    assert env.step("inventory").observation == "Inventory: 1 iron, 2 plank, 1 stick."
    assert env.memory() == "inventory: 1 iron, 2 plank, 1 stick"
    result = env.step("craft chest")
    assert result.won and result.done and result.reward == 1.0 and env.inventory == {"chest": 1}


@pytest.mark.parametrize(
    ("action", "reason"),
    [("get 1 plank", "'plank' is not a base item (crafted; craft it)"), ("get 1 gold", "not an item of your recipes"),
     ("get 6 log", "from 1 to 5"), ("get two log", "from 1 to 5"), ("craft chest", "needs 1 iron, 2 plank, 1 stick"),
     ("craft table", "no recipe makes 'table'"), ("dance", "unknown command"), ("", "unknown command")],
)
def test_invalid_actions_change_nothing_but_count(chest_book, action, reason):
    env = _chest(_env(), chest_book)
    result = env.step(action)
    assert result.invalid and result.observation == env.invalid_observation and not result.done
    assert reason in result.info["error"] and env.inventory == {} and env.steps_taken == 1


def test_fork_and_join_move_the_child_inventory(chest_book):
    env = _chest(_env(), chest_book)
    env.step("get 1 iron")
    assert env.expert_delegations() == ["craft 2 plank", "craft 1 stick"]
    child, first = env.fork("craft 1 stick")
    assert child.goal == "craft 1 stick" and first.startswith("Goal: craft 1 stick.\n")
    assert [r.item for r in child.book.recipes] == ["plank", "stick"] and child.inventory == {}
    for action in ("get 1 log", "craft plank", "craft stick"):
        result = child.step(action)
    assert result.won and env.inventory == {"iron": 1}
    assert env.join(child) == "received 1 stick"
    assert env.inventory == {"iron": 1, "stick": 1} and child.inventory == {}
    assert env.expert_delegations() == ["craft 2 plank"]


def test_a_child_that_gave_up_still_hands_over_what_it_holds(chest_book):
    env = _chest(_env(), chest_book)
    child, _ = env.fork("craft 2 plank")
    child.step("get 3 log")
    assert not child.won
    assert env.join(child) == "received 3 log"
    idle, _ = env.fork("craft 2 plank")
    assert env.join(idle) == "received nothing"
    with pytest.raises(ValueError, match="already joined"):
        env.join(idle)


@pytest.mark.parametrize(
    ("goal", "reason"),
    [("", "empty goal; expected 'craft <n> <item>'"), ("please craft", "malformed goal"),
     ("craft 1 chest", "your own goal"), ("craft 2 log", "base item"), ("craft 9 stick", "at most 1 stick"),
     ("craft 1 table", "unknown item")],
)
def test_refused_goals_say_why(chest_book, goal, reason):
    env = _chest(_env(), chest_book)
    with pytest.raises(ForkError, match=reason):
        env.fork(goal)


def test_a_won_episode_forks_nothing(chest_book):
    env = _chest(_env(), chest_book)
    for action in ("get 1 iron", "get 2 log", "craft plank", "craft plank", "craft stick", "craft chest"):
        env.step(action)
    with pytest.raises(ForkError, match="episode is over"):
        env.fork("craft 1 stick")


@settings(deadline=None, max_examples=60)
@given(index=st.integers(0, 100), moves=st.lists(st.integers(0, 60), max_size=10))
def test_stepping_children_never_changes_the_parent(index, moves):
    env = _env()
    env.reset(env.task("train", index))
    env.step(env.expert_action())
    before = env.snapshot()
    for goal in env.expert_delegations():
        child, _ = env.fork(goal)
        for move in moves:
            actions = child.admissible_actions()
            child.step(actions[move % len(actions)])
        for sub in child.expert_delegations():
            grandchild, _ = child.fork(sub)
            play_expert(grandchild)
            child.join(grandchild)
    assert env.snapshot() == before


def test_snapshot_and_restore(chest_book):
    env = _chest(_env(), chest_book)
    env.step("get 2 log")
    saved = env.snapshot()
    env.step("craft plank")
    env.restore(saved)
    assert env.inventory == {"log": 2} and env.steps_taken == 1
    env.step("craft plank")
    env.restore(saved)
    assert env.inventory == {"log": 2}  # the snapshot is not shared with the live state
