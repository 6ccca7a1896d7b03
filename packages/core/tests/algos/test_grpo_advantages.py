"""GRPO and RLOO advantage estimators, against hand-computed values."""

from __future__ import annotations

import math

import pytest
import torch

from coevo.core import registry
from coevo.core.algos.advantages import grpo_advantages, rloo_advantages


def test_grpo_two_groups_hand_computed():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    groups = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
    adv = grpo_advantages(rewards, groups)
    # group 0: mean 0.5, centred ±0.5, unbiased var = 4*0.25/3 = 1/3, std = sqrt(1/3)
    #          → A = ±0.5 / sqrt(1/3) = ±sqrt(3)/2 ≈ ±0.866025 (eps 1e-6 changes the 6th digit)
    # group 1: all rewards equal → centred 0 → A = 0 / (0 + eps) = 0
    h = math.sqrt(3) / 2
    expected = torch.tensor([h, -h, -h, h, 0.0, 0.0, 0.0, 0.0])
    torch.testing.assert_close(adv, expected, atol=1e-5, rtol=0)
    assert adv.shape == (8,) and adv.dtype == torch.float32


def test_grpo_interleaved_and_non_contiguous_group_ids():
    rewards = torch.tensor([2.0, 4.0, 0.0, 10.0])
    groups = torch.tensor([7, 3, 7, 3])
    # group 7: rewards [2, 0], mean 1, centred [1, -1], var = 2/1, std = sqrt(2) → ±1/sqrt(2)
    # group 3: rewards [4, 10], mean 7, centred [-3, 3], var = 18/1, std = 3 sqrt(2) → ∓1/sqrt(2)
    r = 1 / math.sqrt(2)
    torch.testing.assert_close(grpo_advantages(rewards, groups), torch.tensor([r, -r, -r, r]), atol=1e-5, rtol=0)
    # Dr. GRPO: only the group mean is subtracted
    torch.testing.assert_close(
        grpo_advantages(rewards, groups, scale_by_std=False), torch.tensor([1.0, -3.0, -1.0, 3.0])
    )


def test_grpo_without_std_is_centred():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    groups = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
    adv = grpo_advantages(rewards, groups, scale_by_std=False)
    torch.testing.assert_close(adv, torch.tensor([0.5, -0.5, -0.5, 0.5, 0.0, 0.0, 0.0, 0.0]))


def test_grpo_all_equal_group_and_singleton_give_zero():
    adv = grpo_advantages(torch.tensor([3.0, 3.0, 3.0, 5.0]), torch.tensor([0, 0, 0, 1]))
    assert torch.equal(adv, torch.zeros(4))  # equal group: 0/(0+eps); singleton: centred 0
    assert torch.isfinite(adv).all()


def test_grpo_accepts_integer_rewards():
    adv = grpo_advantages(torch.tensor([1, 0]), torch.tensor([0, 0]))
    # mean 0.5, centred ±0.5, unbiased std = sqrt(0.5/1) = 0.7071 → ±0.7071
    torch.testing.assert_close(adv, torch.tensor([0.70711, -0.70711]), atol=1e-4, rtol=0)


def test_rloo_hand_computed():
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 3.0, 1.0, 2.0, 5.0])
    groups = torch.tensor([0, 0, 0, 0, 1, 1, 1, 2])
    adv = rloo_advantages(rewards, groups)
    # group 0: baseline of i = mean of the other three: [1/3, 2/3, 2/3, 1/3] → [2/3, -2/3, -2/3, 2/3]
    # group 1: baselines [(1+2)/2, (3+2)/2, (3+1)/2] = [1.5, 2.5, 2] → [1.5, -1.5, 0]
    # group 2: a singleton has no baseline → 0
    expected = torch.tensor([2 / 3, -2 / 3, -2 / 3, 2 / 3, 1.5, -1.5, 0.0, 0.0])
    torch.testing.assert_close(adv, expected)


def test_rloo_equals_scaled_centred_reward():
    # A_i = R_i - (S - R_i)/(n-1) = n/(n-1) (R_i - mean): check on a random group of 5
    gen = torch.Generator().manual_seed(0)
    rewards = torch.rand(5, generator=gen)
    groups = torch.zeros(5, dtype=torch.long)
    torch.testing.assert_close(rloo_advantages(rewards, groups), 5 / 4 * (rewards - rewards.mean()))


