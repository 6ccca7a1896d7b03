"""The Lightning strategy of a run, from ``trainer.*``: ``auto`` (one process), ``ddp`` or ``fsdp``.

- ``ddp`` (``trainer=ddp_cpu``: accelerator cpu, 2 processes, gloo): every rank holds the whole
  policy; the algorithm averages gradients before each optimizer step (``coevo.core.distributed``).
- ``fsdp`` (``trainer=fsdp`` on GPUs, ``trainer=fsdp_cpu`` on the CPU over gloo): Lightning's
  ``FSDPStrategy`` with the model's decoder-layer class as the auto-wrap unit (found from the loaded
  model: ``_no_split_modules`` of the Hugging Face model), optional activation checkpointing of the
  same unit, ``use_orig_params`` so LoRA (some parameters frozen) and full fine-tuning both work, and
  ``trainer.fsdp.state_dict_type``: ``sharded`` checkpoints (a folder written by every rank through
  torch.distributed.checkpoint, Lightning's own format; resharded on load, so a resume may use
  another number of processes) or ``full`` ones (gathered on rank 0, one file). The exported policy
  is always one full Hugging Face folder gathered on rank 0 (``full_module_state_dict``). Mixed precision is
  Lightning's ``precision`` (``bf16-mixed`` in the ``trainer=fsdp`` preset). The root FSDP unit is
  the policy model, not the LightningModule (``coevo.core.policy.sharding`` says why). Over several
  processes each rank holds 1/N of the parameters, gradients and optimizer state; rollouts sample
  from a gathered full copy (``coevo.core.policy.full_replica``) and updates run the same number of
  forwards on every rank (``RolloutModule.lockstep``).

Lightning refuses ``FSDPStrategy`` on the CPU by comparing the strategy's exact type, so
``trainer=fsdp_cpu`` runs the same strategy as ``CPUFSDPStrategy``, a subclass that changes nothing
else: the sharded path runs (and is tested) on a machine without a GPU, in float32 over gloo.
``require_gpu`` turns a GPU preset on a machine without one, or more devices than it has, into one
message before any work.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import torch
from lightning.pytorch.strategies import DDPStrategy, FSDPStrategy

from coevo.core.callbacks.atomic_checkpoint_io import save_folder_atomically
from coevo.core.callbacks.per_rank_state import PER_RANK, read_own, write_own
from coevo.core.config import ConfigError
from coevo.core.fields import check_instance, choice

STRATEGIES = ("auto", "ddp", "fsdp")
SHARDING = ("FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "NO_SHARD")
STATE_DICT_TYPES = ("sharded", "full")


@dataclass
class FSDPSettings:
    # FULL_SHARD | SHARD_GRAD_OP | HYBRID_SHARD (multi-node) | NO_SHARD
    sharding_strategy: str = choice("FULL_SHARD", SHARDING)
    activation_checkpointing: bool = False  # recompute each decoder layer's activations in backward
    cpu_offload: bool = False  # parameters and gradients live on the CPU between uses (slow; saves memory)
    # checkpoints: sharded (a folder, each rank writes its shards; resume may change the process count)
    # | full (one file gathered on rank 0: the whole model and optimizer state must fit there)
    state_dict_type: str = choice("sharded", STATE_DICT_TYPES)

    def __post_init__(self):
        check_instance(self, "trainer.fsdp")


def _full_state_dict_in_place(module, world_size: int, rank0_only: bool = True):
    """Lightning's full-state-dict context without ``offload_to_cpu``: on the CPU the "offloaded"
    tensors are the unsharded parameters themselves, whose storage FSDP frees on resharding; with
    2 gloo processes rank 0 then crashes (SIGSEGV) reading the state dict."""
    from torch.distributed.fsdp import FullOptimStateDictConfig, FullStateDictConfig, StateDictType
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    return FSDP.state_dict_type(module=module, state_dict_type=StateDictType.FULL_STATE_DICT,
                                state_dict_config=FullStateDictConfig(offload_to_cpu=False, rank0_only=rank0_only),
                                optim_state_dict_config=FullOptimStateDictConfig(offload_to_cpu=False,
                                                                                 rank0_only=rank0_only))


@contextmanager
def _cpu_state_dicts():
    """Lightning's FSDP strategy module with ``_full_state_dict_in_place`` for the duration of a call."""
    import lightning.pytorch.strategies.fsdp as lightning_fsdp

    original = lightning_fsdp._get_full_state_dict_context
    lightning_fsdp._get_full_state_dict_context = _full_state_dict_in_place
    try:
        yield
    finally:
        lightning_fsdp._get_full_state_dict_context = original


