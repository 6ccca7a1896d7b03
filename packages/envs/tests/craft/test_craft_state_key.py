"""CraftEnv.state_key: goal and inventory, equal for the same inventory however it was gathered."""

from coevo.envs.craft.env import CraftEnv


def _chest(book) -> CraftEnv:
    env = CraftEnv(CraftEnv.Config())
    env.reset(env.task("train", 0))
    env._begin(book, 1, "chest")
    return env


def test_same_inventory_by_two_orders_same_key(chest_book):
    assert CraftEnv(CraftEnv.Config()).state_key() is None  # before any reset
    a, b = _chest(chest_book), _chest(chest_book)
    start = a.state_key()
    for command in ("get 1 iron", "get 2 log"):
        a.step(command)
    for command in ("get 1 log", "inventory", "get 1 iron", "get 1 log"):  # another order, a look, other counts
        b.step(command)
    assert a.state_key() == b.state_key() != start
    a.step("craft plank")  # a craft changes the inventory, and the key
    assert a.state_key() != b.state_key()
    a.step("dance")  # an invalid action changes nothing
    b.step("craft plank")
    assert a.state_key() == b.state_key()
