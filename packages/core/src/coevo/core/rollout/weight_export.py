"""The policy's current weights as a plain Hugging Face checkpoint (LoRA merged), for engines that
hold their own copy of the model (``vllm``).

``export_weights`` yields ``(name, tensor)`` pairs named as in the base model's safetensors file.
A peft LoRA model is merged on the fly (W + scale * B @ A per adapted layer) without touching the
trainer's modules, so no merge/unmerge round trip drifts the base weights. ``weights_version``
fingerprints the weights cheaply (tensor identities and in-place version counters), so an engine
can skip a push when nothing changed since the last one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from pathlib import Path

import torch

from coevo.core.policy.lora import is_peft


def base_model(model: torch.nn.Module) -> torch.nn.Module:
    """The transformers model inside a peft wrapper (or ``model`` itself)."""
    return model.get_base_model() if is_peft(model) else model


def lora_deltas(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """``{base weight name: delta}`` of every active LoRA layer of a peft model."""
    return lora_deltas_of(base_model(model).named_modules())


def lora_deltas_of(modules: Iterable[tuple[str, torch.nn.Module]]) -> dict[str, torch.Tensor]:
    """``{base weight name: delta}`` of every active LoRA layer among ``(name, module)`` pairs."""
    from peft.tuners.lora import LoraLayer

    deltas = {}
    for name, module in modules:
        if isinstance(module, LoraLayer) and not module.merged and not module.disable_adapters:
            delta = None
            for adapter in module.active_adapters:
                if adapter in module.lora_A:
                    d = module.get_delta_weight(adapter)  # [out, in]
                    delta = d if delta is None else delta + d
            if delta is not None:
                deltas[f"{name}.weight"] = delta
    return deltas


def checkpoint_tensors(named: Iterable[tuple[str, torch.Tensor]], deltas: dict[str, torch.Tensor],
                       dtype: torch.dtype | None = None) -> Iterator[tuple[str, torch.Tensor]]:
    """The base model's ``(name, tensor)`` pairs (its own state-dict names) as checkpoint entries:
    peft's adapter tensors dropped, ``.base_layer.`` removed, each LoRA delta added to its weight.
    Shared by ``export_weights`` and the sharded policy's stream (``sharded_export.py``)."""
    for name, tensor in named:
        if ".lora_" in name:
            continue
        name = name.replace(".base_layer.", ".")
        if name in deltas:
            tensor = tensor + deltas[name].to(tensor.dtype)
        tensor = tensor.detach()
        if dtype is not None and tensor.is_floating_point():
            tensor = tensor.to(dtype)
        yield name, tensor.contiguous()


@torch.no_grad()
def export_weights(model: torch.nn.Module, dtype: torch.dtype | None = None) -> Iterator[tuple[str, torch.Tensor]]:
    """``(name, tensor)`` of the base model's checkpoint with LoRA merged, as an untied checkpoint:
    ``lm_head.weight`` is always there (for tied embeddings, the input embedding).

    Untied because vLLM's in-place reload breaks the tie (on CPU the LM head keeps its repacked
    old copy), so the engine is built with ``tie_word_embeddings=False`` (``save_checkpoint_folder``).
    """
    inner = base_model(model)
    deltas = lora_deltas(model) if is_peft(model) else {}
    state = inner.state_dict()
    if "lm_head.weight" not in state and inner.get_output_embeddings() is not None:
        state["lm_head.weight"] = inner.get_output_embeddings().weight
    yield from checkpoint_tensors(state.items(), deltas, dtype)


def weights_version(model: torch.nn.Module) -> tuple:
    """Changes whenever a parameter is replaced or modified in place (optimizer steps, loads)."""
    return (id(model),) + tuple((id(p), p._version) for p in model.parameters())


def write_config(inner: torch.nn.Module, folder: Path) -> None:
    """The transformers model's config (architecture named, embeddings untied) and generation config."""
    config = copy.deepcopy(inner.config)
    config.architectures = [type(inner).__name__]  # a freshly built model's config has none
    config.tie_word_embeddings = False  # see export_weights
    config.save_pretrained(folder)
    if getattr(inner, "generation_config", None) is not None:
        inner.generation_config.save_pretrained(folder)


def save_checkpoint_folder(model: torch.nn.Module, tokenizer, folder: Path) -> Path:
    """Write ``model`` (LoRA merged) as a Hugging Face folder: config, model.safetensors, tokenizer."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_config(base_model(model), folder)
    for old in folder.glob("model*.safetensors*"):  # a sharded policy's per-unit files (sharded_export.py)
        old.unlink()
    tensors = {name: t.cpu().clone() for name, t in export_weights(model)}  # no shared storage (tied copies)
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    tokenizer.save_pretrained(folder)
    return folder
