"""The BPE tokenizer, the tiny model builder and offline loading of model folders."""

from __future__ import annotations

import json

import pytest
import torch

from coevo.core import registry
from coevo.core.policy.builders import HFBuilder, ModelLoadError, TinyBuilder, load_pretrained
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import CHATML_TEMPLATE, train_bpe_tokenizer


def test_tokenizer_round_trips_text(tokenizer):
    for text in [
        "You are in a room. You see a red box, a blue box.\n\nYour task is to: open the red box.",
        "<action>go to green box</action>",
        "unseen wörds ünïcode 123 !?",  # byte-level: any text survives
    ]:
        ids = tokenizer.encode(text, add_special_tokens=False)
        assert tokenizer.decode(ids) == text


def test_tokenizer_special_tokens_and_template(tokenizer):
    assert len(tokenizer) == 300 + 2  # the BPE vocabulary + the corpus's tags <action>, </action>
    assert tokenizer.chat_template == CHATML_TEMPLATE
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|pad|>"
    assert tokenizer.padding_side == "left"
    # the special tokens are single tokens and are never split
    for special in ("<|im_start|>", "<|im_end|>", "<|pad|>", "<|endoftext|>"):
        assert len(tokenizer.encode(special, add_special_tokens=False)) == 1
    assert tokenizer.eos_token_id != tokenizer.pad_token_id
    # no BOS is added
    assert tokenizer.encode("red", add_special_tokens=True) == tokenizer.encode("red", add_special_tokens=False)


def test_tokenizer_learns_env_words(tokenizer):
    # " box" (with its leading space, as inside a sentence) occurs in every boxes text: one token
    assert len(tokenizer.encode(" box", add_special_tokens=False)) == 1


def test_tokenizer_training_is_deterministic(corpus, tokenizer):
    again = train_bpe_tokenizer(corpus, vocab_size=300)
    text = "You open it. You win!"
    assert again.encode(text) == tokenizer.encode(text)


def test_build_tiny_model_matches_the_vocabulary(tiny_model, tokenizer):
    assert tiny_model.config.vocab_size == len(tokenizer)
    assert tiny_model.get_input_embeddings().weight.shape == (len(tokenizer), 32)
    assert tiny_model.get_output_embeddings().weight.data_ptr() == tiny_model.get_input_embeddings().weight.data_ptr()
    assert tiny_model.config.num_hidden_layers == 2
    assert tiny_model.generation_config.eos_token_id == tokenizer.eos_token_id
    assert tiny_model.generation_config.pad_token_id == tokenizer.pad_token_id
    logits = tiny_model(input_ids=torch.tensor([[5, 6, 7]])).logits
    assert logits.shape == (1, 3, len(tokenizer))


def test_build_tiny_model_is_seeded(tokenizer):
    config = TinyModelConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64)
    a, b = build_tiny_model(config, tokenizer), build_tiny_model(config, tokenizer)
    c = build_tiny_model(TinyModelConfig(**{**config.__dict__, "seed": 1}), tokenizer)
    wa, wb, wc = (m.model.embed_tokens.weight for m in (a, b, c))
    assert torch.equal(wa, wb)
    assert not torch.equal(wa, wc)


def test_tiny_builder_builds_model_and_tokenizer(corpus):
    builder_cls = registry.models.get("tiny")
    assert builder_cls is TinyBuilder
    config = TinyBuilder.Config(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64,
                                vocab_size=280)
    model, tok = TinyBuilder(config).build(lambda: corpus)
    assert len(tok) == 280 + 2 and model.config.vocab_size == 280 + 2  # + <action>, </action>


def test_load_pretrained_missing_folder(tmp_path):
    with pytest.raises(ModelLoadError) as info:
        load_pretrained(tmp_path / "nope")
    assert "model.path" in str(info.value) and "does not exist" in str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    with pytest.raises(ModelLoadError, match="model.path"):
        HFBuilder(HFBuilder.Config(path=str(tmp_path / "nope"))).build()


def test_load_pretrained_folder_without_config(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(ModelLoadError) as info:
        load_pretrained(tmp_path)
    assert "model.path" in str(info.value) and "config.json" in str(info.value)


def test_load_pretrained_unknown_dtype(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({}))
    with pytest.raises(ValueError, match="model.dtype"):
        load_pretrained(tmp_path, dtype="float99")


def test_save_and_load_pretrained_round_trip(tmp_path, tiny_model, tokenizer):
    tiny_model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model, tok = load_pretrained(tmp_path)
    model.eval()
    text = "<action>open red box</action>"
    assert tok.encode(text, add_special_tokens=False) == tokenizer.encode(text, add_special_tokens=False)
    assert tok.chat_template == CHATML_TEMPLATE
    assert tok.padding_side == "left"
    assert tok.pad_token_id == tokenizer.pad_token_id and tok.eos_token_id == tokenizer.eos_token_id
    ids = torch.tensor([tokenizer.encode("You see a red box.", add_special_tokens=False)])
    with torch.no_grad():
        torch.testing.assert_close(model(input_ids=ids).logits, tiny_model(input_ids=ids).logits)
