"""Least-padding micro-batch partition: hand-worked cases and invariants."""

from __future__ import annotations

import random

import pytest

from coevo.core.data.buckets import padded_buckets


def test_a_long_tail_gets_its_own_batch():
    # one group: 4 x 9 + 3 = 39; [2, 2, 2] + [9]: 3 x 2 + 3 + 9 + 3 = 21 (cheapest)
    assert padded_buckets([2, 9, 2, 2], max_tokens=100, overhead=3) == [[0, 2, 3], [1]]


def test_the_call_overhead_keeps_similar_lengths_together():
    # one group: 3 x 5 + 10 = 25; [4, 4] + [5]: 8 + 10 + 5 + 10 = 33
    assert padded_buckets([5, 4, 4], max_tokens=100, overhead=10) == [[1, 2, 0]]


def test_a_math_batch_splits_where_the_lengths_jump():
    lengths = [32] + [38] * 7 + [43] * 8 + [44] * 8 + [58, 58, 62, 62, 62, 62, 63, 64]
    groups = padded_buckets(lengths, max_tokens=8192, overhead=64)
    # 32 x 64 + 64 = 2,112 as one batch; 24 x 44 + 64 + 8 x 64 + 64 = 1,696 as two
    assert [len(g) for g in groups] == [24, 8]


def test_empty_and_oversized():
    assert padded_buckets([], max_tokens=10) == []
    assert padded_buckets([30, 3], max_tokens=10, overhead=0) == [[1], [0]]  # 30 > 10 goes alone


@pytest.mark.parametrize("seed", range(5))
def test_every_index_once_within_budget_and_no_worse_than_greedy(seed):
    rng = random.Random(seed)
    lengths = [rng.randint(1, 60) for _ in range(rng.randint(1, 80))]
    groups = padded_buckets(lengths, max_tokens=128, overhead=16)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    flat = [i for g in groups for i in g]
    assert [lengths[i] for i in flat] == sorted(lengths)  # contiguous runs of the sorted order
    for g in groups:
        assert len(g) == 1 or len(g) * max(lengths[i] for i in g) <= 128
    cost = sum(len(g) * max(lengths[i] for i in g) + 16 for g in groups)
    assert cost <= _greedy_cost(sorted(lengths), 128, 16)


def _greedy_cost(lengths, max_tokens, overhead):
    """The previous rule: fill each batch in sorted order until the next one would not fit."""
    cost, count = 0, 0
    for k, n in enumerate(lengths):
        if count and n * (count + 1) > max_tokens:
            cost += count * lengths[k - 1] + overhead
            count = 0
        count += 1
    return cost + count * lengths[-1] + overhead
