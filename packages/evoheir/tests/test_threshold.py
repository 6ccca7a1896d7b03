"""The certified bar τ_t = σ·sqrt(2·log(1/δ_t)/m), δ_t = δ/(t(t+1)), with hand-worked numbers."""

import math

import pytest

from coevo.evoheir.threshold import certified_threshold, check_certifiable, decision_delta, threshold


def test_delta_t_sums_to_delta():
    # δ_1 = 0.1/2 = 0.05, δ_2 = 0.1/6, δ_3 = 0.1/12; Σ_t 1/(t(t+1)) telescopes to 1 - 1/(T+1)
    assert decision_delta(0.1, 1) == pytest.approx(0.05)
    assert decision_delta(0.1, 3) == pytest.approx(0.1 / 12)
    assert sum(decision_delta(0.1, t) for t in range(1, 1000)) == pytest.approx(0.1 * (1 - 1 / 1000))


def test_certified_threshold_hand_worked():
    # σ=1, δ=0.1, t=1, m=64: δ_1 = 0.05, ln 20 = 2.995732, 2·2.995732/64 = 0.0936166, sqrt = 0.305968
    assert certified_threshold(1.0, 0.1, 1, 64) == pytest.approx(0.305968, abs=1e-6)
    # σ=0.5, δ=0.1, t=3, m=32: δ_3 = 0.1/12, ln 120 = 4.787492, 2·4.787492/32 = 0.2992182,
    # sqrt = 0.547009, × 0.5 = 0.273505
    assert certified_threshold(0.5, 0.1, 3, 32) == pytest.approx(0.273505, abs=1e-6)
    assert threshold("empirical", 7, 32) == 0.0
    assert threshold("certified", 1, 64) == pytest.approx(0.305968, abs=1e-6)


def test_bar_grows_with_t_and_shrinks_with_m():
    assert certified_threshold(1, 0.1, 2, 64) > certified_threshold(1, 0.1, 1, 64)
    assert certified_threshold(1, 0.1, 1, 128) < certified_threshold(1, 0.1, 1, 64)


def test_too_small_pool_is_refused_with_the_size_that_works():
    # t=1, δ=0.1: τ_1 < 1 needs m > 2·ln 20 = 5.99, so 5 items are refused and 6 are enough
    with pytest.raises(ValueError, match="use at least 6 items"):
        check_certifiable(1.0, 0.1, 5, 1, "x")
    check_certifiable(1.0, 0.1, 6, 1, "x")
    # by decision 100 (δ_100 = 0.1/10100, 2·ln 101000 = 23.03) 23 items no longer suffice
    with pytest.raises(ValueError, match="decision 100"):
        check_certifiable(1.0, 0.1, 23, 100, "x")
    assert math.isfinite(certified_threshold(1.0, 0.1, 100, 24))
    with pytest.raises(ValueError, match="unknown"):
        threshold("lenient", 1, 8)


def test_spent_delta_after_t_decisions():
    from coevo.evoheir.threshold import spent_delta

    # δ(1/2 + 1/6 + 1/12) = δ·3/4: with δ = 0.1, 0.075 after 3 decisions, always below δ
    assert spent_delta(0.1, 3) == pytest.approx(0.075)
    assert sum(decision_delta(0.1, t) for t in range(1, 4)) == pytest.approx(spent_delta(0.1, 3))
    assert spent_delta(0.1, 10**6) < 0.1
