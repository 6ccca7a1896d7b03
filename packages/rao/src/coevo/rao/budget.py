"""Step budgets and launch admission.

Every turn an agent takes costs one step: an environment action, a delegation or a malformed
reply (waiting for children costs nothing). ``per_agent``: each agent has its own
``agent_steps`` (default: its environment's ``max_steps``); ``shared``: the tree's agents draw
from one pool of ``tree_steps``. An agent with no step left ends (``out_of_steps``), so a child
that never finishes its sub-task still returns to its parent.

A launch is admitted goal by goal, in order; each refused goal gets a reason (counted per tree
in ``Tree.refusals``) and a line in the parent's next observation:
``disabled`` (flat agent), ``depth`` (the child would be deeper than ``max_depth``), ``empty``,
``loop`` (the goal of the agent itself or an ancestor: delegating the same goal forever is
impossible), ``breadth`` (beyond ``max_children``),
``nodes`` (the tree would exceed ``max_nodes``), ``budget`` (shared pool: every child needs at
least one step). Goals the environment cannot fork are refused later with ``fork``. The same goal
twice in one launch is allowed (two equal parts of a task, e.g. ``(3+4) * (3+4)``).
"""

from __future__ import annotations

import math

from coevo.rao.protocol import same_goal
from coevo.rao.settings import RecursionSettings
from coevo.rao.tree import Node, Tree


def steps_left(tree: Tree, node: Node, settings: RecursionSettings) -> int:
    """Turns ``node`` may still take."""
    if tree.shared_left is not None:
        return tree.shared_left
    limit = settings.budget.agent_steps or node.env.max_steps
    return max(0, limit - node.turns_taken)


def charge(tree: Tree, node: Node) -> None:
    """One turn of ``node``."""
    node.turns_taken += 1
    if tree.shared_left is not None:
        tree.shared_left -= 1


def admit(
    tree: Tree, node: Node, goals: tuple[str, ...] | list[str], settings: RecursionSettings
) -> tuple[list[str], list[tuple[str, str]]]:
    """``(admitted goals, [(refused goal, reason), ...])`` for a launch by ``node``."""
    if not settings.delegation.enabled:
        return [], [(g, "disabled") for g in goals]
    if node.depth + 1 > settings.budget.max_depth:
        return [], [(g, "depth") for g in goals]
    chain = [a.goal for a in tree.ancestors(node)] + [node.goal]
    room_nodes = settings.budget.max_nodes - len(tree.nodes)
    room_steps = tree.shared_left if tree.shared_left is not None else math.inf
    admitted: list[str] = []
    refused: list[tuple[str, str]] = []
    for goal in goals:
        if not goal:
            refused.append((goal, "empty"))
        elif any(same_goal(goal, g) for g in chain):
            refused.append((goal, "loop"))
        elif len(admitted) >= settings.delegation.max_children:
            refused.append((goal, "breadth"))
        elif len(admitted) >= room_nodes:
            refused.append((goal, "nodes"))
        elif len(admitted) >= room_steps:
            refused.append((goal, "budget"))
        else:
            admitted.append(goal)
    return admitted, refused
