"""Memory planner: the expected bytes per GPU of a run, for DDP and FSDP, before launching it.

    python -m coevo.core.memory_planner model=hf model.path=/models/Qwen2.5-7B-Instruct trainer=fsdp \
        trainer.devices=8 model.lora.enabled=false [algo=rsipo] [algo.micro_batch_tokens=8192]

The arguments are ``coevo-train``'s (the same Hydra config). The model is built on the meta device
(no weights are read or allocated) to count its parameters and, with LoRA, its trainable ones. Per
GPU it prints, for DDP (every rank holds everything) and for FSDP at the chosen world size:

- weights, gradients and AdamW state: ``4 + 4 + 8`` bytes per trainable parameter in float32
  (``bf16-true``: 2 + 2 + 4), frozen weights 4 (or 2); FSDP's ``FULL_SHARD`` divides all of it by the
  number of processes, ``SHARD_GRAD_OP`` the gradients and optimizer state only, ``HYBRID_SHARD`` by
  the GPUs of one node;
- FSDP over several processes: the rollout copy of the weights (``coevo.core.policy.full_replica``:
  2 bytes per parameter under ``bf16-mixed``);
- ``algo.kl_coef > 0`` with full fine-tuning: the frozen reference copy (LoRA switches its adapters off
  instead), sharded like the weights under FSDP over several processes;
- activations of one micro-batch (``algo.micro_batch_tokens`` tokens): an estimate, ~34 x hidden bytes
  per token and layer in 16-bit (2 x hidden with activation checkpointing, plus one layer's), and
  the logits in float32.

The weight/gradient/optimizer rows are exact for what coevo allocates (checked against
``bench/scaling/fsdp_scaling.py``'s measured per-rank bytes); the activation row is an estimate.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import torch

ADAMW_STATES = 2  # exp_avg, exp_avg_sq


@dataclass
class ModelSize:
    parameters: int  # all of them
    trainable: int  # those the optimizer updates (LoRA: the adapters)
    hidden: int
    layers: int
    vocab: int


@dataclass
class Plan:
    """Bytes per GPU of one strategy."""

    strategy: str
    weights: int
    gradients: int
    optimizer: int
    rollout_copy: int
    reference: int
    activations: int

    @property
    def training_state(self) -> int:
        return self.weights + self.gradients + self.optimizer

    @property
    def total(self) -> int:
        return self.training_state + self.rollout_copy + self.reference + self.activations


def master_bytes(precision: str) -> int:
    """Bytes of a stored weight: float32, except under ``*-true`` 16-bit precision."""
    return 2 if precision in ("bf16-true", "16-true", "bf16", "16") else 4


def shard_divisor(strategy: str, sharding: str, world: int, per_node: int) -> tuple[int, int]:
    """(divisor of the weights, divisor of gradients and optimizer state) per GPU."""
    if strategy != "fsdp" or world == 1 or sharding == "NO_SHARD":
        return 1, 1
    if sharding == "SHARD_GRAD_OP":
        return 1, world
    if sharding == "HYBRID_SHARD":
        return per_node, per_node
    return world, world


def plan(size: ModelSize, strategy: str, world: int, per_node: int, sharding: str = "FULL_SHARD",
         precision: str = "32-true", kl_reference: bool = False, micro_batch_tokens: int = 8192,
         activation_checkpointing: bool = False) -> Plan:
    """The bytes per GPU of a run with ``strategy`` (``ddp`` or ``fsdp``) over ``world`` processes."""
    b = master_bytes(precision)
    frozen = size.parameters - size.trainable
    weight_div, state_div = shard_divisor(strategy, sharding, world, per_node)
    weights = -(-(size.parameters * b) // weight_div)
    gradients = -(-(size.trainable * b) // state_div)
    optimizer = -(-(size.trainable * b * ADAMW_STATES) // state_div)
    sharded = strategy == "fsdp" and world > 1 and sharding != "NO_SHARD"
    compute = 2 if precision.endswith("-mixed") or b == 2 else 4
    rollout_copy = size.parameters * compute if sharded else 0
    reference = -(-(size.parameters * b) // weight_div) if kl_reference and frozen == 0 else 0
    full_layer = 34 * size.hidden * compute // 2  # bytes per token of one layer's saved activations
    kept = 2 * size.hidden * compute // 2 if activation_checkpointing else full_layer  # checkpointing: its input
    recomputed = full_layer if activation_checkpointing else 0  # the layer being recomputed in backward
    activations = micro_batch_tokens * (size.layers * kept + recomputed + size.vocab * 4)  # + float32 logits
    return Plan(strategy, weights, gradients, optimizer, rollout_copy, reference, activations)


def meta_model_size(model_node, lora) -> ModelSize:
    """Parameter counts of the configured model, built on the meta device (nothing allocated)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    from coevo.core.policy.tiny import TinyModelConfig, qwen2_config

    name = model_node.get("name")
    if name == "tiny":  # the builder's own config (the tokenizer it trains has about vocab_size tokens)
        fields = TinyModelConfig.__dataclass_fields__
        tiny = TinyModelConfig(**{k: v for k, v in model_node.items() if k in fields})
        config = qwen2_config(tiny, tiny.vocab_size)
    elif name == "hf":
        folder = Path(str(model_node.path))
        if not (folder / "config.json").is_file():  # the weights are not needed, the config is
            raise ValueError(f"model.path: '{folder}' has no config.json; point model.path at a local Hugging Face "
                             f"model folder (the planner reads only its config.json)")
        config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    else:
        raise ValueError(f"model.name: the planner reads model=tiny or model=hf (a local folder), not '{name}'; "
                         f"for smollm2 pass model=hf model.path=<its converted folder>")
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    if lora.enabled:
        from coevo.core.policy.lora import apply_lora

        model = apply_lora(model, lora)
    parameters = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    return ModelSize(parameters, trainable, text.hidden_size, text.num_hidden_layers, text.vocab_size)


