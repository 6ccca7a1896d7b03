"""A policy sharded by FSDP over several processes, streamed as full Hugging Face weights unit by unit.

``stream_full_weights(sharded)`` yields the same ``(name, tensor)`` pairs as
``weight_export.export_weights`` of the unsharded model (LoRA merged, ``lm_head.weight`` untied, the
naming of ``weight_export.checkpoint_tensors``), without ever building the full model: for each FSDP
unit in module order it enters ``summon_full_params(unit, recurse=False, writeback=False)``,
yields that unit's own full parameters (and its modules' persistent buffers), and leaves the unit
before gathering the next. Beside what the consumer keeps, at most one unit's full parameters
exist at any time. The tensors are views of the gathered unit: a consumer copies what it keeps
(vLLM's ``reload_weights`` copies into its own parameters; the folder writer saves each unit).

Collective: every rank must consume the whole stream at the same point (the units are gathered in
module order on every rank). ``save_sharded_folder`` writes the same stream into a Hugging Face
folder as one safetensors file per unit plus an index, so a worker-process engine can reload it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import torch

from coevo.core.policy.full_replica import clean_name, fsdp_units, gathered_units
from coevo.core.policy.lora import is_peft
from coevo.core.policy.sharding import unwrap_sharded
from coevo.core.rollout.weight_export import base_model, checkpoint_tensors, lora_deltas_of, write_config


def _full_name(unit_name: str, name: str) -> str:
    """A module's name in the unwrapped root, from its name inside the unit named ``unit_name``."""
    joined = ".".join(part for part in (unit_name, name) if part)
    return clean_name(joined + ".").rstrip(".") if joined else ""


def _own_modules(unit: torch.nn.Module, unit_name: str) -> list[tuple[str, torch.nn.Module]]:
    """``(name in the unwrapped root, module)`` of the modules ``unit`` shards itself (not those of
    a nested unit), each once."""
    from torch.distributed.fsdp import FullyShardedDataParallel

    nested = [_full_name(unit_name, name) for name, m in unit.named_modules()
              if name and isinstance(m, FullyShardedDataParallel)]
    seen, own = set(), []
    for name, module in unit.named_modules():
        full = _full_name(unit_name, name)
        if id(module) in seen or isinstance(module, FullyShardedDataParallel):
            continue
        if any(full == n or full.startswith(n + ".") for n in nested):
            continue
        seen.add(id(module))
        own.append((full, module))
    return own


def _inner_name(name: str, prefix: str) -> str | None:
    """``name`` (in the unwrapped root) relative to the transformers model at ``prefix``; None outside it."""
    if not prefix:
        return name
    if name + "." == prefix:
        return ""
    return name[len(prefix):] if name.startswith(prefix) else None


def _inner_prefix(sharded: torch.nn.Module) -> str:
    """Where the transformers model sits inside the FSDP root, as a name prefix (``""`` for a
    plain model, ``"base_model.model."`` inside a peft wrapper)."""
    root = unwrap_sharded(sharded)
    inner = base_model(root)
    for name, module in root.named_modules():
        if module is inner:
            return name + "." if name else ""
    raise ValueError("the transformers model was not found inside the sharded policy")


