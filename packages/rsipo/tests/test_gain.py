"""Control/replay split and the replay gain Δ_x, on hand-built groups."""

import pytest

from coevo.rsipo.gain import binomial_gain_variance, replay_gain, split_group


def test_split_group_halves_and_bounds():
    assert split_group(8) == ([0, 1, 2, 3], [4, 5, 6, 7])
    assert split_group(4, 0.25) == ([0, 1, 2], [3])
    assert split_group(2, 0.99) == ([0], [1])  # at least one control episode
    assert split_group(3, 0.01) == ([0, 1], [2])  # at least one replay
    with pytest.raises(ValueError):
        split_group(1)


def test_replay_gain_hand_worked():
    # H_c = [1, 0, 0, 0] → p_c = 0.25; H_r replayed with the skill = [1, 1, 0, 1] → p_r = 0.75
    # Δ = 0.75 − 0.25 = 0.5; σ² = 0.75·0.25/4 + 0.25·0.75/4 = 0.046875 + 0.046875 = 0.09375
    g = replay_gain([1, 0, 0, 0], [1, 1, 0, 1])
    assert g.control == 0.25 and g.replay == 0.75
    assert g.gain == pytest.approx(0.5)
    assert g.variance == pytest.approx(0.09375)


def test_variance_floor_applies_to_all_equal_halves():
    # all-success control and replay: σ² = 0 → the floor
    assert replay_gain([1, 1], [1, 1], variance_floor=0.01).variance == 0.01
    assert binomial_gain_variance(0.5, 2, 0.5, 2, floor=0.0) == pytest.approx(0.25)