class CoevoFSDPStrategy(FSDPStrategy):
    """Lightning's FSDPStrategy whose sharded checkpoint folders replace the previous one atomically
    (``save_folder_atomically``: every rank writes into ``<name>.tmp-<rank 0's pid>``, rank 0 renames
    it in after a barrier), so a kill mid-write leaves the last complete checkpoint in place. State a
    callback keeps per rank (``checkpoint[PER_RANK]``) goes to that rank's own ``rank<r>.pt`` in the
    folder (``coevo.core.callbacks.per_rank_state``), not through rank 0."""

    @property
    def per_rank_files(self) -> bool:
        """Checkpoints are folders every rank writes to (``sharded``): per-rank state needs no gather."""
        return self._state_dict_type == "sharded"

    def save_checkpoint(self, checkpoint, filepath, storage_options=None) -> None:
        if self._state_dict_type != "sharded":
            return super().save_checkpoint(checkpoint, filepath, storage_options)
        path = Path(self.broadcast(str(filepath)))
        token = self.broadcast(os.getpid())  # one temporary folder for all ranks
        own = checkpoint.pop(PER_RANK, None)  # this rank's, not rank 0's meta.pt

        def write(tmp: Path) -> None:
            FSDPStrategy.save_checkpoint(self, checkpoint, tmp, storage_options)
            if own:
                write_own(tmp, self.global_rank, own)

        save_folder_atomically(path, token, write, self.is_global_zero, self.barrier)

    def load_checkpoint(self, checkpoint_path, weights_only=None):
        checkpoint = super().load_checkpoint(checkpoint_path, weights_only=weights_only)
        path = Path(self.broadcast(str(checkpoint_path)))
        per_rank = read_own(path, self.global_rank) if path.is_dir() else None
        if per_rank is not None:
            checkpoint[PER_RANK] = per_rank
        return checkpoint

    def full_module_state_dict(self) -> dict:
        """The LightningModule's full (unsharded) state dict on rank 0, ``{}`` on the others; collective.
        Parameters are offloaded to the CPU on GPUs (rank 0 holds one full copy there, not on the GPU)."""
        with self._full_context():
            state = self.model.state_dict()
        return state if self.is_global_zero else {}

    def _full_context(self):
        import lightning.pytorch.strategies.fsdp as lightning_fsdp

        return lightning_fsdp._get_full_state_dict_context(self.model, world_size=self.world_size, rank0_only=True)


class CPUFSDPStrategy(CoevoFSDPStrategy):
    """Lightning's FSDPStrategy under another type name, which Lightning runs with ``accelerator=cpu``
    (gloo, float32): ``trainer=fsdp_cpu``. Its full state dicts stay where they are
    (``_full_state_dict_in_place``); nothing else differs."""

    def _full_context(self):
        return _full_state_dict_in_place(self.model, self.world_size, rank0_only=True)

    def lightning_module_state_dict(self):
        with _cpu_state_dicts():
            return super().lightning_module_state_dict()

    def optimizer_state(self, optimizer):
        with _cpu_state_dicts():
            return super().optimizer_state(optimizer)

    def load_checkpoint(self, checkpoint_path, weights_only=None):
        with _cpu_state_dicts():
            return super().load_checkpoint(checkpoint_path, weights_only=weights_only)


