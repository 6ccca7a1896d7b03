"""Node rewards and group-relative advantages on a hand-built pair of trees (values by hand)."""

import pytest

from coevo.core import registry
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Task
from coevo.rao.credit import CreditSettings, node_advantages, node_rewards
from coevo.rao.tree import Node, Tree

TASK = Task("rao_sums", "train", 0, "sum", 0)


def _tree(spec: list[tuple[int | None, int, bool, int]]) -> Tree:
    """``spec``: (parent, depth, won, invalid turns) per node, in index order."""
    tree = Tree(TASK, group_id=0)
    for index, (parent, depth, won, invalid) in enumerate(spec):
        episode = Episode(TASK, 0, won=won, num_invalid=invalid)
        tree.nodes.append(Node(index, parent, depth, f"goal {index}", None, "", episode))
        if parent is not None:
            tree.nodes[parent].children.append(index)
    return tree


def _trees() -> list[Tree]:
    # tree 1: root R won (1 invalid turn), children C1 won, C2 lost; C1's child G1 won
    # tree 2: root R' lost, its child C1' lost
    first = _tree([(None, 0, True, 1), (0, 1, True, 0), (0, 1, False, 0), (1, 2, True, 0)])
    second = _tree([(None, 0, False, 0), (0, 1, False, 0)])
    return [first, second]


def test_local_rewards_add_the_delegation_bonus_of_direct_children_only():
    rewards = node_rewards(_trees(), CreditSettings(c_del=0.5), invalid_penalty=0.1)
    # R: 1 + 0.5 * 1/2 - 0.1 = 1.15 (G1's success is C1's bonus, not R's); C1: 1 + 0.5 * 1/1 = 1.5
    assert sum(rewards, []) == pytest.approx([1.15, 1.5, 0.0, 1.0, 0.0, 0.0])


def test_leave_one_out_baseline_within_task_and_depth_with_depth_discount():
    trees = _trees()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.1)
    credit = CreditSettings(c_del=0.5, depth_discount=0.5)
    adv = node_advantages(trees, rewards, credit, estimator="rloo", scale_by_std=False)
    # depth 0: R 1.15 - 0 = 1.15, R' 0 - 1.15; depth 1 (1.5, 0, 0): C1 1.5 - 0 = 1.5, C2 and C1'
    # 0 - (1.5 + 0)/2 = -0.75, times 0.5; depth 2: G1 alone, 0
    assert sum(adv, []) == pytest.approx([1.15, 0.75, -0.375, 0.0, -1.15, -0.375])


def test_pooling_the_whole_tree_group():
    trees = _trees()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.1)
    adv = node_advantages(trees, rewards, CreditSettings(group_by="tree"), estimator="rloo", scale_by_std=False)
    # one group of six: R 1.15 - (1.5 + 0 + 1 + 0 + 0)/5 = 0.65
    assert adv[0][0] == pytest.approx(0.65)


def test_grpo_normalisation_and_the_team_reward():
    trees = _trees()
    team = node_rewards(trees, CreditSettings(root_mix=1.0), invalid_penalty=0.1)
    assert team == [[1.0] * 4, [0.0] * 2]
    adv = node_advantages(trees, team, CreditSettings(), estimator="grpo")
    # depth 0: (1, 0) → ±1/std = ±0.7071; depth 1: (1, 1, 0) mean 2/3, std 0.5774 → 0.577, -1.155
    assert adv[0][:2] == pytest.approx([0.7071, 0.5774], abs=1e-3)
    assert adv[1] == pytest.approx([-0.7071, -1.1547], abs=1e-3)


def test_a_child_whose_sub_goal_cannot_be_checked_gets_the_root_outcome():
    trees = _trees()
    trees[0].nodes[2].verifiable = False  # C2 lost, but its env cannot check: the root won → success
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    assert rewards[0][:3] == pytest.approx([1.5, 1.5, 1.0])  # R's bonus now counts both children


def test_bad_credit_settings_name_the_key():
    with pytest.raises(ValueError, match="algo.credit.group_by"):
        CreditSettings(group_by="level")
    with pytest.raises(ValueError, match="algo.credit.root_mix"):
        CreditSettings(root_mix=2.0)


@pytest.mark.parametrize("estimator", ["grpo", "rloo"])
@pytest.mark.parametrize("root_mix", [0.0, 0.3, 0.7])
def test_tied_nodes_get_exactly_zero_advantage(estimator, root_mix):
    # G = 8 copies of tree 1: the roots' rewards are equal non-binary values (1 + 0.5 * 1/2 - 0.1 =
    # 1.15, mixed with λ = 0.3: 0.7 * 1.15 + 0.3 = 1.105), as are G1's at depth 2; their float32
    # mean used to miss by an ulp and push every node of the group in one direction. Depth 1
    # (C1 1.5, C2 0 in every tree) is a real spread: equal rewards, equal advantages.
    trees = [_trees()[0] for _ in range(8)]
    credit = CreditSettings(c_del=0.5, root_mix=root_mix)
    rewards = node_rewards(trees, credit, invalid_penalty=0.1)
    adv = node_advantages(trees, rewards, credit, estimator=estimator, scale_by_std=True)
    assert all(row[0] == 0.0 and row[3] == 0.0 for row in adv)
    assert len({row[1] for row in adv}) == 1 and len({row[2] for row in adv}) == 1 and adv[0][1] > 0 > adv[0][2]


def test_node_advantages_use_the_estimator_algo_advantage_names():
    # a spy estimator registered for the test: node_advantages calls the registry's, by name
    calls = []

    def spy(rewards, group_ids, eps=1e-6, scale_by_std=True):
        calls.append((group_ids.tolist(), scale_by_std))
        return rewards * 2.0

    trees = _trees()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.1)
    registry.advantages.register("spy_rao_adv", spy)
    try:
        adv = node_advantages(trees, rewards, CreditSettings(), estimator="spy_rao_adv", scale_by_std=False)
    finally:
        registry.advantages.unregister("spy_rao_adv")
    # groups (task, depth): tree 1's R, C1, C2, G1 and tree 2's R', C1' (both trees are group 0)
    assert calls == [([0, 1, 1, 2, 0, 1], False)]
    assert sum(adv, []) == pytest.approx([2 * r for r in sum(rewards, [])])


def test_gigpo_gives_the_episode_level_grpo_values_per_node():
    trees = _trees()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.1)
    assert node_advantages(trees, rewards, CreditSettings(), estimator="gigpo") == node_advantages(
        trees, rewards, CreditSettings(), estimator="grpo")
