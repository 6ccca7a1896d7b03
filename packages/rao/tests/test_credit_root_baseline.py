"""The RAO paper's credit options on hand-built trees: ``algo.baseline=root_loo``,
``algo.depth_weighting=inverse_frequency`` and ``algo.credit.propagate_root_success`` (values by hand)."""

import pytest

from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Task
from coevo.rao.config import RAOConfig
from coevo.rao.credit import CreditSettings, kept_trees, node_advantages, node_rewards
from coevo.rao.tree import Node, Tree

TASK = Task("rao_sums", "train", 0, "sum", 0)


def _tree(spec: list[tuple[int | None, int, bool]], group: int = 0) -> Tree:
    """``spec``: (parent, depth, won) per node, in index order."""
    tree = Tree(TASK, group_id=group)
    for index, (parent, depth, won) in enumerate(spec):
        tree.nodes.append(Node(index, parent, depth, f"goal {index}", None, "", Episode(TASK, 0, won=won)))
        if parent is not None:
            tree.nodes[parent].children.append(index)
    return tree


def _group() -> list[Tree]:
    """Three trees of task 0. A: root won, children C1 won and C2 lost. B: root lost, child won.
    C: root won, no children."""
    return [_tree([(None, 0, True), (0, 1, True), (0, 1, False)]), _tree([(None, 0, False), (0, 1, True)]),
            _tree([(None, 0, True)])]


def test_root_loo_subtracts_the_other_roots_mean_from_every_node():
    trees = _group()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    # A: root 1 + 0.5 * 1/2 = 1.25, C1 1, C2 0 | B: root 0 + 0.5 * 1/1 = 0.5, child 1 | C: root 1
    assert rewards == [[1.25, 1.0, 0.0], [0.5, 1.0], [1.0]]
    adv = node_advantages(trees, rewards, CreditSettings(c_del=0.5), baseline="root_loo")
    # baselines: A (0.5 + 1) / 2 = 0.75; B (1.25 + 1) / 2 = 1.125; C (1.25 + 0.5) / 2 = 0.875 — no std
    assert adv[0] == pytest.approx([0.5, 0.25, -0.75])
    assert adv[1] == pytest.approx([-0.625, -0.125])
    assert adv[2] == pytest.approx([0.125])
    assert kept_trees(trees, rewards, "root_loo") == [True, True, True]


def test_root_loo_ignores_the_estimator_std_and_depth_groups():
    trees = _group()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    plain = node_advantages(trees, rewards, CreditSettings(), baseline="root_loo")
    assert node_advantages(trees, rewards, CreditSettings(group_by="tree"), "grpo", True, baseline="root_loo") == plain


def test_a_task_whose_roots_all_tie_is_dropped_and_others_stay():
    # task 0: both roots won with the same bonus (1 + 0.5 * 1 = 1.5), children differ -> dropped whole;
    # task 1: roots 1 and 0 -> kept; task 2: a single tree (no other root) -> dropped
    tied = [_tree([(None, 0, True), (0, 1, True)], 0), _tree([(None, 0, True), (0, 1, True), (0, 1, True)], 0)]
    split = [_tree([(None, 0, True)], 1), _tree([(None, 0, False)], 1)]
    lone = [_tree([(None, 0, True), (0, 1, False)], 2)]
    trees = tied + split + lone
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    assert [row[0] for row in rewards] == [1.5, 1.5, 1.0, 0.0, 1.0]
    assert kept_trees(trees, rewards, "root_loo") == [False, False, True, True, False]
    assert kept_trees(trees, rewards, "group") == [True] * 5
    adv = node_advantages(trees, rewards, CreditSettings(c_del=0.5), baseline="root_loo")
    assert adv == [[0.0, 0.0], [0.0, 0.0, 0.0], [1.0], [-1.0], [0.0, 0.0]]


