"""Skill rewards centred by task-type mean, with the running-mean fallback for rare types."""

import pytest

from coevo.rsipo.centring import centred_skill_rewards


def test_batch_mean_per_type():
    # type a: Δ = 0.5, 0.0 → mean 0.25 → rewards +0.25, −0.25; type b: Δ = −0.5, −0.25, 0.0 → mean −0.25
    rewards = centred_skill_rewards([0.5, -0.5, 0.0, -0.25, 0.0], ["a", "b", "a", "b", "b"], {})
    assert rewards == pytest.approx([0.25, -0.25, -0.25, 0.0, 0.25])


def test_lone_type_uses_running_mean():
    # type c has one task: its batch mean would give 0; the running mean 0.1 from earlier steps is used
    rewards = centred_skill_rewards([0.5, 0.0, 0.25], ["a", "a", "c"], {"c": 0.1, "a": 9.0})
    assert rewards == pytest.approx([0.25, -0.25, 0.15])  # a still uses its batch mean (2 tasks)


def test_lone_unseen_type_falls_back_to_batch_mean():
    # type d: one task, never seen → minus the whole batch's mean (0.5 + 0 + 0.25) / 3 = 0.25
    rewards = centred_skill_rewards([0.5, 0.0, 0.25], ["a", "a", "d"], {})
    assert rewards[2] == pytest.approx(0.0)
    assert centred_skill_rewards([], [], {}) == []
    with pytest.raises(ValueError):
        centred_skill_rewards([0.1], ["a", "b"], {})


@pytest.mark.parametrize("gain", [0.1, 1 / 3, 0.7, -0.35])
@pytest.mark.parametrize("count", [2, 3, 7, 10])
def test_tied_gains_get_exactly_zero(gain, count):
    # sum/len of three gains of 0.1 is 0.10000000000000002: the old rewards were ±1e-17, not 0
    assert centred_skill_rewards([gain] * count, ["a"] * count, {}) == [0.0] * count
    # a lone type whose gain equals the batch mean: exactly 0 as well
    assert centred_skill_rewards([gain] * count + [gain], ["a"] * count + ["z"], {})[-1] == 0.0
