"""Flatten recursion trees into training samples: every node's own trajectory, agent tokens only.

A node's trajectory is its turns; each turn becomes one sequence exactly as the policy saw it —
the prompt (mask 0: first message, kept history, children's reports, budget line) and the reply
(mask 1, end-of-turn token included) — carrying the node's advantage, through core's
``episode_samples`` (so masks and choice samples are GRPO's). With ``child_keep < 1`` a seeded
random share of the child nodes (depth >= 1) is kept; roots are always kept.
"""

from __future__ import annotations

import torch

from coevo.core.algos.batching import Sample
from coevo.core.algos.choice_batching import ChoiceSample
from coevo.core.algos.grpo import episode_samples
from coevo.rao.tree import Tree


def kept_nodes(trees: list[Tree], child_keep: float, generator: torch.Generator | None = None) -> list[tuple[int, int]]:
    """``(tree, node)`` indices whose sequences are trained."""
    kept = []
    for t, tree in enumerate(trees):
        for node in tree.nodes:
            if node.depth == 0 or child_keep >= 1.0 or float(torch.rand((), generator=generator)) < child_keep:
                kept.append((t, node.index))
    return kept


def tree_samples(
    trees: list[Tree], advantages: list[list[float]], choice_loss: str = "tokens",
    child_keep: float = 1.0, generator: torch.Generator | None = None,
) -> list[Sample | ChoiceSample]:
    """The training samples of the kept nodes' turns, each with its node's advantage."""
    kept = kept_nodes(trees, child_keep, generator)
    episodes = [trees[t].nodes[v].episode for t, v in kept]
    values = torch.tensor([advantages[t][v] for t, v in kept], dtype=torch.float32)  # [nodes kept]
    return episode_samples(episodes, values, choice_loss)
