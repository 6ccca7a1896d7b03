"""The ``tiny`` policy: a small Qwen2 built from a config with random weights (no hub access)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase, Qwen2Config, Qwen2ForCausalLM

from coevo.core.fields import bounded, random_seed
from coevo.core.policy.tokenizer import SPECIAL_TOKENS

MIN_VOCAB = 256 + len(SPECIAL_TOKENS)  # the byte-level alphabet plus the special tokens


@dataclass
class TinyModelConfig:
    hidden_size: int = bounded(128, ge=1)  # width of the residual stream (a multiple of num_heads)
    num_layers: int = bounded(4, ge=1)  # transformer blocks
    num_heads: int = bounded(4, ge=1)  # query heads (a multiple of num_kv_heads)
    num_kv_heads: int = bounded(2, ge=1)  # key/value heads (grouped-query attention)
    intermediate_size: int = bounded(512, ge=1)  # MLP width
    max_position_embeddings: int = bounded(2048, ge=1)  # longest sequence the model takes
    # size of the BPE vocabulary trained on the environment's text: >= the 256 byte symbols + 4 specials
    vocab_size: int = bounded(1024, ge=MIN_VOCAB)
    seed: int = random_seed(0)  # initialisation seed

    def __post_init__(self):
        if self.hidden_size % self.num_heads:
            raise ValueError(f"model.hidden_size={self.hidden_size} is not a multiple of model.num_heads="
                             f"{self.num_heads}; choose sizes with hidden_size % num_heads == 0")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"model.num_heads={self.num_heads} is not a multiple of model.num_kv_heads="
                             f"{self.num_kv_heads}; choose num_kv_heads dividing num_heads")


def qwen2_config(config: TinyModelConfig, vocab_size: int, pad_token_id: int | None = None,
                 eos_token_id: int | None = None) -> Qwen2Config:
    """The Hugging Face config of the tiny Qwen2 with ``vocab_size`` embeddings (tied LM head)."""
    return Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_kv_heads,
        head_dim=config.hidden_size // config.num_heads,
        max_position_embeddings=config.max_position_embeddings,
        tie_word_embeddings=True,
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        bos_token_id=None,
        attention_dropout=0.0,
    )


def build_tiny_model(config: TinyModelConfig, tokenizer: PreTrainedTokenizerBase) -> Qwen2ForCausalLM:
    """A randomly initialised Qwen2 whose embedding matches ``tokenizer``'s vocabulary."""
    model_config = qwen2_config(config, len(tokenizer), tokenizer.pad_token_id, tokenizer.eos_token_id)
    with torch.random.fork_rng():
        torch.manual_seed(config.seed)
        model = Qwen2ForCausalLM(model_config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model
