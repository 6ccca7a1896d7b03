"""Token-budget micro-batching: every sample exactly once, right padding, masks."""

from __future__ import annotations

import random

import pytest
import torch

from coevo.core.algos.batching import Sample, collate_samples, first_response_position
from coevo.core.algos.micro_batches import split_micro_batches

PAD = 0


def _sample(n: int, tag: int, n_prompt: int = 1, advantage: float = 0.0, with_lp: bool = True) -> Sample:
    ids = [100 * tag + k + 1 for k in range(n)]  # distinct, never the pad id
    mask = [0] * n_prompt + [1] * (n - n_prompt)
    lp = [0.0] * n_prompt + [-0.1 * (k + 1) for k in range(n - n_prompt)] if with_lp else None
    return Sample(ids, mask, advantage, lp)


def test_hand_worked_packing():
    samples = [_sample(5, 0), _sample(2, 1), _sample(7, 2), _sample(3, 3)]
    batches = split_micro_batches(samples, max_tokens=10, pad_id=PAD)
    # sorted by length: #1 (2), #3 (3), #0 (5), #2 (7)
    # [#1, #3] → 3 x 2 = 6 <= 10; adding #0 → 5 x 3 = 15 > 10; [#0, #2] → 7 x 2 = 14 > 10
    assert [b.indices for b in batches] == [[1, 3], [0], [2]]
    assert [tuple(b.input_ids.shape) for b in batches] == [(2, 3), (1, 5), (1, 7)]
    for b in batches:
        assert b.input_ids.numel() <= 10


def test_right_padding_and_masks():
    samples = [_sample(4, 0, n_prompt=2, advantage=0.5), _sample(2, 1, n_prompt=1, advantage=-1.5, with_lp=False)]
    (batch,) = split_micro_batches(samples, max_tokens=100, pad_id=PAD)
    assert batch.indices == [1, 0]  # shortest first
    assert batch.input_ids.tolist() == [[101, 102, PAD, PAD], [1, 2, 3, 4]]
    assert batch.attention_mask.tolist() == [[1, 1, 0, 0], [1, 1, 1, 1]]
    assert batch.agent_mask.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    assert batch.advantages.tolist() == [[-1.5, -1.5, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5]]
    # no rollout log-probs → zeros; otherwise copied, padding 0
    torch.testing.assert_close(batch.rollout_logprobs, torch.tensor([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, -0.1, -0.2]]))
    assert batch.input_ids.dtype == torch.long and batch.agent_mask.dtype == torch.float32


def test_a_sample_longer_than_the_budget_gets_its_own_batch():
    samples = [_sample(3, 0), _sample(12, 1), _sample(3, 2)]
    batches = split_micro_batches(samples, max_tokens=8, pad_id=PAD)
    # [#0, #2] → 3 x 2 = 6 <= 8; #1 alone (12 tokens, it cannot be split)
    assert [b.indices for b in batches] == [[0, 2], [1]]


@pytest.mark.parametrize("seed", range(3))
def test_random_samples_are_covered_exactly_once_within_budget(seed):
    rng = random.Random(seed)
    samples = [_sample(rng.randint(2, 20), tag) for tag in range(40)]
    max_tokens = 64
    batches = split_micro_batches(samples, max_tokens=max_tokens, pad_id=PAD)
    indices = [i for b in batches for i in b.indices]
    assert sorted(indices) == list(range(40))
    for b in batches:
        assert b.input_ids.numel() <= max_tokens
        assert b.input_ids.shape[1] == max(len(samples[i].input_ids) for i in b.indices)
        for row, i in enumerate(b.indices):
            n = len(samples[i].input_ids)
            assert b.input_ids[row, :n].tolist() == samples[i].input_ids
            assert (b.input_ids[row, n:] == PAD).all()
            assert b.attention_mask[row].sum().item() == n
            assert b.agent_mask[row].tolist() == samples[i].agent_mask + [0.0] * (b.input_ids.shape[1] - n)


def test_empty_input_gives_no_batches():
    assert split_micro_batches([], max_tokens=10, pad_id=PAD) == []


def test_collate_keeps_given_indices():
    batch = collate_samples([_sample(2, 0)], [7], pad_id=PAD)
    assert batch.indices == [7]


def test_first_response_position_is_the_earliest_agent_column():
    batch = collate_samples([_sample(6, 0, n_prompt=4), _sample(5, 1, n_prompt=2)], [0, 1], pad_id=PAD)
    assert first_response_position(batch) == 2
    none = collate_samples([Sample([1, 2, 3], [0, 0, 0])], [0], pad_id=PAD)
    assert first_response_position(none) == 3
