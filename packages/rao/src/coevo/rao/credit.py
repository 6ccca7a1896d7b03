"""Credit assignment over recursion trees: node rewards and group-relative node advantages.

Local reward of node v (``local_reward``)::

    r_v = s_v + c_del * (children of v that succeeded / children of v)  - invalid_penalty * invalid_v

where s_v is v's own success — its (sub-)task won, as verified by its environment; for a child
whose environment cannot check its sub-goal (``goal_verifiable = False`` on the forked
environment) the root's outcome instead. The bonus counts v's *direct* children only (a child's
own success, never its bonus), so bonuses do not compound up the tree; a node without children
gets no bonus. ``root_mix`` λ blends in the root's outcome R: r = (1-λ) r_v + λ R; λ = 1
propagates the root's success to every node (the "team reward").

Advantages: nodes are grouped by root task (``group_id``: the G trees of one task) and, with
``group_by=depth`` (default), by depth, so roots compete with roots and depth-1 children with
depth-1 children; ``group_by=tree`` pools all nodes of the G trees. Within a group, the estimator
``algo.advantage`` names in core's ``registry.advantages`` (the one place it is chosen, as for
GRPO and RSIPO): ``grpo`` (mean/std), ``rloo`` (leave-one-out baseline), or any registered one.
``gigpo`` gives its episode-level part here, i.e. ``grpo``'s values over the node groups: a node is
one value, and GiGPO's step level (per-turn advantages from anchor states shared across a group's
episodes) is not built over recursion trees. Then ``depth_discount`` γ scales a depth-d node's
advantage by γ^d.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core import registry
from coevo.core.fields import bounded, check_instance, choice
from coevo.rao.tree import Node, Tree

GROUP_BY = ("depth", "tree")


@dataclass
class CreditSettings:
    c_del: float = bounded(0.5, ge=0)  # delegation bonus per unit share of direct children that succeeded
    root_mix: float = bounded(0.0, ge=0, le=1)  # λ: 0 local rewards, 1 every node gets the root's outcome
    depth_discount: float = bounded(1.0, gt=0, le=1)  # γ: advantage of a depth-d node times γ^d
    group_by: str = choice("depth", GROUP_BY)  # depth: groups = (root task, depth) | tree: (root task)
    # share of child nodes (depth >= 1) whose sequences are trained (random, seeded)
    child_keep: float = bounded(1.0, gt=0, le=1)

    def __post_init__(self):
        check_instance(self, "algo.credit")


def node_success(tree: Tree, node: Node) -> float:
    """1.0 if the node's own (sub-)task is done: verified by its environment, else the root's outcome."""
    if node.parent is None or node.verifiable:
        return float(node.won)
    return float(tree.won)


def local_reward(tree: Tree, node: Node, c_del: float, invalid_penalty: float) -> float:
    reward = node_success(tree, node) - invalid_penalty * node.episode.num_invalid
    if node.children:
        won = sum(node_success(tree, tree.nodes[c]) for c in node.children)
        reward += c_del * won / len(node.children)
    return reward


def node_rewards(trees: list[Tree], credit: CreditSettings, invalid_penalty: float) -> list[list[float]]:
    """``rewards[t][v]``: the reward of node v of tree t (also stored as its ``episode.reward``)."""
    out = []
    for tree in trees:
        root = float(tree.won)
        row = []
        for node in tree.nodes:
            r = (1.0 - credit.root_mix) * local_reward(tree, node, credit.c_del, invalid_penalty) + credit.root_mix * root
            node.episode.reward = r
            row.append(r)
        out.append(row)
    return out


def node_advantages(
    trees: list[Tree], rewards: list[list[float]], credit: CreditSettings, estimator: str = "grpo",
    scale_by_std: bool = True,
) -> list[list[float]]:
    """``advantages[t][v]``: group-relative advantage of node v of tree t (see the module docstring);
    ``estimator``: a ``registry.advantages`` name (``algo.advantage``), called with the node rewards."""
    keys, flat, depths = {}, [], []
    for tree, row in zip(trees, rewards):
        for node, reward in zip(tree.nodes, row):
            key = (tree.group_id, node.depth if credit.group_by == "depth" else 0)
            keys.setdefault(key, len(keys))
            flat.append((keys[key], reward))
            depths.append(node.depth)
    if not flat:
        return [[] for _ in trees]
    group_ids = torch.tensor([g for g, _ in flat])  # [N]
    values = torch.tensor([r for _, r in flat], dtype=torch.float64)  # [N] the rewards' own precision
    adv = registry.advantages.get(estimator)(values, group_ids, scale_by_std=scale_by_std)  # [N]
    adv = adv * credit.depth_discount ** torch.tensor(depths, dtype=torch.float32)  # [N]
    out, k = [], 0
    for tree in trees:
        out.append(adv[k : k + len(tree.nodes)].tolist())
        k += len(tree.nodes)
    return out
