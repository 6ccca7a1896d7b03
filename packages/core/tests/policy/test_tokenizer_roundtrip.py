"""A tiny model's tokenizer must split text identically after save_pretrained + load_pretrained.

Regression: AutoTokenizer loads a Qwen2-config folder as Qwen2Tokenizer, whose pre-tokenizer
splits digits one by one (" 1" -> " ", "1") while the trained BPE keeps " 1" as one token, so a
warm-started model saw token sequences at evaluation that it had never been trained on.
"""

from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer


def test_saved_tokenizer_splits_text_like_the_trained_one(tmp_path):
    texts = ["go to desk 1", "open drawer 2", "<action>take apple 1 from fridge 1</action>"] * 50
    tokenizer = train_bpe_tokenizer(texts, vocab_size=300)
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    _, loaded = load_pretrained(tmp_path)
    for text in ["<action>go to desk 1</action>", "You arrive at drawer 2. In it, you see a apple 1."]:
        assert loaded.encode(text, add_special_tokens=False) == tokenizer.encode(text, add_special_tokens=False)
    messages = [{"role": "user", "content": "go to desk 1"}, {"role": "assistant", "content": "<action>look</action>"}]
    assert loaded.apply_chat_template(messages, tokenize=True, return_dict=False) == tokenizer.apply_chat_template(
        messages, tokenize=True, return_dict=False
    )


def test_markup_tags_are_single_tokens_that_decode_as_text(tmp_path):
    texts = ["<think>the mug</think> <action>go to desk 1</action>", "<search>paris</search>"] * 50
    tokenizer = train_bpe_tokenizer(texts, vocab_size=300)
    reply = "<think>a b</think> <action>take mug 1 from desk 1</action>"
    pieces = [tokenizer.decode([i]) for i in tokenizer.encode(reply, add_special_tokens=False)]
    for tag in ("<think>", "</think>", "<action>", "</action>"):
        assert pieces.count(tag) == 1
    assert tokenizer.decode(tokenizer.encode(reply, add_special_tokens=False), skip_special_tokens=True) == reply
    # "<search>" never occurs inside a reply here, but it was in the corpus: one token as well
    assert len(tokenizer.encode("<search>", add_special_tokens=False)) == 1
    tokenizer.save_pretrained(tmp_path)
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer)
    model.save_pretrained(tmp_path)
    _, loaded = load_pretrained(tmp_path)
    assert loaded.encode(reply, add_special_tokens=False) == tokenizer.encode(reply, add_special_tokens=False)
    assert model.get_input_embeddings().num_embeddings == len(tokenizer)
