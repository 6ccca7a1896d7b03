"""The micro-batch interface (``coevo.core.algos.micro_batches``): token and choice micro-batches
built from hand-made samples give the log-probs, masks, advantages and token counts computed by
hand, and splitting any list of samples gives micro-batches of one kind each that cover it once."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.algos.batching import Sample, TokenMicroBatch
from coevo.core.algos.choice_batching import ChoiceMicroBatch, ChoiceSample
from coevo.core.algos.micro_batches import (
    LogprobScoring,
    loss_normalizer,
    loss_tensors,
    padding_micro_batch,
    split_micro_batches,
)

PAD = 0
V = 4  # vocabulary of the toy model


class PreviousTokenModel(torch.nn.Module):
    """A causal LM whose next-token logits are ``ln 3`` on the current token and 0 elsewhere, so
    p(next = current) = 3 / (3 + 3) = 1/2 and p(any other) = 1/6, whatever the context."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(V, V)
        with torch.no_grad():
            self.table.weight.copy_(math.log(3.0) * torch.eye(V))
        self.table.weight.requires_grad_(False)

    def forward(self, input_ids, attention_mask=None, position_ids=None, use_cache=False, logits_to_keep=0):
        logits = self.table(input_ids)  # [B, T, V]
        if isinstance(logits_to_keep, torch.Tensor):
            return SimpleNamespace(logits=logits[:, logits_to_keep])
        return SimpleNamespace(logits=logits[:, -logits_to_keep:] if logits_to_keep else logits)


HALF, SIXTH = math.log(1 / 2), math.log(1 / 6)


def test_token_micro_batch_by_hand():
    # row 0: prompt [1], response [1, 2]: log p(1 | 1) = ln 1/2, log p(2 | 1) = ln 1/6
    # row 1: prompt [3], response [3]: ln 1/2; its third column is padding (mask 0)
    samples = [Sample([1, 1, 2], [0, 1, 1], 0.5, [0.0, -0.7, -1.5]), Sample([3, 3], [0, 1], -1.0, [0.0, -0.2])]
    (mb,) = split_micro_batches(samples, max_tokens=64, pad_id=PAD)
    assert isinstance(mb, TokenMicroBatch) and mb.indices == [1, 0]  # shortest first
    assert mb.samples == [samples[1], samples[0]]
    row = {index: r for r, index in enumerate(mb.indices)}
    mask, adv, old = loss_tensors(mb, "cpu")  # [2, 3]
    assert mask[row[0]].tolist() == [0, 1, 1] and mask[row[1]].tolist() == [0, 1, 0]
    assert adv[row[0]].tolist() == [0.5] * 3 and adv[row[1]].tolist() == [-1.0, -1.0, 0.0]
    assert old[row[0]].tolist() == pytest.approx([0.0, -0.7, -1.5]) and old[row[1]].tolist() == pytest.approx([0.0, -0.2, 0.0])
    assert mb.forward_tokens == 5  # 3 + 2, padding excluded
    lp = mb.logprobs(PreviousTokenModel(), LogprobScoring(PAD), "cpu")  # [2, 3]
    assert (lp[row[0]] * mask[row[0]]).tolist() == pytest.approx([0.0, HALF, SIXTH])
    assert (lp[row[1]] * mask[row[1]]).tolist() == pytest.approx([0.0, HALF, 0.0])
    # at temperature 2 the logit ln 3 halves: p(same) = √3 / (√3 + 3)
    hot = mb.logprobs(PreviousTokenModel(), LogprobScoring(PAD, temperature=2.0), "cpu")
    assert float(hot[row[1], 1]) == pytest.approx(math.log(math.sqrt(3) / (math.sqrt(3) + 3)))
    # every position from 1 on (skip_prompt=False) gives the same response values
    full = mb.logprobs(PreviousTokenModel(), LogprobScoring(PAD, skip_prompt=False), "cpu")
    assert torch.allclose(full * mask, lp * mask)


def test_choice_micro_batch_by_hand():
    # prompt [1]; candidates [1] (ln 1/2), [2] (ln 1/6), [1, 1] (sum: ln 1/4, mean: ln 1/2)
    # sum:  p(pick 2) = (1/4) / (1/2 + 1/6 + 1/4) = 3/11;  mean: (1/2) / (1/2 + 1/6 + 1/2) = 3/7
    # one candidate: p = 1; two identical candidates (a tie): 1/2 each
    samples = [
        ChoiceSample([1], [[1], [2], [1, 1]], 2, 0.25, -1.1),
        ChoiceSample([2], [[3]], 0, -0.5, 0.0),
        ChoiceSample([3], [[1], [1]], 1, 1.0, -0.69),
    ]
    (mb,) = split_micro_batches(samples, max_tokens=64, pad_id=PAD)
    assert isinstance(mb, ChoiceMicroBatch) and mb.indices == [1, 2, 0]  # by packed length
    assert mb.samples == [samples[i] for i in mb.indices]
    row = {index: r for r, index in enumerate(mb.indices)}
    mask, adv, old = loss_tensors(mb, "cpu")  # [3, 1]
    assert mask.tolist() == [[1.0]] * 3
    assert [float(adv[row[i], 0]) for i in range(3)] == [0.25, -0.5, 1.0]
    assert [float(old[row[i], 0]) for i in range(3)] == pytest.approx([-1.1, 0.0, -0.69])
    assert mb.forward_tokens == (1 + 4) + (1 + 1) + (1 + 2)  # prompt once, then every candidate
    model = PreviousTokenModel()
    lp = mb.logprobs(model, LogprobScoring(PAD, choice_score="sum"), "cpu")  # [3, 1]
    assert [float(lp[row[i], 0]) for i in range(3)] == pytest.approx([math.log(3 / 11), 0.0, HALF], abs=1e-6)
    mean = mb.logprobs(model, LogprobScoring(PAD, choice_score="mean"), "cpu")
    assert float(mean[row[0], 0]) == pytest.approx(math.log(3 / 7), abs=1e-6)


