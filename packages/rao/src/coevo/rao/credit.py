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

The RAO paper's credit (its authors' platoon, TextCraft-Synth), as options beside those groups:

- ``algo.baseline=root_loo``: every node of tree i is measured against the other trees' roots,
  A_v = r_v − mean_{j≠i} R_j, R_j the root reward (with its bonus and penalty) of tree j of the
  same task; no std normalisation (``algo.advantage``, ``algo.scale_by_std`` and ``group_by`` do
  not apply). A task whose roots all tie (or that has one tree) is dropped: its nodes get 0 and
  ``kept_trees`` leaves them out of the update (platoon: zero-variance groups filtered).
- ``algo.depth_weighting=inverse_frequency``: a depth-d node's advantage is scaled by 1 / n_d, n_d
  the number of (kept) nodes at depth d over the batch, normalised as platoon does so the weights
  average 1 over the nodes: w_d = N / (L · n_d), N nodes, L depth levels; each level then weighs
  N / L in all, and a wide level of children no longer swamps the roots.
- ``algo.credit.propagate_root_success`` (platoon's name): every node's own success is the root's
  outcome; the delegation bonus then counts the children by that outcome too, so a node that
  delegated gets R + c_del·R, a leaf R (the invalid-turn penalty stays its own).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import torch

from coevo.core import registry
from coevo.core.fields import bounded, check_instance, choice
from coevo.rao.tree import Node, Tree

GROUP_BY = ("depth", "tree")
BASELINES = ("group", "root_loo")  # group: algo.advantage over the groups above | root_loo: the roots' leave-one-out
DEPTH_WEIGHTINGS = ("none", "inverse_frequency")


@dataclass
class CreditSettings:
    c_del: float = bounded(0.5, ge=0)  # delegation bonus per unit share of direct children that succeeded
    root_mix: float = bounded(0.0, ge=0, le=1)  # λ: 0 local rewards, 1 every node gets the root's outcome
    depth_discount: float = bounded(1.0, gt=0, le=1)  # γ: advantage of a depth-d node times γ^d
    group_by: str = choice("depth", GROUP_BY)  # depth: groups = (root task, depth) | tree: (root task)
    # share of child nodes (depth >= 1) whose sequences are trained (random, seeded)
    child_keep: float = bounded(1.0, gt=0, le=1)
    # every node's own success is the root's outcome (platoon's propagate_root_success; the bonus follows)
    propagate_root_success: bool = False

    def __post_init__(self):
        check_instance(self, "algo.credit")


def node_success(tree: Tree, node: Node, propagate_root: bool = False) -> float:
    """1.0 if the node's own (sub-)task is done: verified by its environment, else the root's outcome
    (always the root's outcome with ``propagate_root``)."""
    if node.parent is None or (node.verifiable and not propagate_root):
        return float(node.won)
    return float(tree.won)


def local_reward(tree: Tree, node: Node, c_del: float, invalid_penalty: float, propagate_root: bool = False) -> float:
    reward = node_success(tree, node, propagate_root) - invalid_penalty * node.episode.num_invalid
    if node.children:
        won = sum(node_success(tree, tree.nodes[c], propagate_root) for c in node.children)
        reward += c_del * won / len(node.children)
    return reward


def node_rewards(trees: list[Tree], credit: CreditSettings, invalid_penalty: float) -> list[list[float]]:
    """``rewards[t][v]``: the reward of node v of tree t (also stored as its ``episode.reward``)."""
    out = []
    for tree in trees:
        root = float(tree.won)
        row = []
        for node in tree.nodes:
            own = local_reward(tree, node, credit.c_del, invalid_penalty, credit.propagate_root_success)
            r = (1.0 - credit.root_mix) * own + credit.root_mix * root
            node.episode.reward = r
            row.append(r)
        out.append(row)
    return out


def node_advantages(
    trees: list[Tree], rewards: list[list[float]], credit: CreditSettings, estimator: str = "grpo",
    scale_by_std: bool = True, baseline: str = "group", depth_weighting: str = "none",
) -> list[list[float]]:
    """``advantages[t][v]``: group-relative advantage of node v of tree t (see the module docstring);
    ``estimator``: a ``registry.advantages`` name (``algo.advantage``), called with the node rewards
    (``baseline="group"``); ``baseline="root_loo"``: the roots' leave-one-out mean instead."""
    if baseline not in BASELINES or depth_weighting not in DEPTH_WEIGHTINGS:
        raise ValueError(f"algo.baseline must be one of {list(BASELINES)} and algo.depth_weighting one of "
                         f"{list(DEPTH_WEIGHTINGS)}; got {baseline!r}, {depth_weighting!r}")
    if baseline == "root_loo":
        out = root_loo_advantages(trees, rewards)
    else:
        out = _group_advantages(trees, rewards, credit, estimator, scale_by_std)
    if depth_weighting == "inverse_frequency":
        weights = inverse_frequency_weights(trees, kept_trees(trees, rewards, baseline))
        out = [[a * w for a, w in zip(row, wrow)] for row, wrow in zip(out, weights)]
    gamma = credit.depth_discount
    if gamma != 1.0:
        out = [[a * gamma ** node.depth for a, node in zip(row, tree.nodes)] for row, tree in zip(out, trees)]
    return out


def kept_trees(trees: list[Tree], rewards: list[list[float]], baseline: str = "group") -> list[bool]:
    """Per tree: whether its nodes enter the update. ``root_loo`` drops every tree of a task whose
    roots' rewards all tie (a single tree included: it has no other roots); ``group`` keeps all."""
    if baseline != "root_loo":
        return [True] * len(trees)
    roots = _root_rewards(trees, rewards)
    return [len(roots[t.group_id]) > 1 and min(roots[t.group_id]) != max(roots[t.group_id]) for t in trees]


def root_loo_advantages(trees: list[Tree], rewards: list[list[float]]) -> list[list[float]]:
    """``r_v − mean of the other trees' root rewards`` (same task); 0 for every node of a dropped task."""
    roots = _root_rewards(trees, rewards)
    out = []
    for tree, row, keep in zip(trees, rewards, kept_trees(trees, rewards, "root_loo")):
        others = roots[tree.group_id]
        baseline = (math.fsum(others) - row[0]) / (len(others) - 1) if keep else 0.0
        out.append([r - baseline if keep else 0.0 for r in row])
    return out


def inverse_frequency_weights(trees: list[Tree], kept: list[bool]) -> list[list[float]]:
    """``N / (L · n_d)`` for a kept node at depth d (n_d kept nodes there, N in all, L depths); 0 otherwise."""
    counts = Counter(node.depth for tree, keep in zip(trees, kept) if keep for node in tree.nodes)
    total, levels = sum(counts.values()), len(counts)
    return [[total / (levels * counts[node.depth]) if keep else 0.0 for node in tree.nodes]
            for tree, keep in zip(trees, kept)]


def _root_rewards(trees: list[Tree], rewards: list[list[float]]) -> dict[int, list[float]]:
    """Task (``group_id``) → its trees' root rewards."""
    roots: dict[int, list[float]] = {}
    for tree, row in zip(trees, rewards):
        roots.setdefault(tree.group_id, []).append(row[0])
    return roots


def _group_advantages(trees: list[Tree], rewards: list[list[float]], credit: CreditSettings, estimator: str,
                      scale_by_std: bool) -> list[list[float]]:
    keys, flat = {}, []
    for tree, row in zip(trees, rewards):
        for node, reward in zip(tree.nodes, row):
            key = (tree.group_id, node.depth if credit.group_by == "depth" else 0)
            keys.setdefault(key, len(keys))
            flat.append((keys[key], reward))
    if not flat:
        return [[] for _ in trees]
    group_ids = torch.tensor([g for g, _ in flat])  # [N]
    values = torch.tensor([r for _, r in flat], dtype=torch.float64)  # [N] the rewards' own precision
    adv = registry.advantages.get(estimator)(values, group_ids, scale_by_std=scale_by_std)  # [N]
    out, k = [], 0
    for tree in trees:
        out.append(adv[k : k + len(tree.nodes)].tolist())
        k += len(tree.nodes)
    return out
