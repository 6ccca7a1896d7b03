"""GiGPO's per-turn advantages (episode level + omega * anchor-state step level), against hand-computed values."""

from __future__ import annotations

import logging
import math

import pytest
import torch

from coevo.core import registry
from coevo.core.agent.types import Episode, Turn
from coevo.core.algos.advantages import grpo_advantages, turn_advantages
from coevo.core.algos.gigpo import GiGPOSettings, discounted_returns, step_rewards
from coevo.core.env.protocol import Task

GIGPO = registry.advantages.get("gigpo")


def _turn(state, reward=0.0, invalid=False) -> Turn:
    return Turn([1], [2], [-0.1], "t", None if invalid else "a", "o", reward, invalid, state_key=state)


def _episode(group, states, rewards, invalid=(), penalty=0.1, env="boxes") -> Episode:
    """An episode of task ``group`` whose turn t is taken at ``states[t]`` and earns ``rewards[t]``."""
    turns = [_turn(s, r, t in invalid) for t, (s, r) in enumerate(zip(states, rewards))]
    return Episode(Task(env, "train", group, "near", group), group, turns, num_invalid=len(invalid),
                   reward=sum(rewards) - penalty * len(invalid))


def _close(actual: list[list[float]], expected: list[list[float]]) -> None:
    assert [len(row) for row in actual] == [len(row) for row in expected]
    for got, want in zip(actual, expected):
        assert got == pytest.approx(want, abs=1e-5)


def _worked_group() -> list[Episode]:
    # group 0, one task: states by hand (A is the start)
    #   e1: A -> B -> (win)      rewards [0, 1]     R = 1
    #   e2: A -> C -> B -> (win) rewards [0, 0, 1]  R = 1
    #   e3: A -> C -> D -> (lost) rewards [0, 0, 0] R = 0
    # group 1, another task that also starts at a state keyed "A" (equal keys of two tasks are
    # different states: no anchor group crosses episode groups)
    #   e4: A  rewards [1] R = 1;   e5: E  rewards [0] R = 0
    return [
        _episode(0, ["A", "B"], [0.0, 1.0]),
        _episode(0, ["A", "C", "B"], [0.0, 0.0, 1.0]),
        _episode(0, ["A", "C", "D"], [0.0, 0.0, 0.0]),
        _episode(1, ["A"], [1.0]),
        _episode(1, ["E"], [0.0]),
    ]


def test_worked_anchor_state_example():
    episodes = _worked_group()
    adv = turn_advantages(GIGPO, episodes, scale_by_std=True, settings=GiGPOSettings(gamma=0.5, step_weight=1.0))
    # 1. episode level (GRPO): group 0 R = [1, 1, 0], mean 2/3, centred [1/3, 1/3, -2/3],
    #    unbiased var = (1/9 + 1/9 + 4/9) / 2 = 1/3, std = 0.57735 → A_E = [0.57735, 0.57735, -1.15470]
    #    group 1 R = [1, 0]: mean 1/2, centred ±1/2, std = sqrt(1/2) → A_E = ±0.70711
    # 2. discounted returns G_t = r_t + 0.5 G_{t+1}:
    #    e1 [0 + 0.5*1, 1] = [0.5, 1];  e2 [0.25, 0.5, 1];  e3 [0, 0, 0];  e4 [1];  e5 [0]
    # 3. anchor groups (group 0): A {e1 0.5, e2 0.25, e3 0}, B {e1 1, e2 1}, C {e2 0.5, e3 0}, D {e3 0};
    #    group 1: A {e4 1}, E {e5 0}
    # 4. step level:
    #    A: mean 0.25, centred [0.25, 0, -0.25], var = 0.125 / 2 = 0.0625, std 0.25 → [1, 0, -1]
    #    B: returns tied (1, 1) → 0 exactly;  C: mean 0.25, centred ±0.25, std = sqrt(0.125) → ±0.70711
    #    D, group 1's A and E: met once → 0
    # 5. A = A_E + 1.0 * A_S
    e, r = 1 / math.sqrt(3), 1 / math.sqrt(2)
    _close(adv, [
        [e + 1.0, e + 0.0],
        [e + 0.0, e + r, e + 0.0],
        [-2 * e - 1.0, -2 * e - r, -2 * e + 0.0],
        [r],
        [-r],
    ])


def test_worked_example_without_std_and_with_a_step_weight():
    adv = GIGPO.per_turn(_worked_group(), scale_by_std=False, settings=GiGPOSettings(gamma=0.5, step_weight=0.5))
    # A_E = R - mean: group 0 [1/3, 1/3, -2/3]; group 1 [0.5, -0.5]
    # A_S = G - mean over the anchor group: A [0.25, 0, -0.25]; B tied 0; C [0.25, -0.25]; singletons 0
    # A = A_E + 0.5 A_S
    t = 1 / 3
    _close(adv, [
        [t + 0.125, t],
        [t + 0.0, t + 0.125, t],
        [-2 * t - 0.125, -2 * t - 0.125, -2 * t],
        [0.5],
        [-0.5],
    ])


