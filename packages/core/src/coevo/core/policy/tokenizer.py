"""A byte-level BPE tokenizer trained locally (no hub) with a ChatML chat template.

The tiny model's vocabulary is learned from the environments' own text, so a few hundred tokens
cover whole words like "cabinet" or "countertop" and prompts stay short.
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

IM_START, IM_END, PAD, EOS = "<|im_start|>", "<|im_end|>", "<|pad|>", "<|endoftext|>"
SPECIAL_TOKENS = [PAD, EOS, IM_START, IM_END]

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


def train_bpe_tokenizer(texts: Iterable[str], vocab_size: int = 1024) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE on ``texts`` and wrap it as a transformers tokenizer."""
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
    wrapped.chat_template = CHATML_TEMPLATE
    wrapped.padding_side = "left"
    return wrapped
