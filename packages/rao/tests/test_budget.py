"""Launch admission: every refusal reason, per-agent and shared step budgets."""

from rao_sums_env import SumsConfig, SumsEnv

from coevo.core.agent.types import Episode
from coevo.rao.budget import admit, charge, steps_left
from coevo.rao.settings import BudgetSettings, DelegationSettings, RecursionSettings
from coevo.rao.tree import Node, Tree


def _tree(shared: int | None = None, depth_of_last: int = 0) -> tuple[Tree, Node]:
    env = SumsEnv(SumsConfig(length=8))
    task = env.task("train", 0)
    env.reset(task)
    tree = Tree(task, 0, shared_left=shared)
    tree.nodes.append(Node(0, None, 0, "add 1 2 3 4", env, "", Episode(task, 0)))
    parent = tree.nodes[0]
    for depth in range(1, depth_of_last + 1):
        node = Node(depth, depth - 1, depth, f"goal {depth}", env, "", Episode(task, 0))
        tree.nodes.append(node)
        parent.children.append(node.index)
        parent = node
    return tree, parent


def _settings(**budget) -> RecursionSettings:
    return RecursionSettings(DelegationSettings(max_children=2), BudgetSettings(**budget))


def test_admits_in_order_and_refuses_each_bad_goal_with_its_reason():
    tree, node = _tree(depth_of_last=1)  # node "goal 1" under root "add 1 2 3 4"
    admitted, refused = admit(tree, node, ("a", "", "ADD 1 2 3 4", "goal 1", "a", "c"), _settings())
    assert admitted == ["a", "a"]  # two equal parts of a task are two children
    assert refused == [("", "empty"), ("ADD 1 2 3 4", "loop"), ("goal 1", "loop"), ("c", "breadth")]


def test_depth_cap_refuses_the_whole_launch():
    tree, node = _tree(depth_of_last=2)
    assert admit(tree, node, ("a", "b"), _settings(max_depth=3)) == (["a", "b"], [])
    assert admit(tree, node, ("a", "b"), _settings(max_depth=2)) == ([], [("a", "depth"), ("b", "depth")])


def test_node_cap_and_shared_budget_limit_the_children():
    tree, node = _tree()
    assert admit(tree, node, ("a", "b"), _settings(max_nodes=2)) == (["a"], [("b", "nodes")])
    shared, root = _tree(shared=1)
    assert admit(shared, root, ("a", "b"), _settings(mode="shared")) == (["a"], [("b", "budget")])


def test_disabled_delegation_refuses_everything():
    tree, node = _tree()
    flat = RecursionSettings(DelegationSettings(enabled=False))
    assert admit(tree, node, ("a",), flat) == ([], [("a", "disabled")])
    assert not flat.can_delegate


def test_steps_left_per_agent_and_shared():
    tree, node = _tree()
    assert steps_left(tree, node, _settings()) == node.env.max_steps == 3  # null agent_steps: the env's
    assert steps_left(tree, node, _settings(agent_steps=5)) == 5
    charge(tree, node)
    assert steps_left(tree, node, _settings(agent_steps=5)) == 4 and node.turns_taken == 1
    shared, root = _tree(shared=10)
    charge(shared, root)
    assert steps_left(shared, root, _settings(mode="shared")) == 9
