"""Empirical-Bayes shrinkage (hand-worked numbers and an MSE property) and ω clipping."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.rsipo.gain import replay_gain
from coevo.rsipo.shrinkage import TypeEstimates, shrink, trust_coefficients


def test_shrinkage_hand_worked():
    # type a: Δ = 0.5 and 0.0, σ² = 0.0625 each (decay 1: plain sums)
    #   μ = 0.25; population variance ((0.25)² + (0.25)²)/2 = 0.0625; n_eff = 2 → unbiased 0.125
    #   τ² = 0.125 − 0.0625 = 0.0625; B = 0.0625 / (0.0625 + 0.0625) = 0.5
    #   Δ̃ = 0.25 + 0.5·(0.5 − 0.25) = 0.375 and 0.25 + 0.5·(0 − 0.25) = 0.125
    est = TypeEstimates(decay=1.0)
    est.update([0.5, 0.0], [0.0625, 0.0625], ["a", "a"])
    state = est.states["a"]
    assert state.mean == pytest.approx(0.25)
    assert state.gain_variance == pytest.approx(0.125)
    assert state.between_variance == pytest.approx(0.0625)
    shrunk, factors = shrink([0.5, 0.0], [0.0625, 0.0625], ["a", "a"], est)
    assert factors == pytest.approx([0.5, 0.5])
    assert shrunk == pytest.approx([0.375, 0.125])
    # κ = 1, ω_max = 2: ω = 1 + Δ̃
    assert trust_coefficients(shrunk) == pytest.approx([1.375, 1.125])


def test_noisy_type_shrinks_fully_to_its_mean():
    # Δ = 0.5, −0.5 with σ² = 0.5: Var = 0.5 (unbiased: 2·0.25) ≤ mean σ² → τ² = 0, B = 0, Δ̃ = μ = 0
    est = TypeEstimates(decay=1.0)
    est.update([0.5, -0.5], [0.5, 0.5], ["a", "a"])
    shrunk, factors = shrink([0.5, -0.5], [0.5, 0.5], ["a", "a"], est)
    assert factors == [0.0, 0.0] and shrunk == [0.0, 0.0]


def test_running_estimates_decay_older_batches():
    # decay 0.5: batch 1 Δ = 1.0 (weight → 0.5 after batch 2), batch 2 Δ = 0.0 (weight 1)
    # μ = (0.5·1.0 + 1·0.0) / 1.5 = 1/3; n_eff = 1.5² / (0.25 + 1) = 1.8
    est = TypeEstimates(decay=0.5)
    est.update([1.0], [0.1], ["a"])
    assert est.states["a"].gain_variance == 0.0  # one observation: no spread information
    est.update([0.0], [0.1], ["a"])
    s = est.states["a"]
    assert s.mean == pytest.approx(1 / 3)
    assert s.effective_count == pytest.approx(1.8)
    # population variance = (0.5·1 + 0)/1.5 − (1/3)² = 1/3 − 1/9 = 2/9; unbiased ×1.8/0.8 = 0.5
    assert s.gain_variance == pytest.approx(0.5)
    assert s.mean_sampling_variance == pytest.approx(0.1)
    restored = TypeEstimates()
    restored.load_state_dict(est.state_dict())
    assert restored.states["a"] == s and restored.decay == 0.5


def test_lone_first_task_keeps_its_raw_gain():
    est = TypeEstimates()
    est.update([0.3], [0.05], ["x"])
    assert shrink([0.3], [0.05], ["x"], est)[0] == pytest.approx([0.3])


def test_trust_clipping():
    # ω = clip(1 + κΔ̃, 0, ω_max): κ = 2 → Δ̃ = −0.75 gives 1 − 1.5 → 0; Δ̃ = 0.8 gives 2.6 → ω_max 2
    assert trust_coefficients([-0.75, 0.0, 0.25, 0.8], kappa=2.0, omega_max=2.0) == [0.0, 1.0, 1.5, 2.0]
    assert trust_coefficients([-1.0], kappa=1.0) == [0.0]
    assert trust_coefficients([0.5], kappa=0.0) == [1.0]  # κ = 0: plain OPSD


def _synthetic_mse(seed: int, num_types: int, tau: float, steps: int) -> tuple[float, float]:
    """Tasks with known true gains θ_x ~ N(μ_k, τ²) around a control success rate; each Δ_x is
    measured from 4 control and 4 replay Bernoulli outcomes. Returns (MSE raw, MSE shrunk)."""
    rng = random.Random(seed)
    means = {f"t{k}": rng.uniform(-0.3, 0.3) for k in range(num_types)}
    est = TypeEstimates(decay=0.9)
    raw_err, shrunk_err, count = 0.0, 0.0, 0
    for _ in range(steps):
        types = [rng.choice(sorted(means)) for _ in range(8)]
        truths, gains, variances = [], [], []
        for t in types:
            p_c = rng.uniform(0.3, 0.7)
            p_r = min(1.0, max(0.0, p_c + rng.gauss(means[t], tau)))
            g = replay_gain([float(rng.random() < p_c) for _ in range(4)], [float(rng.random() < p_r) for _ in range(4)],
                            variance_floor=0.01)
            truths.append(p_r - p_c)
            gains.append(g.gain)
            variances.append(g.variance)
        est.update(gains, variances, types)
        shrunk, _ = shrink(gains, variances, types, est)
        raw_err += sum((g - th) ** 2 for g, th in zip(gains, truths))
        shrunk_err += sum((s - th) ** 2 for s, th in zip(shrunk, truths))
        count += len(types)
    return raw_err / count, shrunk_err / count


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), num_types=st.integers(1, 4), tau=st.floats(0.0, 0.15))
def test_shrunk_gains_have_lower_mse_than_raw(seed, num_types, tau):
    raw, shrunk = _synthetic_mse(seed, num_types, tau, steps=30)
    assert shrunk < raw
