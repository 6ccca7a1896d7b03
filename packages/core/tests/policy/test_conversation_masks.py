"""Agent-token masks of chat conversations (ChatML template of the trained BPE tokenizer)."""

from __future__ import annotations

import copy

import pytest

from coevo.core.policy.conversation import encode_conversation, render_prompt

OBS1 = "You are in a room. You see a red box, a blue box.\n\nYour task is to: open the red box."
OBS2 = "You arrive at the red box."
ACT1 = "<action>go to red box</action>"
ACT2 = "<action>open red box</action>"


def _conversation():
    return [
        {"role": "system", "content": "You are a household agent."},
        {"role": "user", "content": OBS1},
        {"role": "assistant", "content": ACT1},
        {"role": "user", "content": OBS2},
        {"role": "assistant", "content": ACT2},
    ]


def _runs(ids: list[int], mask: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive masked tokens."""
    runs, current = [], []
    for token, m in zip(ids, mask):
        if m:
            current.append(token)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def test_mask_covers_exactly_each_assistant_content_and_im_end(tokenizer):
    messages = _conversation()
    enc = encode_conversation(tokenizer, messages)
    assert len(enc.input_ids) == len(enc.agent_mask)
    assert set(enc.agent_mask) == {0, 1}
    # the ids are the full rendering of the conversation
    expected_text = (
        "<|im_start|>system\nYou are a household agent.<|im_end|>\n"
        f"<|im_start|>user\n{OBS1}<|im_end|>\n"
        f"<|im_start|>assistant\n{ACT1}<|im_end|>\n"
        f"<|im_start|>user\n{OBS2}<|im_end|>\n"
        f"<|im_start|>assistant\n{ACT2}<|im_end|>\n"
    )
    assert tokenizer.decode(enc.input_ids) == expected_text
    runs = [tokenizer.decode(run) for run in _runs(enc.input_ids, enc.agent_mask)]
    assert runs == [ACT1 + "<|im_end|>", ACT2 + "<|im_end|>"]
    # the masked tokens are exactly the tokens of "content<|im_end|>"
    expected_masked = sum(len(tokenizer.encode(a, add_special_tokens=False)) + 1 for a in (ACT1, ACT2))
    assert sum(enc.agent_mask) == expected_masked
    unmasked = tokenizer.decode([t for t, m in zip(enc.input_ids, enc.agent_mask) if not m])
    assert OBS1 in unmasked and OBS2 in unmasked and "You are a household agent." in unmasked
    assert "<action>" not in unmasked
    assert unmasked.count("<|im_end|>") == 3  # system and the two user turns
    assert unmasked.count("<|im_start|>assistant\n") == 2  # the generation prompts are not trained


def test_agrees_with_hf_assistant_tokens_mask(tokenizer):
    messages = _conversation()
    enc = encode_conversation(tokenizer, messages)
    hf = tokenizer.apply_chat_template(messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    assert enc.input_ids == list(hf["input_ids"])
    assert enc.agent_mask == list(hf["assistant_masks"])


def test_trainable_flags_switch_a_turn_off(tokenizer):
    messages = _conversation()
    full = encode_conversation(tokenizer, messages)
    # flags are indexed by message: message 2 is the first assistant turn
    enc = encode_conversation(tokenizer, messages, trainable=[False, False, False, False, True])
    assert enc.input_ids == full.input_ids
    runs = [tokenizer.decode(run) for run in _runs(enc.input_ids, enc.agent_mask)]
    assert runs == [ACT2 + "<|im_end|>"]
    none = encode_conversation(tokenizer, messages, trainable=[True] * 5)
    assert none.agent_mask == full.agent_mask  # flags on non-assistant messages are ignored
    off = encode_conversation(tokenizer, messages, trainable=[True, True, False, True, False])
    assert sum(off.agent_mask) == 0


def test_conversation_ending_with_a_user_turn(tokenizer):
    messages = _conversation()[:4]  # ends with the observation after action 1
    enc = encode_conversation(tokenizer, messages)
    runs = [tokenizer.decode(run) for run in _runs(enc.input_ids, enc.agent_mask)]
    assert runs == [ACT1 + "<|im_end|>"]
    assert enc.agent_mask[-1] == 0
    assert tokenizer.decode(enc.input_ids).endswith(f"{OBS2}<|im_end|>\n")


def test_render_prompt_ends_with_the_generation_prompt(tokenizer):
    ids = render_prompt(tokenizer, _conversation()[:2])
    assert tokenizer.decode(ids) == (
        "<|im_start|>system\nYou are a household agent.<|im_end|>\n"
        f"<|im_start|>user\n{OBS1}<|im_end|>\n<|im_start|>assistant\n"
    )
    # the prompt is a prefix of the encoded conversation, and the response starts right after it
    enc = encode_conversation(tokenizer, _conversation()[:3])
    assert enc.input_ids[: len(ids)] == ids
    assert enc.agent_mask[: len(ids)] == [0] * len(ids)
    assert enc.agent_mask[len(ids)] == 1


def test_template_that_does_not_render_prefixes_is_reported(tokenizer):
    tok = copy.deepcopy(tokenizer)
    # a template that renders the number of messages first: prefixes are not token prefixes
    tok.chat_template = (
        "{{ messages|length }}{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\n' + m['content'] + '<|im_end|>' }}"
        "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
    )
    with pytest.raises(ValueError, match="prefixes"):
        encode_conversation(tok, _conversation())
