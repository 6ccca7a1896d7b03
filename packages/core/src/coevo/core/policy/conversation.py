"""Turn a chat conversation into token ids and an agent-token mask, for any chat template.

Only assistant messages marked trainable get mask 1 (their content and the end-of-turn token);
system, user (observations) and template tokens get 0. The span of each assistant message is
found by rendering the conversation prefix with ``add_generation_prompt=True`` and the prefix
that includes the message, which works for any template that renders prefixes as prefixes
(ChatML, Llama 3, SmolLM2 ...); a template that does not is reported, never silently mis-masked.
"""

from __future__ import annotations

from dataclasses import dataclass

from transformers import PreTrainedTokenizerBase

Message = dict[str, str]


@dataclass
class EncodedConversation:
    input_ids: list[int]
    agent_mask: list[int]  # 1 on tokens that get loss


def render_prompt(tokenizer: PreTrainedTokenizerBase, messages: list[Message]) -> list[int]:
    """Token ids of ``messages`` followed by the assistant generation prompt."""
    return list(tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=False))


def _render(tokenizer: PreTrainedTokenizerBase, messages: list[Message]) -> list[int]:
    return list(tokenizer.apply_chat_template(messages, add_generation_prompt=False, tokenize=True, return_dict=False))


def encode_conversation(
    tokenizer: PreTrainedTokenizerBase,
    messages: list[Message],
    trainable: list[bool] | None = None,
) -> EncodedConversation:
    """Ids and mask of ``messages``; ``trainable[i]`` says whether assistant message i gets loss.

    By default every assistant message is trainable.
    """
    ids: list[int] = []
    mask: list[int] = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        prompt = render_prompt(tokenizer, messages[:i])
        full = _render(tokenizer, messages[: i + 1])
        if full[: len(prompt)] != prompt or prompt[: len(ids)] != ids:
            raise ValueError(
                "the chat template does not render conversation prefixes as token prefixes; "
                "agent-token masks cannot be derived for it (use a ChatML-style template)"
            )
        response = _response_tokens(tokenizer, full[len(prompt) :])
        mask += [0] * (len(prompt) - len(ids))
        train = True if trainable is None else trainable[i]
        mask += [1 if train else 0] * len(response)
        ids = prompt + response
    tail = _render(tokenizer, messages)
    if tail[: len(ids)] != ids:
        raise ValueError("the chat template does not render conversation prefixes as token prefixes")
    mask += [0] * (len(tail) - len(ids))
    return EncodedConversation(tail, mask)


def _response_tokens(tokenizer: PreTrainedTokenizerBase, rendered: list[int]) -> list[int]:
    """The assistant turn up to and including its end-of-turn token (template suffixes excluded)."""
    eos = tokenizer.eos_token_id
    if eos in rendered:
        return rendered[: rendered.index(eos) + 1]
    return rendered
