"""A rollout worker: its own copy of the policy, its own engine and environments, in its own process.

``AsyncRollouts`` runs it as a Ray actor. It keeps the weight versions it was sent (the newest
``keep`` of them), and plays a batch with the version it is asked for through the algorithm's
``BatchPlayer`` (``coevo.core.agent.batch_player``), the object the trainer's process plays with
when rollouts are synchronous, so a batch played here with the weights of step ``v`` equals the
batch the synchronous algorithm plays after step ``v``. Every result carries that version, the
player's record (episodes with the engine's token log-probs in their turns), its episode count and
the global RNG state the play left (the trainer adopts it, so that its random stream is the
synchronous one).
"""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from coevo.core import registry
from coevo.core.agent.batch_player import BatchPlayer
from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.env.protocol import Task


class StaleVersionError(RuntimeError):
    """A play asked for weights the worker was never sent, or has already dropped."""


class RolloutWorker:
    def __init__(self, model: torch.nn.Module, tokenizer, player: BatchPlayer, agent: AgentSettings,
                 engine_name: str, engine_config: Any, threads: int, keep: int):
        torch.set_num_threads(threads)
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.player = player
        self.engine = registry.rollout_engines.get(engine_name)(engine_config, self.model, tokenizer)
        self.agent = AgentLoop(self.engine, tokenizer, agent)
        self.keep = keep
        self.versions: dict[int, dict[str, torch.Tensor]] = {}
        self.loaded: int | None = None  # the version in self.model

    def set_weights(self, version: int, state: dict[str, torch.Tensor]) -> int:
        """Keep ``state`` as weight version ``version`` (dropping all but the newest ``keep``)."""
        self.versions[version] = state
        for old in sorted(self.versions)[: -self.keep]:
            del self.versions[old]
        return version

    def play(self, index: int, tasks: list[Task], version: int) -> dict:
        """Batch ``index`` (``tasks``) played with weight version ``version``: ``{index, version, played,
        samples, rng_state, seconds}``."""
        if version not in self.versions:
            raise StaleVersionError(f"batch {index} asks for weight version {version}; this worker holds "
                                    f"{sorted(self.versions)}")
        start = time.perf_counter()
        if self.loaded != version:
            missing = set(self.versions[version]) - set(self.model.state_dict())
            if missing:
                raise KeyError(f"weight version {version} names {len(missing)} tensors this worker's model lacks, "
                               f"e.g. {sorted(missing)[:3]}")
            # a full state dict, or only the trainable parameters (the rest never changes)
            self.model.load_state_dict(self.versions[version], strict=False)
            self.loaded = version
        played = self.player.play(self.engine, self.agent, tasks, index)
        return {"index": index, "version": version, "played": played, "samples": self.player.samples(played),
                "rng_state": torch.get_rng_state(), "seconds": time.perf_counter() - start}

    def versions_held(self) -> list[int]:
        return sorted(self.versions)

    def pid(self) -> int:
        """This worker's process id (a test kills it)."""
        return os.getpid()
