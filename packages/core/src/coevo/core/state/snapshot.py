"""Snapshots of a training run's full state, for commit/rollback (HEIRCOMMIT, EVOHEIR branches).

A snapshot holds everything the next training steps depend on:

- the trainable weights (all weights under full fine-tuning, the adapters under LoRA; frozen
  weights cannot change, so they are not copied),
- every optimizer's state (e.g. AdamW moments and step counts) and every LR scheduler's state,
- the Python, NumPy and torch (CPU and every CUDA device) RNG states,
- the data position (the rollout data module's cursor) and the algorithm's own extra state
  (``module.snapshot_extra()`` / ``module.restore_extra()`` when it has them:
  ``coevo.core.algorithm_contract.SnapshotExtras``).

``restore_snapshot`` puts all of it back, so the steps that follow a rollback are bit-identical to
the steps a run that never made the excursion would take. Lightning's ``global_step`` is *not*
rolled back: it counts the optimizer steps actually spent, including discarded ones.
Tensors are copied to the CPU, so a snapshot never holds accelerator memory.

``snapshot_state`` / ``snapshot_from_state`` turn a snapshot into plain containers of tensors,
numbers and strings (what ``torch.load(weights_only=True)`` accepts) and back, so a callback can
keep its root snapshot in a Lightning checkpoint (HEIRCOMMIT's root survives ``resume=``).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from coevo.core.algorithm_contract import SnapshotExtras


@dataclass
class TrainingSnapshot:
    weights: dict[str, torch.Tensor]  # trainable parameter name -> CPU copy
    optimizers: list[dict]
    schedulers: list[dict]
    rng: dict[str, Any]
    data_state: dict | None = None  # the data module's state_dict (its cursor)
    extra: dict = field(default_factory=dict)  # algorithm-specific state


def capture_rng() -> dict[str, Any]:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _numpy_state_plain(state: tuple) -> dict:
    """``np.random.get_state()`` as plain values (its key array becomes a tensor)."""
    name, keys, pos, has_gauss, cached = state
    return {"name": name, "keys": torch.from_numpy(np.asarray(keys, dtype=np.int64)), "pos": int(pos),
            "has_gauss": int(has_gauss), "cached": float(cached)}


def _numpy_state_tuple(plain: dict) -> tuple:
    keys = plain["keys"].numpy().astype(np.uint32)
    return plain["name"], keys, plain["pos"], plain["has_gauss"], plain["cached"]


def rng_state_plain(rng: dict[str, Any]) -> dict[str, Any]:
    """``capture_rng()``'s result in plain containers (checkpoint-safe)."""
    version, internal, gauss = rng["python"]
    plain = {"python": [version, list(internal), gauss], "numpy": _numpy_state_plain(rng["numpy"]),
             "torch": rng["torch"].clone()}
    if "cuda" in rng:
        plain["cuda"] = [t.clone() for t in rng["cuda"]]
    return plain


def rng_state_from_plain(plain: dict[str, Any]) -> dict[str, Any]:
    version, internal, gauss = plain["python"]
    rng = {"python": (version, tuple(internal), gauss), "numpy": _numpy_state_tuple(plain["numpy"]),
           "torch": plain["torch"]}
    if "cuda" in plain:
        rng["cuda"] = list(plain["cuda"])
    return rng


def snapshot_state(snapshot: TrainingSnapshot) -> dict:
    """The snapshot as plain containers (loadable with ``torch.load(weights_only=True)``)."""
    return {"weights": dict(snapshot.weights), "optimizers": snapshot.optimizers, "schedulers": snapshot.schedulers,
            "rng": rng_state_plain(snapshot.rng), "data_state": snapshot.data_state, "extra": snapshot.extra}


def snapshot_from_state(state: dict) -> TrainingSnapshot:
    """The inverse of ``snapshot_state``."""
    return TrainingSnapshot(weights=dict(state["weights"]), optimizers=list(state["optimizers"]),
                            schedulers=list(state["schedulers"]), rng=rng_state_from_plain(state["rng"]),
                            data_state=state["data_state"], extra=dict(state["extra"]))


def _to_cpu(obj: Any) -> Any:
    """A deep copy of a (nested) state dict with every tensor cloned to the CPU."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, dict):
        return {k: _to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(_to_cpu(v) for v in obj)
    return copy.deepcopy(obj)


def trainable_weights(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {name: p.detach().to("cpu", copy=True) for name, p in model.named_parameters() if p.requires_grad}


def _optimizers(trainer) -> list:
    return list(trainer.optimizers) if trainer is not None else []


def _schedulers(trainer) -> list:
    return [config.scheduler for config in trainer.lr_scheduler_configs] if trainer is not None else []


def take_snapshot(model: torch.nn.Module, trainer=None, module=None) -> TrainingSnapshot:
    """Capture ``model``'s trainable weights and, when given, the trainer's optimizers, schedulers,
    data position and the module's extra state, plus all RNG states."""
    datamodule = getattr(trainer, "datamodule", None) if trainer is not None else None
    extra = module.snapshot_extra() if isinstance(module, SnapshotExtras) else {}
    return TrainingSnapshot(
        weights=trainable_weights(model),
        optimizers=[_to_cpu(opt.state_dict()) for opt in _optimizers(trainer)],
        schedulers=[copy.deepcopy(s.state_dict()) for s in _schedulers(trainer)],
        rng=capture_rng(),
        data_state=copy.deepcopy(datamodule.state_dict()) if datamodule is not None else None,
        extra=copy.deepcopy(extra),
    )


def restore_snapshot(snapshot: TrainingSnapshot, model: torch.nn.Module, trainer=None, module=None) -> None:
    """Put ``model`` (and the trainer's optimizers, schedulers, data position, the module's extra
    state and the RNGs) back exactly as they were when ``snapshot`` was taken."""
    params = dict(model.named_parameters())
    missing = [name for name in snapshot.weights if name not in params]
    if missing:
        raise ValueError(f"snapshot holds weights the model does not have: {missing[:3]}")
    with torch.no_grad():
        for name, value in snapshot.weights.items():
            params[name].copy_(value.to(params[name].device))
    optimizers, schedulers = _optimizers(trainer), _schedulers(trainer)
    if len(optimizers) != len(snapshot.optimizers) or len(schedulers) != len(snapshot.schedulers):
        raise ValueError("the trainer's optimizers/schedulers differ from the snapshot's")
    for opt, state in zip(optimizers, snapshot.optimizers):
        opt.load_state_dict(copy.deepcopy(state))  # load_state_dict moves tensors to the params' device
    for sched, state in zip(schedulers, snapshot.schedulers):
        sched.load_state_dict(copy.deepcopy(state))
    datamodule = getattr(trainer, "datamodule", None) if trainer is not None else None
    if datamodule is not None and snapshot.data_state is not None:
        datamodule.load_state_dict(copy.deepcopy(snapshot.data_state))
    if isinstance(module, SnapshotExtras):
        module.restore_extra(copy.deepcopy(snapshot.extra))
    restore_rng(snapshot.rng)