@pytest.mark.parametrize("name, fn", [("grpo", grpo_advantages), ("rloo", rloo_advantages)])
def test_estimators_are_registered(name, fn):
    assert registry.advantages.get(name) is fn


# --- ties: a group of equal returns gets exactly 0, whatever the value, size and order ---------

ESTIMATORS = [(grpo_advantages, True), (grpo_advantages, False), (rloo_advantages, True), (rloo_advantages, False)]
# values that are not binary fractions (0.9 in float32 is 0.89999998: 8 × 0.9 / 8 missed it by an ulp)
AWKWARD = [0.9, 0.8, 0.7, 2.7, 0.1, 1 / 3, -0.35, 1e6 + 0.1, 1e-7, -2.2e4 / 7]


@pytest.mark.parametrize("fn, scale", ESTIMATORS)
@pytest.mark.parametrize("value", AWKWARD)
@pytest.mark.parametrize("size", [2, 3, 7, 8, 16, 33, 64])
def test_tied_group_is_exactly_zero(fn, scale, value, size):
    # group 0: `size` copies of `value`; group 1: a real spread, so the batch has work to do
    rewards = torch.tensor([value] * size + [0.0, 1.0, 0.5])
    groups = torch.tensor([0] * size + [1, 1, 1])
    adv = fn(rewards, groups, scale_by_std=scale)
    assert torch.equal(adv[:size], torch.zeros(size))  # exactly, not approximately
    assert adv[size:].abs().sum() > 0


@pytest.mark.parametrize("fn, scale", ESTIMATORS)
def test_ties_through_different_arithmetic_are_ties(fn, scale):
    # 0.1 + 0.2 != 0.3 in binary floating point (they differ in the 17th digit): one reward value
    rewards = torch.tensor([0.1 + 0.2, 0.3, 0.3, 0.1 + 0.2], dtype=torch.float64)
    assert torch.equal(fn(rewards, torch.zeros(4, dtype=torch.long), scale_by_std=scale), torch.zeros(4))


def test_small_real_difference_is_not_a_tie():
    # 1e-3 is a thousand times the tie tolerance: ±sqrt(3)/2 as in the hand-computed 0/1 group
    adv = grpo_advantages(torch.tensor([0.9, 0.901, 0.901, 0.9]), torch.zeros(4, dtype=torch.long))
    h = math.sqrt(3) / 2
    torch.testing.assert_close(adv, torch.tensor([-h, h, h, -h]), atol=2e-3, rtol=0)


@pytest.mark.parametrize("seed", range(20))
def test_random_batches_ties_zero_groups_centred_and_order_free(seed):
    gen = torch.Generator().manual_seed(seed)
    num_groups = int(torch.randint(1, 9, (1,), generator=gen))
    rewards, groups = [], []
    for g in range(num_groups):
        size = int(torch.randint(2, 65, (1,), generator=gen))
        if torch.rand(1, generator=gen) < 0.5:  # tied: one non-binary value
            value = float(torch.randn(1, generator=gen) * 3)
            rewards += [value] * size
        else:  # partial credit in steps of 0.1, ties inside the group
            rewards += (torch.randint(0, 11, (size,), generator=gen) / 10).tolist()
        groups += [g] * size
    rewards, groups = torch.tensor(rewards), torch.tensor(groups)
    perm = torch.randperm(len(rewards), generator=gen)
    for fn, scale in ESTIMATORS:
        adv = fn(rewards, groups, scale_by_std=scale)
        for g in range(num_groups):
            member = groups == g
            r = rewards[member]
            if bool((r == r[0]).all()):
                assert torch.equal(adv[member], torch.zeros(int(member.sum())))
            else:  # centred: a group's advantages sum to 0; equal rewards get equal advantages
                assert abs(float(adv[member].sum())) < 1e-4 * int(member.sum())
                for value in r.unique():
                    same = adv[member][r == value]
                    assert torch.equal(same, same[:1].expand_as(same))
        # the same episodes in another order get the same advantages
        torch.testing.assert_close(fn(rewards[perm], groups[perm], scale_by_std=scale), adv[perm], atol=1e-6, rtol=0)