@torch.no_grad()
def stream_units(sharded: torch.nn.Module, dtype: torch.dtype | None = None
                 ) -> Iterator[list[tuple[str, torch.Tensor]]]:
    """For each FSDP unit in module order, while it is gathered: its ``(name, full tensor)`` pairs
    as ``export_weights`` names them (the unit is left when the next list is asked for)."""
    root = unwrap_sharded(sharded)
    inner = base_model(root)
    prefix = _inner_prefix(sharded)
    peft = is_peft(root)
    head = inner.get_output_embeddings()
    head_weight = head.weight if head is not None else None
    named_head = False  # "lm_head.weight" yielded already (an untied head is a parameter of its own)
    for unit_name, unit, parameters in gathered_units(sharded):
        modules = [(n, m) for n, m in ((_inner_name(n, prefix), m) for n, m in _own_modules(unit, unit_name))
                   if n is not None]
        deltas = lora_deltas_of(modules) if peft else {}
        pairs: list[tuple[str, torch.Tensor]] = []
        tied = None
        for name, param in parameters:
            full = _inner_name(name, prefix)
            if full is not None:
                pairs.append((full, param))
                tied = param if param is head_weight else tied
        for module_name, module in modules:
            for buffer_name, buffer in module._buffers.items():
                if buffer is not None and buffer_name not in module._non_persistent_buffers_set:
                    pairs.append((f"{module_name}.{buffer_name}" if module_name else buffer_name, buffer))
        named_head = named_head or any(name == "lm_head.weight" for name, _ in pairs)
        if tied is not None and not named_head:  # tied embeddings: the head is the input embedding
            pairs.append(("lm_head.weight", tied))
            named_head = True
        yield list(checkpoint_tensors(pairs, deltas, dtype))


def stream_full_weights(sharded: torch.nn.Module, dtype: torch.dtype | None = None
                        ) -> Iterator[tuple[str, torch.Tensor]]:
    """The sharded policy's full weights as ``export_weights`` names them, one FSDP unit at a time
    (collective: every rank consumes the whole stream at the same point)."""
    for pairs in stream_units(sharded, dtype):
        yield from pairs


def save_sharded_folder(sharded: torch.nn.Module, tokenizer, folder: Path) -> Path:
    """``weights.save_checkpoint_folder`` for a sharded policy (collective): the same config and
    tokenizer; the weights written as one safetensors file per FSDP unit while that unit is
    gathered, with a ``model.safetensors.index.json`` naming them (older weight files are removed)."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_config(base_model(unwrap_sharded(sharded)), folder)
    for old in folder.glob("model*.safetensors*"):
        old.unlink()
    count = len(fsdp_units(sharded))
    index: dict[str, str] = {}
    for i, pairs in enumerate(stream_units(sharded)):
        file = f"model-{i + 1:05d}-of-{count:05d}.safetensors"
        if pairs:  # clones: no shared storage between entries (the tied head)
            save_file({name: t.cpu().clone() for name, t in pairs}, str(folder / file), metadata={"format": "pt"})
            index.update({name: file for name, _ in pairs})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": index}, indent=1))
    tokenizer.save_pretrained(folder)
    return folder


def _needs_full_copy(world_size: int):
    from coevo.core.config import ConfigError

    return ConfigError(
        f"config error at 'rollout.name': rollout=vllm keeps no full copy of a policy sharded over "
        f"{world_size} processes (it streams the weights into vLLM), and this algorithm needs the full "
        f"weights on each rank (no-grad forwards such as teacher log-probs, or a frozen copy); "
        f"use rollout=hf with trainer=fsdp, or trainer=ddp_gpu (every rank holds the whole policy)"
    )


class StreamedPolicy:
    """The sharded policy handed over as "the full weights" by ``StreamedCopy.refresh``: an engine
    that streams (``vllm``) takes ``.policy``; copying it is refused with one clear message."""

    def __init__(self, policy: torch.nn.Module, world_size: int):
        self.policy = policy
        self.world_size = world_size

    def __deepcopy__(self, memo):
        raise _needs_full_copy(self.world_size)


class StreamedCopy:
    """The ``replica`` of an engine that streams a sharded policy instead of keeping a full copy
    (``vllm``), for what ``RolloutModule`` asks of a replica: ``refresh`` (evaluation after
    training) hands the sharded policy over, wrapped, to the next engine, which streams it
    (collective); ``model`` (no-grad forwards of the full weights on one rank) does not exist."""

    def __init__(self, world_size: int):
        self.world_size = world_size

    def refresh(self, sharded: torch.nn.Module) -> StreamedPolicy:
        return StreamedPolicy(sharded, self.world_size)

    @property
    def model(self) -> torch.nn.Module:
        raise _needs_full_copy(self.world_size)
