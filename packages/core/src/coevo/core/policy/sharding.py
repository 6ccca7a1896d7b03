"""FSDP around the policy alone, not around the whole LightningModule (``trainer=fsdp``).

Left to itself, Lightning's ``FSDPStrategy`` wraps the LightningModule and runs ``training_step``
as the root unit's forward. Our algorithms optimise manually: they call ``manual_backward`` once per
micro-batch *inside* ``training_step``, i.e. inside that root forward, which FSDP cannot do
("Expects BACKWARD_PRE or BACKWARD_POST state but got HandleTrainingState.FORWARD"; Lightning
issues #19626 and #19685). ``shard_policy`` (called from ``configure_model``) therefore wraps the
policy model itself, with the strategy's settings (decoder-layer units, sharding, mixed precision,
CPU offload, ``use_orig_params``): Lightning then leaves the LightningModule unwrapped and still
adds activation checkpointing to the decoder layers, and each log-prob forward is a complete root
forward whose backward follows it.

Rollouts call the model's ``generate``, which runs the inner model and not the root's forward, so
``initialise_root`` runs FSDP's lazy root initialisation first (else the first decoder-layer unit
called would make itself the root), and ``shard_policy`` makes every unit cast its own inputs
(Lightning's mixed-precision settings with ``cast_forward_inputs``): the root's own parameters
(embeddings, final norm, LM head) stay in float32 outside the root's forward.
"""

from __future__ import annotations

import dataclasses

import torch

from coevo.core import distributed as dist


def is_sharded(model: torch.nn.Module) -> bool:
    from torch.distributed.fsdp import FullyShardedDataParallel

    return isinstance(model, FullyShardedDataParallel)


def sharded_over_ranks(model: torch.nn.Module) -> bool:
    """``model`` is split over several processes: its forwards, gathers and clipping are collective."""
    return is_sharded(model) and dist.world_size() > 1


def unwrap_sharded(model: torch.nn.Module) -> torch.nn.Module:
    """The model inside an FSDP unit (``model`` itself when not wrapped)."""
    return model.module if is_sharded(model) else model


def shard_policy(model: torch.nn.Module, strategy) -> torch.nn.Module:
    """``model`` inside a root FSDP unit built from ``strategy`` (a Lightning ``FSDPStrategy``);
    any other strategy, or a model already wrapped: ``model`` unchanged."""
    from lightning.pytorch.strategies import FSDPStrategy

    if not isinstance(strategy, FSDPStrategy) or is_sharded(model):
        return model
    wrapped = _wrap(model, strategy)
    strategy.kwargs.pop("auto_wrap_policy", None)  # applied; Lightning would warn that it is ignored
    return wrapped


def shard_frozen(model: torch.nn.Module, strategy) -> torch.nn.Module:
    """A frozen model (e.g. the KL reference copy) sharded with the policy's settings, so that each
    rank holds 1/N of it; its forwards are collective like the policy's. Call before ``shard_policy``
    (which consumes the strategy's wrap policy)."""
    return _wrap(model, strategy) if not is_sharded(model) else model


def _wrap(model: torch.nn.Module, strategy) -> torch.nn.Module:
    from torch.distributed.fsdp import FullyShardedDataParallel

    device = strategy.root_device
    precision = strategy.mixed_precision_config  # Lightning's, from trainer.precision
    if precision is not None:  # every unit casts its inputs: rollouts bypass the root's forward
        precision = dataclasses.replace(precision, cast_forward_inputs=True)
    return FullyShardedDataParallel(
        model,
        cpu_offload=strategy.cpu_offload,
        mixed_precision=precision,
        sharding_strategy=strategy.sharding_strategy,
        device_id=device if device.type == "cpu" else device.index,  # cpu: the gloo test of this path
        **strategy.kwargs,
    )


def clip_grad_norm(model: torch.nn.Module, limit: float) -> torch.Tensor:
    """Clip ``model``'s gradients to a total norm of ``limit`` (``<= 0``: no clipping) and return the
    norm before clipping: over every rank's shards when sharded (FSDP's own, collective), else over
    this process's trainable parameters."""
    limit = limit if limit > 0 else float("inf")
    if is_sharded(model):
        return model.clip_grad_norm_(limit)
    params = [p for p in model.parameters() if p.requires_grad and p.grad is not None]
    return torch.nn.utils.clip_grad_norm_(params, limit)


def initialise_root(model: torch.nn.Module) -> None:
    """FSDP's lazy initialisation with ``model`` as the root, before anything calls its inner model."""
    from torch.distributed.fsdp import FullyShardedDataParallel

    if is_sharded(model):
        with FullyShardedDataParallel.summon_full_params(model, recurse=False, writeback=False):
            pass
