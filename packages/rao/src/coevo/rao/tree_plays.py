"""What an RAO step plays with the policy, as core's ``BatchPlayer``: ``group_size`` recursion trees of every task.

Each task's group is played at its size (a size mixture: task ``k`` of the run at ``sizes.train[k %
n]``), every tree seeded by the batch index, so batch ``k`` played with the weights of step ``v`` is
the same trees in the trainer's process (synchronous rollouts) and in a Ray worker
(``rollout.async.enabled``; the player is shipped there). A finished tree no longer needs its
nodes' environments (credit, samples and statistics read the episodes), so the player drops them:
the trees travel back from a worker, and into a checkpoint, as plain records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from coevo.core.agent.batch_player import BatchPlayer, batch_seed
from coevo.core.agent.groups import expand_groups, seeded_generator
from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.env.protocol import Environment, Task
from coevo.rao.evaluation import play_trees
from coevo.rao.settings import RecursionSettings
from coevo.rao.tree import Tree


@dataclass
class TreePlays:
    """One step batch's trees (``group_size`` per task, task-major) and the wall time they took."""

    trees: list[Tree] = field(default_factory=list)
    seconds: float = 0.0


class TreePlayer(BatchPlayer):
    def __init__(self, factories: list[Callable[[], Environment]], group_size: int, seed: int, tokenizer,
                 agent: AgentSettings, recursion: RecursionSettings):
        super().__init__(factories[0], group_size, seed)
        self.factories = factories  # one per training size (a single one without a size mixture)
        self.tokenizer = tokenizer
        self.agent = agent
        self.recursion = recursion
        self._size_envs: list[list[Environment]] = [[] for _ in factories]

    def __getstate__(self) -> dict:
        return {**super().__getstate__(), "_size_envs": [[] for _ in self.factories]}

    def samples(self, played: TreePlays) -> int:
        return sum(len(tree.nodes) for tree in played.trees)  # every node's episode is trained

    def play(self, engine, loop: AgentLoop, tasks: list[Task], index: int) -> TreePlays:
        return self.play_trees(engine, tasks, index, self.recursion)

    def play_trees(self, engine, tasks: list[Task], index: int, recursion: RecursionSettings,
                   salt: int = 0) -> TreePlays:
        """``group_size`` trees of every task under ``recursion`` (the flat agent's: delegation off),
        seeded by the batch ``index`` (and ``salt``)."""
        generator = seeded_generator(batch_seed(self.seed, index) + salt)
        expanded, group_ids = expand_groups(tasks, self.group_size)
        trees, seconds = play_trees(engine, self.tokenizer, self.agent, recursion, expanded,
                                    self.sized_envs(len(tasks), index), group_ids, generator=generator)
        for tree in trees:
            for node in tree.nodes:
                node.env = None  # played out: the pooled roots are reset by the next batch, forks are dropped
        return TreePlays(trees, seconds)

    def sized_envs(self, num_tasks: int, index: int) -> list[Environment]:
        """Environments for ``num_tasks`` x ``group_size`` trees, each task's group at its size."""
        n, g = len(self.factories), self.group_size
        sizes = [(index * num_tasks + i) % n for i in range(num_tasks)]
        used = [0] * n
        envs = []
        for size in sizes:
            pool = self._size_envs[size]
            while len(pool) < used[size] + g:
                pool.append(self.factories[size]())
            envs += pool[used[size] : used[size] + g]
            used[size] += g
        return envs
