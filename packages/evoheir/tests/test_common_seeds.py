"""Common random numbers in the paired judge, by simulation with known gains.

Each item i has a known success probability under the root (p_i) and under the proposal (p_i + g_i).
A sampled answer is a uniform draw u: success when u < p. Independent seeds give each policy its
own draws; common seeds (what ``commit.common_seeds`` / ``callbacks.heircommit.common_seeds`` do:
both policies replay an item with the same seed) give both the same u. The paired differences stay
independent across items and in [-1, 1], so the certified bar keeps its guarantee: a harmful update
(true gain <= 0) passes decision t with probability <= δ_t, under either scheme; common seeds only
shrink the variance of v, never move its mean.
"""

import pytest
import torch

from coevo.evoheir.threshold import certified_threshold, decision_delta

TRIALS = 20_000


def _v(p_root, gain, m, samples, common, generator):  # p_root, gain: [trials, m] -> v: [trials]
    u_new = torch.rand(p_root.shape + (samples,), generator=generator)  # [trials, m, samples]
    u_old = u_new if common else torch.rand(p_root.shape + (samples,), generator=generator)
    new = (u_new < (p_root + gain).unsqueeze(-1)).float().mean(-1)  # [trials, m] proposal success per item
    old = (u_old < p_root.unsqueeze(-1)).float().mean(-1)  # [trials, m] root success per item
    return (new - old).mean(-1)


def _items(m, mean_gain, generator):
    """Fresh items per trial: root success spread over (0.1, 0.9), gains around ``mean_gain`` (±0.1)."""
    p_root = 0.1 + 0.8 * torch.rand(TRIALS, m, generator=generator)
    gain = mean_gain + 0.2 * (torch.rand(TRIALS, m, generator=generator) - 0.5)
    gain = gain.clamp(-p_root, 1 - p_root)
    return p_root, gain


@pytest.mark.parametrize("common", [True, False])
@pytest.mark.parametrize("t", [1, 3])
def test_a_harmful_update_passes_the_certified_bar_at_most_delta_t_of_the_time(common, t):
    generator = torch.Generator().manual_seed(t)
    m, delta = 64, 0.1
    tau = certified_threshold(1.0, delta, t, m)  # t=1: 0.306; t=3: 0.392
    p_root, gain = _items(m, 0.0, generator)  # true gain 0: the hardest harmful case
    passed = (_v(p_root, gain, m, 2, common, generator) > tau).float().mean().item()
    assert passed <= decision_delta(delta, t)
    # the worst paired difference for the bound: ±1 with probability 1/2 each (variance 1, σ = 1)
    worst = (torch.randint(0, 2, (TRIALS, m), generator=generator).float() * 2 - 1).mean(-1)
    assert (worst > tau).float().mean().item() <= decision_delta(delta, t)


def test_common_seeds_keep_the_mean_of_v_and_shrink_its_variance():
    generator = torch.Generator().manual_seed(0)
    m = 16
    p_root, gain = _items(m, 0.05, generator)
    true_gain = gain.mean().item()
    common = _v(p_root, gain, m, 2, True, generator)
    independent = _v(p_root, gain, m, 2, False, generator)
    # both unbiased (standard errors: about 0.0006 common, 0.0018 independent over 20,000 trials)
    assert common.mean().item() == pytest.approx(true_gain, abs=0.003)
    assert independent.mean().item() == pytest.approx(true_gain, abs=0.008)
    # an item's difference under common draws is nonzero only when u falls between p and p + g:
    # per sample variance ~ E|g| (~0.06 here) against 2 p (1 - p) (~0.4) with independent draws
    assert common.var().item() < 0.25 * independent.var().item()


def test_the_same_policy_with_common_seeds_gives_v_exactly_zero():
    generator = torch.Generator().manual_seed(1)
    p_root, _ = _items(16, 0.0, generator)
    assert torch.equal(_v(p_root, torch.zeros_like(p_root), 16, 2, True, generator), torch.zeros(TRIALS))
    assert _v(p_root, torch.zeros_like(p_root), 16, 2, False, generator).abs().max() > 0
