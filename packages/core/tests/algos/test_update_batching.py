"""GRPO's update batching: least-padding micro-batches and response-only log-probs give the same
loss and gradients as one padded batch scored at every position (the computation before)."""

from __future__ import annotations

import random

import torch

from coevo.core.algos.batching import Sample, collate_samples, first_response_position
from coevo.core.algos.losses import clipped_policy_gradient_loss
from coevo.core.algos.micro_batches import split_micro_batches
from coevo.core.policy.logprobs import sequence_token_logprobs


def _samples(vocab: int, seed: int = 0) -> list[Sample]:
    rng = random.Random(seed)
    samples = []
    for k in range(12):
        n_prompt = rng.randint(3, 30) if k % 3 else rng.randint(40, 60)  # a long tail, as in agent turns
        n_response = rng.randint(1, 12)
        ids = [rng.randrange(3, vocab) for _ in range(n_prompt + n_response)]
        samples.append(Sample(ids, [0] * n_prompt + [1] * n_response, advantage=rng.uniform(-1, 1)))
    return samples


def _loss_and_grads(model, batches, normalizer, first_position):
    model.zero_grad()
    total = 0.0
    for mb in batches:
        lp = sequence_token_logprobs(model, mb.input_ids, mb.attention_mask, 0.9, first_position(mb))  # [b, T]
        loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), mb.advantages, mb.agent_mask, 0.2, 0.2,
                                               "token_mean", normalizer)
        loss.backward()
        total += float(loss)
    return total, [p.grad.clone() for p in model.parameters()]


def test_buckets_and_first_position_match_one_full_batch(fresh_tiny_model, tokenizer):
    model = fresh_tiny_model.train()
    samples = _samples(len(tokenizer))
    normalizer = float(sum(sum(s.agent_mask) for s in samples))
    buckets = split_micro_batches(samples, max_tokens=400, pad_id=tokenizer.pad_token_id)
    assert len(buckets) > 1  # the long prompts are split off
    one = [collate_samples(samples, list(range(len(samples))), tokenizer.pad_token_id)]
    expected_loss, expected_grads = _loss_and_grads(model, one, normalizer, lambda mb: 1)
    loss, grads = _loss_and_grads(model, buckets, normalizer, first_response_position)
    assert abs(loss - expected_loss) < 1e-6
    for got, want in zip(grads, expected_grads):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-5)
    padded = sum(mb.input_ids.numel() for mb in buckets)
    assert padded < one[0].input_ids.numel()
