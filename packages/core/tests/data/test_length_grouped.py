"""Length-grouped SFT batches: every sequence once per epoch, random order, far less padding."""

import pytest
import torch

from coevo.core.data.length_grouped import LengthGroupedBatches


def padding_share(batches: list[list[int]], lengths: list[int]) -> float:
    """Share of padded positions when each batch is padded to its longest sequence."""
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return 1.0 - sum(lengths[i] for b in batches for i in b) / padded if padded else 0.0


def _lengths(n=1000, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(40, 200, (n,), generator=g).tolist()


def test_an_epoch_visits_every_index_once_in_batches_of_at_most_batch_size():
    lengths = _lengths(1001)
    batches = list(LengthGroupedBatches(lengths, 32, torch.Generator().manual_seed(1)))
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(1001))
    assert all(1 <= len(b) <= 32 for b in batches)
    assert len(batches) == len(LengthGroupedBatches(lengths, 32, torch.Generator())) == 32  # ceil(1001 / 32)


def test_same_seed_same_batches_and_epochs_differ():
    lengths = _lengths()
    a = LengthGroupedBatches(lengths, 32, torch.Generator().manual_seed(3))
    b = LengthGroupedBatches(lengths, 32, torch.Generator().manual_seed(3))
    first_a, first_b = list(a), list(b)
    assert first_a == first_b
    assert list(a) != first_a  # the next epoch is another order


def test_padding_is_a_fraction_of_random_batches():
    lengths = _lengths()
    grouped = list(LengthGroupedBatches(lengths, 32, torch.Generator().manual_seed(0)))
    order = torch.randperm(len(lengths), generator=torch.Generator().manual_seed(0)).tolist()
    random_batches = [order[k : k + 32] for k in range(0, len(order), 32)]
    # uniform lengths 40-199: a random batch of 32 pads to ~195, the mean is ~120 (~38% padding);
    # a sorted window of 16 batches leaves ~10 length units between a batch's shortest and longest
    assert padding_share(random_batches, lengths) > 0.3
    assert padding_share(grouped, lengths) < 0.06


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="batch_size"):
        LengthGroupedBatches([3, 4], 0, torch.Generator())