def test_a_state_met_once_gets_no_step_advantage():
    # every turn at its own state: no anchor group has two members, so A = A_E on every turn
    episodes = [_episode(0, ["A", "B"], [0.0, 1.0]), _episode(0, ["C", "D"], [0.0, 0.0])]
    adv = GIGPO.per_turn(episodes, scale_by_std=True, settings=GiGPOSettings(gamma=0.95))
    r = 1 / math.sqrt(2)  # R = [1, 0] → A_E = ±1/sqrt(2)
    _close(adv, [[r, r], [-r, -r]])


def test_tied_anchor_group_and_tied_episode_group_give_exactly_zero():
    # three episodes, same path shape, same return 0.9: the float mean of 0.855 (= 0.95 * 0.9) three
    # times need not be 0.855 to the last bit, but a tie is exactly 0 at both levels
    episodes = [_episode(0, ["A", s], [0.0, 0.9]) for s in ("B", "C", "D")]
    adv = GIGPO.per_turn(episodes, scale_by_std=True, settings=GiGPOSettings())
    assert adv == [[0.0, 0.0]] * 3


def test_non_binary_rewards_and_an_invalid_turn():
    # ea: S -> T, the action at T is invalid (the state stays T) -> T; turn rewards [0.5, 0, 2.0],
    #     penalty 0.1 on the invalid turn: R = 2.4 and step rewards [0.5, -0.1, 2.0] (they sum to R)
    # eb: S -> U; rewards [0.25, 0.75], R = 1.0
    ea = _episode(0, ["S", "T", "T"], [0.5, 0.0, 2.0], invalid=(1,))
    eb = _episode(0, ["S", "U"], [0.25, 0.75])
    assert ea.reward == pytest.approx(2.4)
    assert step_rewards(ea) == pytest.approx([0.5, -0.1, 2.0])
    # returns, gamma 0.5: ea [0.5 + 0.5 * 0.9, -0.1 + 0.5 * 2.0, 2.0] = [0.95, 0.9, 2.0]; eb [0.625, 0.75]
    assert discounted_returns(step_rewards(ea), 0.5) == pytest.approx([0.95, 0.9, 2.0])
    adv = GIGPO.per_turn([ea, eb], scale_by_std=False, settings=GiGPOSettings(gamma=0.5))
    # A_E = R - mean: mean 1.7 → [0.7, -0.7]
    # A_S: S {0.95, 0.625} mean 0.7875 → [+0.1625, -0.1625]; T {0.9, 2.0} (one episode, twice at T)
    #      mean 1.45 → [-0.55, +0.55]; U met once → 0
    _close(adv, [[0.7 + 0.1625, 0.7 - 0.55, 0.7 + 0.55], [-0.7 - 0.1625, -0.7]])


def test_without_state_keys_gigpo_is_the_episode_level_and_says_so_once(caplog):
    episodes = [_episode(0, [None, None], [0.0, 1.0], env="keyless"), _episode(0, [None], [0.0], env="keyless")]
    with caplog.at_level(logging.WARNING, logger="coevo.core.algos.gigpo"):
        adv = turn_advantages(GIGPO, episodes, scale_by_std=True, settings=GiGPOSettings())
        again = turn_advantages(GIGPO, episodes, scale_by_std=True, settings=GiGPOSettings())
    rewards, groups = torch.tensor([1.0, 0.0]), torch.tensor([0, 0])
    a = grpo_advantages(rewards, groups).tolist()
    assert adv == again == [[a[0], a[0]], [a[1]]]  # exactly GRPO's values
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1
    assert "'keyless'" in messages[0] and "algo.advantage=gigpo" in messages[0]


def test_episode_signature_and_episode_level_estimators_per_turn():
    rewards, groups = torch.tensor([1.0, 0.0, 3.0, 3.0]), torch.tensor([0, 0, 1, 1])
    # called like every registered estimator (RSIPO, RAO), gigpo is GRPO's episode level
    assert torch.equal(GIGPO(rewards, groups, scale_by_std=True), grpo_advantages(rewards, groups))
    episodes = _worked_group()
    for name in ("grpo", "rloo"):  # an episode-level estimator gives each turn its episode's value
        fn = registry.advantages.get(name)
        values = fn(torch.tensor([ep.reward for ep in episodes]), torch.tensor([ep.group_id for ep in episodes]),
                    scale_by_std=True).tolist()
        assert turn_advantages(fn, episodes, True) == [[v] * ep.num_turns for ep, v in zip(episodes, values)]


def test_gigpo_settings_are_checked():
    with pytest.raises(ValueError, match="gamma"):
        from coevo.core.algos.grpo import GRPOConfig

        GRPOConfig(advantage="gigpo", gigpo=GiGPOSettings(gamma=1.5))


def test_grpo_default_path_gives_the_samples_it_gave_before():
    # advantage=grpo: GRPO's per-turn path (turn_advantages → turn_samples) equals the episode path
    # (the [E] advantages → episode_samples) sample by sample, advantage bits included
    from coevo.core.algos.grpo import episode_samples, turn_samples

    episodes = _worked_group()
    fn = registry.advantages.get("grpo")
    values = fn(torch.tensor([ep.reward for ep in episodes]), torch.tensor([ep.group_id for ep in episodes]),
                scale_by_std=True)
    before = episode_samples(episodes, values, "tokens")
    after = turn_samples(episodes, turn_advantages(fn, episodes, True), "tokens")
    assert before == after and len(after) == sum(ep.num_turns for ep in episodes)
