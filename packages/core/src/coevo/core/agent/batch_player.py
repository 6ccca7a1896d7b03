"""What is played for one step batch, as one object: the trainer plays it itself, or a rollout worker does.

An algorithm's step first plays (episodes, and whatever else its update reads that comes from the
policy sampling: RSIPO's written skills and their replays), then learns from what was played. A
``BatchPlayer`` is the first half: built once by the algorithm (``RolloutModule.batch_player``),
picklable, so that ``AsyncRollouts`` ships it to each Ray worker, which calls ``play`` with the
weight version the batch is played with. The same object plays in the trainer's process when
rollouts are synchronous, so both modes run one code path: batch ``k`` played with the weights of
step ``v`` is the same in either process (its seeds come from the run seed and ``index``).

``play`` returns the batch's record (dataclasses of lists, numbers, strings and tensors: a
checkpoint keeps finished records as plain data, ``coevo.core.state.plain``); ``samples`` counts its
episodes (what is dropped when the record comes back too stale).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coevo.core.agent.groups import play_groups
from coevo.core.agent.loop import AgentLoop
from coevo.core.env.protocol import Environment, Task
from coevo.core.seeds import rank_seed, step_seed


def batch_seed(seed: int, index: int) -> int:
    """Batch ``index``'s group seed in a run seeded ``seed`` (this process's rank's stream; a worker
    plays for the one trainer process, rank 0)."""
    return rank_seed(step_seed(seed, index))


class BatchPlayer:
    """The plays of one step batch. ``play`` runs with an engine that holds the batch's weights."""

    def __init__(self, make_env: Callable[[], Environment], group_size: int, seed: int):
        self.make_env = make_env
        self.group_size = group_size
        self.seed = seed
        self._envs: list[Environment] = []

    def envs(self, n: int) -> list[Environment]:
        """``n`` environments of this player's own (made once, reset by every episode)."""
        while len(self._envs) < n:
            self._envs.append(self.make_env())
        return self._envs[:n]

    def share_envs(self, envs: list[Environment]) -> None:
        """Play in ``envs`` (a list the caller fills too: the trainer's own environments)."""
        self._envs = envs

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_envs": []}  # environments are rebuilt where the player runs

    def play(self, engine, loop: AgentLoop, tasks: list[Task], index: int) -> Any:
        raise NotImplementedError

    def samples(self, played: Any) -> int:
        """The episodes in ``played``."""
        return len(played)


class GroupPlayer(BatchPlayer):
    """``group_size`` episodes of every task (GRPO and the policy-gradient family): a list of episodes."""

    def play(self, engine, loop: AgentLoop, tasks: list[Task], index: int) -> list:
        g = self.group_size
        return play_groups(loop, tasks, g, self.envs(len(tasks) * g), batch_seed(self.seed, index))