def test_store_rollout_logprobs_writes_back_into_the_samples():
    token = [Sample([1, 1, 2], [0, 1, 1]), Sample([3, 3], [0, 1])]
    choice = [ChoiceSample([1], [[1], [2]], 0)]
    model = PreviousTokenModel()
    for mb in split_micro_batches(token + choice, max_tokens=64, pad_id=PAD):
        mb.store_rollout_logprobs(mb.logprobs(model, LogprobScoring(PAD), "cpu"))
    assert token[0].rollout_logprobs == pytest.approx([0.0, HALF, SIXTH])
    assert token[1].rollout_logprobs == pytest.approx([0.0, HALF])  # its own length, not the padded width
    assert choice[0].rollout_logprob == pytest.approx(math.log(3 / 4))  # (1/2) / (1/2 + 1/6)


def test_loss_normalizer_counts_response_tokens_and_one_per_pick():
    samples = [Sample([1, 2, 3], [0, 1, 1]), ChoiceSample([1], [[1], [2]], 0), Sample([1, 2], [0, 0])]
    assert loss_normalizer(samples, "token_mean") == 2 + 1 + 0
    assert loss_normalizer(samples, "seq_mean_token_mean") == 3
    assert loss_normalizer([], "token_mean") == loss_normalizer([], "seq_mean_token_sum") == 1.0
    assert loss_normalizer([Sample([1], [0])], "token_mean") == 1.0  # at least 1


def test_padding_micro_batch_trains_nothing():
    mb = padding_micro_batch(PAD)
    mask, adv, old = loss_tensors(mb, "cpu")
    assert mb.input_ids.tolist() == [[PAD, PAD]] and mask.tolist() == [[0.0, 1.0]]
    assert adv.abs().sum() == 0 and old.abs().sum() == 0


def test_mixed_samples_split_by_kind_in_order_of_appearance():
    samples = [ChoiceSample([1], [[2]], 0), Sample([1, 2], [0, 1]), ChoiceSample([3], [[1], [2]], 1)]
    mbs = split_micro_batches(samples, max_tokens=64, pad_id=PAD)
    assert [type(mb) for mb in mbs] == [ChoiceMicroBatch, TokenMicroBatch]
    assert sorted(mbs[0].indices) == [0, 2] and mbs[1].indices == [1]


_tokens = st.lists(st.integers(1, V - 1), min_size=0, max_size=6)


@st.composite
def _samples(draw):
    if draw(st.booleans()):
        prompt = draw(st.lists(st.integers(1, V - 1), min_size=1, max_size=6))
        response = draw(_tokens)  # may be empty: a sample with nothing to train
        return Sample(prompt + response, [0] * len(prompt) + [1] * len(response), draw(st.floats(-2, 2)))
    candidates = draw(st.lists(st.lists(st.integers(1, V - 1), min_size=1, max_size=3), min_size=1, max_size=4))
    choice = draw(st.integers(0, len(candidates) - 1))
    return ChoiceSample(draw(st.lists(st.integers(1, V - 1), min_size=1, max_size=4)), candidates, choice,
                        draw(st.floats(-2, 2)))


@settings(max_examples=60, deadline=None)
@given(st.lists(_samples(), max_size=12), st.integers(1, 40))
def test_split_covers_every_sample_once_in_micro_batches_of_one_kind(samples, budget):
    mbs = split_micro_batches(samples, budget, PAD)
    assert sorted(i for mb in mbs for i in mb.indices) == list(range(len(samples)))
    for mb in mbs:
        assert mb.samples == [samples[i] for i in mb.indices]
        assert len({type(s).__name__ for s in mb.samples}) == 1
        width = max(s.cost for s in mb.samples)
        assert len(mb.samples) == 1 or len(mb.samples) * width <= budget  # the budget, or alone
        mask, adv, _ = loss_tensors(mb, "cpu")  # [b, T]
        assert mask.shape == adv.shape and mask.shape[0] == len(mb.samples)
        assert mask.sum(-1).tolist() == [float(s.loss_units) for s in mb.samples]
        assert adv[:, 0].tolist() == pytest.approx([s.advantage for s in mb.samples], abs=1e-6)
    # token_mean: the micro-batches' masks add up to the normaliser (at least 1)
    units = sum(float(loss_tensors(mb, "cpu")[0].sum()) for mb in mbs)
    assert loss_normalizer(samples, "token_mean") == max(1.0, units)
