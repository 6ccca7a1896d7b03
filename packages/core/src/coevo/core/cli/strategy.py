"""The Lightning strategy of a run, from ``trainer.*``: ``auto`` (one process), ``ddp`` or ``fsdp``.

- ``ddp`` (``trainer=ddp_cpu``: accelerator cpu, 2 processes, gloo): every rank holds the whole
  policy; the algorithm averages gradients before each optimizer step (``coevo.core.distributed``).
- ``fsdp`` (``trainer=fsdp``, GPUs only): Lightning's ``FSDPStrategy`` with the model's decoder-layer
  class as the auto-wrap unit (found from the loaded model: ``_no_split_modules`` of the Hugging
  Face model), optional activation checkpointing of the same unit, ``use_orig_params`` so LoRA
  (some parameters frozen) and full fine-tuning both work, and full state dicts (gathered on rank 0)
  only for checkpoints and the exported policy. Mixed precision is Lightning's ``precision``
  (``bf16-mixed`` in ``configs/trainer/fsdp.yaml``). The root FSDP unit is the policy model, not the
  LightningModule (``coevo.core.algos.fsdp_policy`` says why).

Lightning refuses FSDP on the CPU; ``require_gpu`` turns that into one message before any work.
It also refuses FSDP over several processes, for now: FSDP all-gathers every shard unit in each
forward, so all ranks must run the same number of forwards, while each rank's rollouts (generation
lengths) and micro-batches differ, and the rollout engine would need a full-state gather inside
the step. Several GPUs or nodes: ``trainer=ddp_gpu`` (every rank holds the whole model).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from coevo.core.config import ConfigError
from coevo.core.fields import check_instance, choice

STRATEGIES = ("auto", "ddp", "fsdp")
SHARDING = ("FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "NO_SHARD")


@dataclass
class FSDPSettings:
    # FULL_SHARD | SHARD_GRAD_OP | HYBRID_SHARD (multi-node) | NO_SHARD
    sharding_strategy: str = choice("FULL_SHARD", SHARDING)
    activation_checkpointing: bool = False  # recompute each decoder layer's activations in backward
    cpu_offload: bool = False  # parameters and gradients live on the CPU between uses (slow; saves memory)

    def __post_init__(self):
        check_instance(self, "trainer.fsdp")


def require_gpu(trainer_settings) -> None:
    """``trainer.strategy=fsdp`` without a visible GPU: one clear error, before any work."""
    t = trainer_settings
    if t.strategy != "fsdp":
        return
    if t.accelerator == "cpu" or not torch.cuda.is_available():
        raise ConfigError(
            "config error at 'trainer.strategy': trainer=fsdp needs a GPU (Lightning's FSDPStrategy does not run "
            "on the CPU) and no CUDA device is visible here; on a CPU machine use trainer=ddp_cpu "
            "(Lightning DDP, 2 processes, gloo)"
        )
    per_node = torch.cuda.device_count() if t.devices == "auto" else int(t.devices)
    world = int(os.environ.get("WORLD_SIZE") or 0) or per_node * t.num_nodes
    if world > 1:
        raise ConfigError(
            f"config error at 'trainer.devices': trainer=fsdp runs one process (one GPU) for now, got {world} "
            f"processes: sharding over several GPUs needs the same number of forward passes on every rank, which "
            f"per-rank rollouts and micro-batches do not give yet; for several GPUs or nodes use trainer=ddp_gpu, "
            f"or set trainer.devices=1"
        )


def decoder_layer_classes(model: torch.nn.Module) -> set[type]:
    """The decoder-layer class(es) of a (possibly peft-wrapped) Hugging Face model."""
    names: set[str] = set()
    for module in model.modules():
        names.update(getattr(module, "_no_split_modules", None) or ())
    classes = {type(m) for m in model.modules() if type(m).__name__ in names}
    if not classes:
        raise ConfigError(
            f"config error at 'trainer.strategy': FSDP wraps each decoder layer, but no decoder-layer class was "
            f"found in {type(model).__name__} (no _no_split_modules); use a Hugging Face causal LM or trainer=ddp"
        )
    return classes


def _no_forward_buffer_sync() -> dict:
    """No buffer broadcast inside forward: ranks run different numbers of forwards (torch >= 2.13
    renamed ``broadcast_buffers`` to ``forward_sync_buffers``)."""
    import inspect

    params = inspect.signature(torch.nn.parallel.DistributedDataParallel.__init__).parameters
    return {"forward_sync_buffers": False} if "forward_sync_buffers" in params else {"broadcast_buffers": False}


def build_strategy(trainer_settings, model: torch.nn.Module | None = None):
    """The ``strategy=`` argument of ``L.Trainer``; ``model`` gives FSDP its wrap unit (None: launch only)."""
    t = trainer_settings
    if t.strategy == "auto":
        return "auto"
    if t.strategy == "ddp":
        from lightning.pytorch.strategies import DDPStrategy

        return DDPStrategy(process_group_backend=t.process_group_backend, find_unused_parameters=False,
                           **_no_forward_buffer_sync())
    require_gpu(t)
    from lightning.pytorch.strategies import FSDPStrategy

    layers = decoder_layer_classes(model) if model is not None else None
    return FSDPStrategy(
        auto_wrap_policy=layers,
        activation_checkpointing_policy=layers if (layers and t.fsdp.activation_checkpointing) else None,
        sharding_strategy=t.fsdp.sharding_strategy,
        cpu_offload=t.fsdp.cpu_offload,
        state_dict_type="full",
        use_orig_params=True,
        limit_all_gathers=True,
        process_group_backend=t.process_group_backend,
    )
