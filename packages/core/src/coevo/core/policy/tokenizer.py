"""A byte-level BPE tokenizer trained locally (no hub) with a ChatML chat template.

The tiny model's vocabulary is learned from the environments' own text, so a few hundred tokens
cover whole words like "cabinet" or "countertop" and prompts stay short. The reply markup the
environments use (``<action>``, ``</action>``, ``<think>``, ``<search>``, …: every tag found in the
text) becomes one token each, so a command such as ``<action>go to cabinet 1</action>`` costs
6 tokens instead of 10; in choice mode every candidate carries the tags, so this shortens each
training sample by about a fifth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

IM_START, IM_END, PAD, EOS = "<|im_start|>", "<|im_end|>", "<|pad|>", "<|endoftext|>"
SPECIAL_TOKENS = [PAD, EOS, IM_START, IM_END]
#: bumped whenever the same corpus would give different tokens (it keys the warm-start cache)
TOKENIZER_VERSION = 2  # 2: markup tags are single tokens

# ChatML, the format of Qwen2 and SmolLM2-Instruct. The {% generation %} markers let
# ``apply_chat_template(..., return_assistant_tokens_mask=True)`` mark assistant tokens.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['role'] == 'assistant' %}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}{{ '\n' }}"
    "{% else %}{{ message['content'] + '<|im_end|>' + '\n' }}{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


# an XML-like markup tag: <action>, </action>, <think>, <search>, <information> (not "<" in text)
MARKUP_TAG = re.compile(r"</?[a-z][a-z_]{0,30}>")


def markup_tags(texts: Iterable[str]) -> list[str]:
    """Every distinct markup tag in ``texts``, sorted (the chat template's own tokens excluded)."""
    return sorted({tag for text in texts for tag in MARKUP_TAG.findall(text)})


def train_bpe_tokenizer(texts: Iterable[str], vocab_size: int = 1024) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE on ``texts`` and wrap it as a transformers tokenizer; markup tags
    found in ``texts`` are added as single (non-special: they decode as text) tokens."""
    texts = list(texts)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=None,
        eos_token=IM_END,
        pad_token=PAD,
        unk_token=None,
        additional_special_tokens=[EOS, IM_START],
    )
    wrapped.add_tokens([AddedToken(tag, special=False, normalized=False) for tag in markup_tags(texts)])
    wrapped.chat_template = CHATML_TEMPLATE
    wrapped.padding_side = "left"
    return wrapped
