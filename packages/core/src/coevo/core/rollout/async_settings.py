"""``rollout.async.*`` and ``rollout.ray.*``: rollouts on Ray workers beside training.

The two nodes sit in the ``rollout`` group beside the engine's own settings (``rollout=hf
rollout.async.enabled=true``); ``split_rollout_node`` takes them out before the engine's Config is
validated (``async`` is a Python keyword: no dataclass field can carry its name) and validates them
here, with one message naming the key. Ray is an optional dependency (``coevo-core[async]``).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

from omegaconf import DictConfig, OmegaConf

from coevo.core.config import ConfigError, validate
from coevo.core.fields import bounded, choice, path

INSTALL = "pip install 'coevo-core[async]'"
PUSHES = ("trainable", "full")


@dataclass
class AsyncRolloutSettings:
    # true: episodes are played by rollout workers (Ray actors, each with its own engine) while the
    # trainer updates; false: played in the trainer's process before each update (synchronous)
    enabled: bool = False
    # the most optimizer steps a sample's weights may lag the weights it is trained into (0: the
    # synchronous algorithm, played in another process)
    max_staleness: int = bounded(1, ge=0)
    workers: int = bounded(1, ge=1)  # rollout workers (Ray actors), each with a copy of the policy
    # torch threads of each worker (0: as many as the trainer's)
    threads: int = bounded(0, ge=0)
    # what goes to the workers after a step: trainable (the parameters the optimizer changes: only the
    # LoRA adapter with model.lora.enabled=true) | full (the whole state dict)
    push: str = choice("trainable", PUSHES)


@dataclass
class RaySettings:
    # "" starts a local Ray instance (ray.init()); "auto" or "host:port" joins a running cluster
    address: str = path("", empty="a local instance")
    connect_timeout_s: float = bounded(30.0, gt=0)  # an address that does not answer is refused after this


@dataclass
class RolloutPlacement:
    """Where the episodes are played: the validated ``rollout.async`` and ``rollout.ray`` nodes."""

    asynchronous: AsyncRolloutSettings = field(default_factory=AsyncRolloutSettings)
    ray: RaySettings = field(default_factory=RaySettings)


def split_rollout_node(node: DictConfig | dict | None) -> tuple[dict, RolloutPlacement]:
    """``(the engine's node, the placement)``: ``rollout.async`` and ``rollout.ray`` validated and removed."""
    plain = OmegaConf.to_container(OmegaConf.create(node), resolve=True) if node is not None else {"name": "hf"}
    placement = RolloutPlacement(validate(plain.pop("async", None), AsyncRolloutSettings, "rollout.async"),
                                 validate(plain.pop("ray", None), RaySettings, "rollout.ray"))
    return plain, placement


def ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


def require_ray(placement: RolloutPlacement) -> None:
    """``rollout.async.enabled=true`` without Ray: one line naming the extra to install."""
    if placement.asynchronous.enabled and not ray_installed():
        raise ConfigError(f"config error at 'rollout.async.enabled': asynchronous rollouts run on Ray workers, and "
                          f"Ray is not installed: {INSTALL} (or set rollout.async.enabled=false)")
