"""The contract between the CLI, the callbacks and an algorithm, declared once.

``coevo-train`` looks a class up in ``registry.algorithms``, builds it with its ``Config`` and an
``AlgorithmContext`` and hands the module to Lightning; the CLI, the generic callbacks and the
training snapshots then use the members below. ``Algorithm`` is what every registered algorithm
provides (``coevo.core.algos.rollout_module.RolloutModule`` provides all of it but ``Config``:
subclass it). ``registry.algorithms`` checks a class at registration (``check_algorithm``) and names
the member it lacks, instead of a run failing on it hours later.

The optional capabilities are protocols of their own, tested with ``isinstance``: an algorithm may
have them, and a callback may also meet a plain ``LightningModule`` (a test's, the warm start's SFT):

- ``ExpertSourceProvider``: the algorithm's own warm-start demonstrations (RSIPO, RAO),
- ``SnapshotExtras``: state beyond weights, optimizers, RNGs and data that a rollback restores (EVOHEIR),
- ``Records``, ``StepMetrics``, ``HoldsPolicy``: what the callbacks use of an algorithm when present.

This module imports nothing from core (it sits with the registry in core's lowest layer).
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable


class AlgorithmContractError(TypeError):
    """A registered algorithm class lacks a member of ``Algorithm``."""


class Algorithm(Protocol):
    """What the CLI and the callbacks use of every registered algorithm."""

    Config: ClassVar[type]  # the dataclass of its ``algo.*`` settings (build_component validates against it)
    plays_async: ClassVar[bool]  # Ray workers may play its batches beside training (rollout.async.enabled)
    full_weight_forwards: ClassVar[bool]  # no-grad forwards of the full weights on each rank (needs hf under FSDP)

    # set by the constructor, so not checked at registration
    policy: Any  # the trained model (the FSDP unit when sharded)
    agent: Any  # the multi-turn agent loop (coevo.core.agent.loop.AgentLoop) over its rollout engine
    step_metrics: dict[str, float]  # what this step recorded (metrics.jsonl)
    async_rollouts: Any  # the Ray workers' driver, or None

    def __init__(self, config: Any, context: Any) -> None: ...

    @classmethod
    def async_refusal(cls, config: Any) -> tuple[str, str] | None:
        """``(key, reason)`` when ``config`` cannot play beside training; ``None`` when it can."""

    def envs(self, n: int) -> list:
        """``n`` environments of the run's kind (reused across steps)."""

    def record(self, metrics: dict[str, float], reduce: bool = True) -> None:
        """Log ``metrics`` as ``train/<key>`` for this step."""

    def full_policy(self) -> Any:
        """The policy with its full weights on this rank (evaluation after training)."""

    def use_async_rollouts(self, rollouts: Any) -> None:
        """Take this step's episodes from ``rollouts`` (the Ray workers) instead of playing them."""


# The members a class must have before it is built (the rest are set by its constructor).
CLASS_MEMBERS = ("Config", "plays_async", "full_weight_forwards", "async_refusal", "envs", "record", "full_policy",
                 "use_async_rollouts")


def check_algorithm(name: str, cls: Any) -> None:
    """Raise ``AlgorithmContractError`` naming the members of ``Algorithm`` that ``cls`` lacks."""
    missing = [member for member in CLASS_MEMBERS if not hasattr(cls, member)]
    if missing:
        where = f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls)}"
        raise AlgorithmContractError(
            f"algorithm '{name}' ({where}) lacks {', '.join(repr(m) for m in missing)} of the algorithm contract "
            f"(coevo.core.algorithm_contract.Algorithm); subclass coevo.core.algos.rollout_module.RolloutModule, "
            f"which provides all of it but Config")


@runtime_checkable
class ExpertSourceProvider(Protocol):
    """An algorithm class with its own warm-start demonstrations (``None``: the environment's expert)."""

    def expert_source(self, config: Any) -> Any: ...  # a classmethod on the algorithm


@runtime_checkable
class SnapshotExtras(Protocol):
    """A module with state of its own that a training snapshot keeps and a rollback puts back."""

    def snapshot_extra(self) -> dict: ...

    def restore_extra(self, state: dict) -> None: ...


@runtime_checkable
class Records(Protocol):
    """A module that logs a callback's metrics as its own step's (``Algorithm.record``)."""

    def record(self, metrics: dict[str, float], reduce: bool = True) -> None: ...


@runtime_checkable
class StepMetrics(Protocol):
    """A module that keeps what this step recorded (``Algorithm.step_metrics``)."""

    step_metrics: dict[str, float]


@runtime_checkable
class HoldsPolicy(Protocol):
    """A module that trains a policy model of its own (``Algorithm.policy``), not itself."""

    policy: Any
