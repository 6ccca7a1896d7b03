"""Statistics of a batch of recursion trees (logged as ``train/…`` and printed in the report).

Per tree, averaged over the batch: ``success`` (root won), ``tree/nodes``, ``tree/depth``
(deepest node), ``tree/breadth`` (most agents at one depth), ``tree/delegating`` (share of trees
whose root launched at least one child), ``tree/children_per_parent`` (mean children of the
agents that launched, per tree), ``delegation/success`` (share of children whose sub-task
succeeded, over all children of the batch), ``delegation/unfinished`` (share of children that ran
out of steps or context), ``refused/<reason>`` and ``refused/all`` (refused launches per tree),
``malformed`` (delegation-grammar errors per tree), ``invalid/env_errors`` (exceptions the
environments raised on the tree's agents' output, per tree), ``env_steps`` and ``agent_turns`` per tree,
``context_overflow`` (share of trees with an agent whose prompt no longer fit),
``seconds_per_tree`` (batch wall-clock / trees) and ``tree_latency`` (mean seconds until a tree
was done).
"""

from __future__ import annotations

from collections import Counter

from coevo.core.env.guard import ENV_ERRORS_METRIC
from coevo.rao.credit import node_success
from coevo.rao.messages import REFUSALS
from coevo.rao.tree import Tree


def tree_stats(trees: list[Tree], wall_seconds: float | None = None) -> dict[str, float]:
    if not trees:
        return {}
    n = len(trees)
    children = [(t, t.nodes[c]) for t in trees for node in t.nodes for c in node.children]
    parents = [[node for node in t.nodes if node.children] for t in trees]
    refusals = Counter()
    for t in trees:
        refusals.update(t.refusals)
    stats = {
        "success": sum(t.won for t in trees) / n,
        "tree/nodes": sum(len(t.nodes) for t in trees) / n,
        "tree/depth": sum(t.depth for t in trees) / n,
        "tree/depth_max": float(max(t.depth for t in trees)),
        "tree/breadth": sum(max(Counter(node.depth for node in t.nodes).values()) for t in trees) / n,
        "tree/delegating": sum(bool(t.root.children) for t in trees) / n,
        "tree/children_per_parent": sum(sum(len(p.children) for p in ps) / len(ps) for ps in parents if ps) / n,
        "delegation/children": len(children) / n,
        "delegation/success": (sum(node_success(t, c) for t, c in children) / len(children)) if children else 0.0,
        "delegation/unfinished": (sum(c.end in ("out_of_steps", "context_overflow") for _, c in children)
                                  / len(children)) if children else 0.0,
        "refused/all": sum(refusals.values()) / n,
        "malformed": sum(t.malformed for t in trees) / n,
        ENV_ERRORS_METRIC: sum(node.episode.env_errors for t in trees for node in t.nodes) / n,
        "env_steps": sum(t.env_steps for t in trees) / n,
        "agent_turns": sum(t.turns for t in trees) / n,
        "context_overflow": sum(any(node.episode.context_overflow for node in t.nodes) for t in trees) / n,
        "tree_latency": sum(t.seconds for t in trees) / n,
    }
    for kind in REFUSALS:
        stats[f"refused/{kind}"] = refusals.get(kind, 0) / n
    if wall_seconds is not None:
        stats["seconds_per_tree"] = wall_seconds / n
    return stats


def success_by_type(trees: list[Tree], task_types: tuple[str, ...] = ()) -> dict[str, float]:
    """``success/<type>`` for the task types present, in the environment's order."""
    present = {t.task.task_type for t in trees}
    ordered = [k for k in task_types if k in present] + sorted(present - set(task_types))
    return {f"success/{k}": sum(t.won for t in trees if t.task.task_type == k) / sum(t.task.task_type == k
                                                                                   for t in trees)
            for k in ordered}