def test_inverse_frequency_weights_each_depth_level_equally():
    trees = _group()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    adv = node_advantages(trees, rewards, CreditSettings(c_del=0.5), baseline="root_loo",
                          depth_weighting="inverse_frequency")
    # 6 nodes: 3 at depth 0, 3 at depth 1; L = 2 levels: w_0 = 6 / (2 * 3) = 1, w_1 = 1 (balanced: no change)
    assert adv[0] == pytest.approx([0.5, 0.25, -0.75])
    # add a tree D of task 0 with four children (root won, children all lost): 11 nodes, 4 roots, 7 children
    trees.append(_tree([(None, 0, True)] + [(0, 1, False)] * 4))
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    assert rewards[3] == [1.0, 0.0, 0.0, 0.0, 0.0]
    adv = node_advantages(trees, rewards, CreditSettings(c_del=0.5), baseline="root_loo",
                          depth_weighting="inverse_frequency")
    # w_0 = 11 / (2 * 4) = 1.375, w_1 = 11 / (2 * 7) = 0.7857; roots: 1.25, 0.5, 1, 1 (sum 3.75)
    # A: baseline (3.75 - 1.25) / 3 = 0.8333 -> root (1.25 - 0.8333) * 1.375 = 0.5729, C1 (1 - 0.8333) * 0.7857
    w0, w1 = 11 / 8, 11 / 14
    assert adv[0] == pytest.approx([(1.25 - 2.5 / 3) * w0, (1 - 2.5 / 3) * w1, (0 - 2.5 / 3) * w1])
    # D: baseline (3.75 - 1) / 3 = 0.9167 -> root 0.0833 * 1.375, children -0.9167 * 0.7857
    assert adv[3] == pytest.approx([(1 - 2.75 / 3) * w0] + [-2.75 / 3 * w1] * 4)
    weights = [w0 if node.depth == 0 else w1 for tree in trees for node in tree.nodes]
    assert sum(weights) == pytest.approx(11)  # the weights average 1 over the nodes (platoon's normalisation)


def test_inverse_frequency_counts_only_kept_nodes_and_works_with_the_group_baseline():
    # task 0 tied (dropped): its 3 nodes are not counted; task 1: roots 1, 0 and one child of the winner
    trees = [_tree([(None, 0, True)], 0), _tree([(None, 0, True), (0, 1, False)], 0),
             _tree([(None, 0, True), (0, 1, True)], 1), _tree([(None, 0, False)], 1)]
    rewards = node_rewards(trees, CreditSettings(c_del=0.0), invalid_penalty=0.0)
    adv = node_advantages(trees, rewards, CreditSettings(c_del=0.0), baseline="root_loo",
                          depth_weighting="inverse_frequency")
    # kept: 3 nodes, 2 roots + 1 child, L = 2: w_0 = 3 / 4, w_1 = 3 / 2; root 1 - 0 = 1, 0 - 1 = -1, child 1 - 0
    assert adv == [[0.0], [0.0, 0.0], pytest.approx([0.75, 1.5]), pytest.approx([-0.75])]
    # group baseline (rloo over (task, depth)): every tree kept, 6 nodes, 4 roots + 2 children: w_0 = 6 / 8
    group = node_advantages(trees, rewards, CreditSettings(), "rloo", False, depth_weighting="inverse_frequency")
    # task 1 depth 0: 1 - 0 = 1 and 0 - 1 = -1, times 0.75; task 1 depth 1: one node alone -> 0
    assert group[2] == pytest.approx([0.75, 0.0]) and group[3] == pytest.approx([-0.75])


def test_propagate_root_success_gives_every_node_the_roots_outcome_and_the_bonus_follows():
    trees = _group()
    trees[0].nodes[2].episode.num_invalid = 2  # A's C2 took 2 invalid turns: its own penalty stays
    credit = CreditSettings(c_del=0.5, propagate_root_success=True)
    rewards = node_rewards(trees, credit, invalid_penalty=0.1)
    # A won: root 1 + 0.5 * 2/2 = 1.5 (C2 now counts as won), C1 1, C2 1 - 0.2 = 0.8
    # B lost: root 0 + 0.5 * 0/1 = 0 (its child's own success no longer counts), child 0 | C: 1
    assert sum(rewards, []) == pytest.approx([1.5, 1.0, 0.8, 0.0, 0.0, 1.0])
    # without propagation: A's root 1 + 0.5 * 1/2 = 1.25, C2 0 - 0.2; B's root 0.5, child 1
    assert sum(node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.1), []) == pytest.approx(
        [1.25, 1.0, -0.2, 0.5, 1.0, 1.0])


def test_defaults_keep_the_existing_credit():
    config = RAOConfig()
    assert (config.baseline, config.depth_weighting, config.credit.propagate_root_success) == ("group", "none", False)
    trees = _group()
    rewards = node_rewards(trees, CreditSettings(c_del=0.5), invalid_penalty=0.0)
    assert node_advantages(trees, rewards, CreditSettings(), "rloo", False) == node_advantages(
        trees, rewards, CreditSettings(), "rloo", False, baseline="group", depth_weighting="none")


@pytest.mark.parametrize(("field", "value", "key"), [("baseline", "root", "algo.baseline"),
                                                     ("depth_weighting", "inverse", "algo.depth_weighting")])
def test_bad_values_name_the_key(field, value, key):
    from omegaconf import OmegaConf

    from coevo.core.config import ConfigError, validate
    with pytest.raises(ConfigError, match=key):
        validate(OmegaConf.create({field: value}), RAOConfig, "algo")
    with pytest.raises(ValueError, match="algo.baseline must be one of"):
        node_advantages(_group(), [[0.0] * 3, [0.0] * 2, [0.0]], CreditSettings(), baseline=value)