def _gib(n: int) -> str:
    return f"{n / 2**30:,.2f} GiB" if n >= 2**26 else f"{n / 2**20:,.2f} MiB"


def report(size: ModelSize, plans: list[Plan], world: int) -> str:
    rows = [("weights", "weights"), ("gradients", "gradients"), ("AdamW state", "optimizer"),
            ("rollout copy", "rollout_copy"), ("reference copy", "reference"), ("activations (estimate)", "activations"),
            ("total", "total")]
    head = f"{size.parameters:,} parameters ({size.trainable:,} trainable), {world} process(es); bytes per GPU:"
    lines = [head, f"{'':24}" + "".join(f"{p.strategy.upper():>16}" for p in plans)]
    for label, attr in rows:
        lines.append(f"{label:24}" + "".join(f"{_gib(getattr(p, attr)):>16}" for p in plans))
    return "\n".join(lines)


def print_plan(overrides: list[str]) -> None:
    from coevo.core.cli.config_sources import compose_config
    from coevo.core.cli.errors import stage
    from coevo.core.cli.schema import TrainSchema
    from coevo.core.cli.strategy import process_count
    from coevo.core.config import validate
    from coevo.core.policy.lora import LoraSettings

    with stage("config"):
        cfg = compose_config("train", overrides)
        settings = validate(cfg, TrainSchema, "train")
        lora = LoraSettings(**dict(cfg.model.get("lora") or {}))
    with stage("model folder"):
        size = meta_model_size(cfg.model, lora)
    t = settings.trainer
    world = process_count(t)
    per_node = max(1, world // t.num_nodes)
    common = dict(precision=t.precision, kl_reference=float(cfg.algo.get("kl_coef", 0) or 0) > 0,
                  micro_batch_tokens=int(cfg.algo.get("micro_batch_tokens", 8192)),
                  activation_checkpointing=t.fsdp.activation_checkpointing)
    plans = [plan(size, "ddp", world, per_node, **common),
             plan(size, "fsdp", world, per_node, t.fsdp.sharding_strategy, **common)]
    print(report(size, plans, world))


def main(argv: list[str] | None = None) -> None:
    """``coevo-train``'s arguments; any refused input is one line (``coevo.core.cli.errors``)."""
    from rich.console import Console

    from coevo.core.cli.errors import run_guarded

    overrides = list(sys.argv[1:] if argv is None else argv)
    run_guarded(lambda: print_plan(overrides), Console(stderr=True))


if __name__ == "__main__":
    main()