def require_gpu(trainer_settings) -> None:
    """``trainer.strategy=fsdp`` on GPUs: a visible GPU and enough of them, else one clear error."""
    t = trainer_settings
    if t.strategy != "fsdp" or t.accelerator == "cpu":
        return
    if not torch.cuda.is_available():
        raise ConfigError(
            "config error at 'trainer.accelerator': trainer=fsdp runs on GPUs and no CUDA device is visible here; "
            "on a CPU machine use trainer=fsdp_cpu (the same FSDP over gloo processes, trainer.devices=2)"
        )
    visible = torch.cuda.device_count()
    if t.devices != "auto" and int(t.devices) > visible and "LOCAL_RANK" not in os.environ:
        raise ConfigError(
            f"config error at 'trainer.devices': {t.devices} processes asked for, but {visible} GPU(s) are visible "
            f"on this node; set trainer.devices={visible} (or trainer.devices=auto)"
        )


def process_count(trainer_settings) -> int:
    """The processes of the run: ``WORLD_SIZE`` under torchrun / SLURM, else devices x nodes."""
    t = trainer_settings
    if os.environ.get("WORLD_SIZE"):
        return int(os.environ["WORLD_SIZE"])
    per_node = (torch.cuda.device_count() if t.accelerator != "cpu" else 1) if t.devices == "auto" else int(t.devices)
    return per_node * t.num_nodes


SHARDED_ROLLOUT_ENGINES = ("hf", "vllm")  # hf: a full copy refreshed unit by unit; vllm: the units streamed in


def require_sharded_rollouts(trainer_settings, engine_name: str, algo_cls=None, algo_name: str = "") -> None:
    """FSDP over several processes: rollouts need an engine that samples from the gathered full weights
    without collectives (``hf``'s replica, ``vllm``'s own copy, filled unit by unit); an algorithm
    with ``full_weight_forwards`` (no-grad forwards of the full weights on each rank) needs ``hf``'s."""
    t = trainer_settings
    if t.strategy != "fsdp" or process_count(t) <= 1:
        return
    if engine_name not in SHARDED_ROLLOUT_ENGINES:
        raise ConfigError(
            f"config error at 'rollout.name': rollout={engine_name} cannot yet sample from a policy sharded over "
            f"{process_count(t)} processes (trainer=fsdp); use rollout=hf or rollout=vllm, or trainer.devices=1 "
            f"with {engine_name}"
        )
    if engine_name != "hf" and algo_cls is not None and algo_cls.full_weight_forwards:
        raise ConfigError(
            f"config error at 'rollout.name': algo={algo_name} runs no-grad forwards of the full weights on every "
            f"rank (teacher log-probs, a distillation student), which with the policy sharded over "
            f"{process_count(t)} processes (trainer=fsdp) come from rollout=hf's full copy; rollout={engine_name} "
            f"keeps none: use rollout=hf, or trainer=ddp_gpu (every rank holds the whole policy) with "
            f"rollout={engine_name}"
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
    timeout = timedelta(seconds=t.collective_timeout)
    if t.strategy == "ddp":
        return DDPStrategy(process_group_backend=t.process_group_backend, find_unused_parameters=False,
                           timeout=timeout, **_no_forward_buffer_sync())
    require_gpu(t)
    strategy_class = CPUFSDPStrategy if t.accelerator == "cpu" else CoevoFSDPStrategy
    layers = decoder_layer_classes(model) if model is not None else None
    return strategy_class(
        auto_wrap_policy=layers,
        activation_checkpointing_policy=layers if (layers and t.fsdp.activation_checkpointing) else None,
        sharding_strategy=t.fsdp.sharding_strategy,
        cpu_offload=t.fsdp.cpu_offload,
        state_dict_type=t.fsdp.state_dict_type,
        use_orig_params=True,
        limit_all_gathers=True,
        process_group_backend=t.process_group_backend,
        timeout=timeout,
    )
