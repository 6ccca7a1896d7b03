"""The ``tiny`` policy: a small Qwen2 built from a config with random weights (no hub access)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase, Qwen2Config, Qwen2ForCausalLM


@dataclass
class TinyModelConfig:
    hidden_size: int = 128  # width of the residual stream
    num_layers: int = 4  # transformer blocks
    num_heads: int = 4  # query heads
    num_kv_heads: int = 2  # key/value heads (grouped-query attention)
    intermediate_size: int = 512  # MLP width
    max_position_embeddings: int = 2048
    vocab_size: int = 1024  # size of the BPE vocabulary trained on the environment's text
    seed: int = 0  # initialisation seed


def build_tiny_model(config: TinyModelConfig, tokenizer: PreTrainedTokenizerBase) -> Qwen2ForCausalLM:
    """A randomly initialised Qwen2 whose embedding matches ``tokenizer``'s vocabulary."""
    model_config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_kv_heads,
        head_dim=config.hidden_size // config.num_heads,
        max_position_embeddings=config.max_position_embeddings,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        attention_dropout=0.0,
    )
    with torch.random.fork_rng():
        torch.manual_seed(config.seed)
        model = Qwen2ForCausalLM(model_config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model
