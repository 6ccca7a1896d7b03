"""The choice distribution over candidate replies: hand-computed log-softmax, gradients through
the shared prompt cache, and agreement with the per-sequence log-probs."""

from __future__ import annotations

import math

import pytest
import torch

from coevo.core.policy.candidates import (
    candidate_scores,
    candidate_token_logprobs,
    choice_log_softmax,
    packed_candidate_token_logprobs,
)
from coevo.core.policy.logprobs import sequence_token_logprobs


def test_choice_log_softmax_is_per_prompt():
    scores = torch.tensor([1.0, 2.0, 3.0, 0.0, 0.0])
    owner = torch.tensor([0, 0, 0, 1, 1])
    out = choice_log_softmax(scores, owner, num_prompts=2, temperature=0.5)
    z = 1 + math.exp(2) + math.exp(4)  # exp((s - 1) / 0.5) for s = 1, 2, 3
    expected = [-math.log(z), 2 - math.log(z), 4 - math.log(z), math.log(0.5), math.log(0.5)]
    assert torch.allclose(out, torch.tensor(expected), atol=1e-6)


def test_candidate_scores_sum_and_mean_ignore_padding():
    lp = torch.tensor([[-1.0, -3.0, 0.0], [-2.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    assert candidate_scores(lp, mask, "sum").tolist() == [-4.0, -2.0]
    assert candidate_scores(lp, mask, "mean").tolist() == [-2.0, -2.0]


@pytest.mark.parametrize("scorer", [candidate_token_logprobs, packed_candidate_token_logprobs])
def test_candidate_logprobs_match_full_sequences_and_carry_gradients(fresh_tiny_model, tokenizer, scorer):
    model = fresh_tiny_model
    prompts = [tokenizer.encode("open red box", add_special_tokens=False),
               tokenizer.encode("go to blue box now", add_special_tokens=False)]
    candidates = [[tokenizer.encode("look", add_special_tokens=False), [],
                   tokenizer.encode("open blue", add_special_tokens=False)],
                  [tokenizer.encode("inventory", add_special_tokens=False)]]
    result = scorer(model, prompts, candidates, tokenizer.pad_token_id)
    assert result.index == [(0, 0), (0, 2), (1, 0)]
    for r, (i, j) in enumerate(result.index):
        ids = torch.tensor([prompts[i] + candidates[i][j]])
        full = sequence_token_logprobs(model, ids, torch.ones_like(ids))[0, len(prompts[i]):]  # [C]
        n = len(candidates[i][j])
        assert torch.allclose(result.logprobs[r, :n], full, atol=1e-5)
    scores = candidate_scores(result.logprobs, result.mask, "mean")
    choice = choice_log_softmax(scores, result.owner, 2, 1.0)
    assert torch.allclose(choice[2], torch.tensor(0.0), atol=1e-6)  # a single candidate is certain
    model.zero_grad()
    choice[1].backward()
    shared = {n: p.grad.clone() for n, p in model.named_parameters()}
    # the same quantity from two independent full-sequence forwards: identical gradients, so the
    # gradient flows through the shared KV cache into the prompt's forward pass
    model.zero_grad()
    means = []
    for cand in (candidates[0][0], candidates[0][2]):
        ids = torch.tensor([prompts[0] + cand])
        means.append(sequence_token_logprobs(model, ids, torch.ones_like(ids))[0, len(prompts[0]):].mean())
    torch.log_softmax(torch.stack(means), 0)[1].backward()
    for name, param in model.named_parameters():
        assert torch.allclose(shared[name], param.grad, atol=1e-5), name
    assert any(g.abs().sum() > 0 for n, g in shared.items() if "layers.0.self_attn.k_proj" in n)
