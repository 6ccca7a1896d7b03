"""Per-token log-probs of the tiny model: manual log_softmax, left padding, temperature."""

from __future__ import annotations

import torch

from coevo.core.policy.logprobs import gather_token_logprobs, sequence_token_logprobs


def _ids(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


def test_gather_token_logprobs_with_temperature():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 4, 7, generator=gen)
    targets = torch.randint(0, 7, (2, 4), generator=gen)
    for temperature in (1.0, 0.5, 2.0):
        expected = torch.log_softmax(logits / temperature, -1).gather(-1, targets[..., None])[..., 0]
        torch.testing.assert_close(gather_token_logprobs(logits, targets, temperature), expected)
    # a hand-computed case: logits [0, log 3] → softmax [1/4, 3/4]; at T=2 → [0, log 3 / 2] → [1/(1+√3), √3/(1+√3)]
    two = torch.tensor([[[0.0, float(torch.log(torch.tensor(3.0)))]]])
    assert abs(gather_token_logprobs(two, torch.tensor([[1]])).exp().item() - 0.75) < 1e-6
    p = gather_token_logprobs(two, torch.tensor([[0]]), temperature=2.0).exp().item()
    assert abs(p - 1 / (1 + 3**0.5)) < 1e-6


def test_gather_returns_float32_for_half_logits():
    logits = torch.randn(1, 3, 5).to(torch.bfloat16)
    out = gather_token_logprobs(logits, torch.tensor([[0, 1, 2]]))
    assert out.dtype == torch.float32


def test_sequence_token_logprobs_equals_manual_log_softmax(tiny_model, tokenizer):
    ids = torch.tensor([_ids(tokenizer, "You arrive at the red box. Memory: visited: red")])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        out = sequence_token_logprobs(tiny_model, ids, mask)
        logits = tiny_model(input_ids=ids).logits  # [1, T, V]
    manual = torch.log_softmax(logits[0].float(), -1)  # [T, V]
    T = ids.shape[1]
    assert out.shape == (1, T)
    assert out[0, 0].item() == 0.0
    for t in range(1, T):
        assert abs(out[0, t].item() - manual[t - 1, ids[0, t]].item()) < 1e-5
    # at temperature 0.7: log_softmax(logits / 0.7)
    with torch.no_grad():
        warm = sequence_token_logprobs(tiny_model, ids, mask, temperature=0.7)
    manual_t = torch.log_softmax(logits[0].float() / 0.7, -1)
    expected = torch.stack([manual_t[t - 1, ids[0, t]] for t in range(1, T)])
    torch.testing.assert_close(warm[0, 1:], expected, atol=1e-5, rtol=0)


def test_left_padding_gives_the_unpadded_values(tiny_model, tokenizer):
    texts = ["open red box", "You see a red box, a blue box.", "go to blue box"]
    rows = [_ids(tokenizer, t) for t in texts]
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows])
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
    assert mask[0].sum() < width  # at least one row is really padded
    with torch.no_grad():
        batched = sequence_token_logprobs(tiny_model, ids, mask)
        for i, r in enumerate(rows):
            alone = sequence_token_logprobs(tiny_model, torch.tensor([r]), torch.ones(1, len(r), dtype=torch.long))
            # positions 1.. of the real tokens (position 0 of a row has no context: 0 by definition)
            torch.testing.assert_close(batched[i, width - len(r) + 1 :], alone[0, 1:], atol=1e-5, rtol=0)


def test_sequence_token_logprobs_has_gradients(fresh_tiny_model, tokenizer):
    ids = torch.tensor([_ids(tokenizer, "go to red box")])
    out = sequence_token_logprobs(fresh_tiny_model, ids, torch.ones_like(ids))
    out.sum().backward()
    grad = fresh_tiny_model.model.embed_tokens.weight.grad
    assert grad is not None and grad.abs().sum() > 0


def test_first_position_skips_the_prompt_and_keeps_the_rest(tiny_model, tokenizer):
    rows = [_ids(tokenizer, "You see a red box, a blue box."), _ids(tokenizer, "open red box")]
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    with torch.no_grad():
        full = sequence_token_logprobs(tiny_model, ids, mask, temperature=0.8)
        for first in (1, 3, width - 1, width):
            part = sequence_token_logprobs(tiny_model, ids, mask, temperature=0.8, first_position=first)
            assert part.shape == full.shape
            assert (part[:, :first] == 0).all()
            torch.testing.assert_close(part[:, first:], full[:, first:], atol=1e-6, rtol=0)
