"""What the train CLI hands to an algorithm: policy, tokenizer, environments and agent settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from coevo.core.agent.loop import AgentSettings
from coevo.core.env.protocol import Environment


@dataclass
class AlgorithmContext:
    model: torch.nn.Module  # the policy (a transformers causal LM, possibly peft-wrapped)
    tokenizer: Any
    make_env: Callable[[], Environment]  # a fresh environment instance per call
    task_types: tuple[str, ...]  # the environment's task types, for per-type metrics
    agent: AgentSettings
    engine_name: str = "hf"  # registry name of the rollout engine
    engine_config: Any = None  # its validated config
    seed: int = 0
