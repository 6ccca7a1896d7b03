"""Play a whole task with a recursive environment's oracle, delegating as it would.

``play_expert(env, task)`` resets ``env`` to ``task`` and plays until the episode ends. At each
point it asks ``env.expert_delegations()``: when that lists sub-goals, it forks them all
(siblings see the same parent state, as concurrent children would), solves each child the
same way, joins them in order, and asks again; otherwise it takes ``env.expert_action()``.
With ``recursive=False`` (or below ``max_depth``) it never delegates: the flat oracle.
The result counts the tree: nodes, depth, and primitive steps over all nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core.env.protocol import Task

_MAX_ITERATIONS = 100_000  # a guard against an oracle that stops making progress


@dataclass
class ExpertPlay:
    won: bool  # the root episode was won
    steps: int  # primitive actions over every node of the tree
    nodes: int  # agents in the tree (1: no delegation)
    depth: int  # the deepest child's level (0: the root acted alone)
    children_won: int  # children whose own episode was won
    children: int  # children forked (nodes - 1)


def play_expert(env, task: Task | None = None, *, recursive: bool = True, max_depth: int = 32) -> ExpertPlay:
    """Play ``task`` (or the episode ``env`` is in) to the end with the oracle."""
    if task is not None:
        env.reset(task)
    return _solve(env, recursive, 0, max_depth)


def _solve(env, recursive: bool, level: int, max_depth: int) -> ExpertPlay:
    play = ExpertPlay(won=False, steps=0, nodes=1, depth=level, children_won=0, children=0)
    for _ in range(_MAX_ITERATIONS):
        if env.done:
            break
        goals = env.expert_delegations() if recursive and level < max_depth else []
        if goals:
            children = [env.fork(goal)[0] for goal in goals]
            for child in children:
                sub = _solve(child, recursive, level + 1, max_depth)
                env.join(child)
                play.steps += sub.steps
                play.nodes += sub.nodes
                play.depth = max(play.depth, sub.depth)
                play.children += 1 + sub.children
                play.children_won += int(sub.won) + sub.children_won
            continue
        action = env.expert_action()
        if action is None:
            break
        env.step(action)
        play.steps += 1
    else:
        raise RuntimeError(f"the {env.name} oracle made no progress in {_MAX_ITERATIONS} iterations")
    play.won = env.won
    return play
