"""The sequential judge (``bound=sequential``): error ≤ δ_t under optional stopping, plays near the
information bound, ties and non-binary rewards, bad input.

Simulated decisions draw i.i.d. paired differences from a known distribution. A harmful or neutral
update (mean ≤ 0) may commit only by its wealth K⁺ reaching 1/δ_t, which Ville's inequality bounds
by δ_t whatever the stopping rule; the simulations check it at δ_t = 0.2 (so the rate is measurable
with 1,500 decisions: 3 standard errors is 0.031) for a gain of exactly 0, ties, a coin, a harmful
update and non-binary rewards, and check that looking after every item or after batches of 64
gives the same verdicts (the judge reads each batch item by item and stops at the first crossing).
"""

import math
import random

import pytest
import torch

from coevo.evoheir.config import CommitSettings, EvoHeirConfig
from coevo.evoheir.heircommit import HeirCommitConfig
from coevo.evoheir.sequential import (
    MixtureWealth,
    SequentialTest,
    fewest_items_to_commit,
    growth_rate,
    judge_in_batches,
)
from coevo.evoheir.threshold import threshold

NEUTRAL_OR_HARMFUL = {
    "gain exactly 0, 20% of items discordant": {1.0: 0.1, -1.0: 0.1, 0.0: 0.8},
    "gain exactly 0, every item a coin": {1.0: 0.5, -1.0: 0.5},
    "every item tied": {0.0: 1.0},
    "harmful: gain -0.04": {1.0: 0.08, -1.0: 0.12, 0.0: 0.8},
    "gain exactly 0, non-binary (two sampled answers, rewards in [0, 1])":
        {1.0: 0.05, 0.5: 0.2, 0.0: 0.5, -0.5: 0.2, -1.0: 0.05},
}


def _stream(outcomes: dict[float, float], rng: random.Random, n: int) -> list[float]:
    return rng.choices(list(outcomes), list(outcomes.values()), k=n)


def _decide(outcomes, rng, delta_t, budget, batch, futility=0.0):
    test = SequentialTest(delta_t, budget, futility)
    while test.verdict is None:
        test.observe(_stream(outcomes, rng, batch))
    return test


@pytest.mark.parametrize("case", sorted(NEUTRAL_OR_HARMFUL))
def test_a_neutral_or_harmful_update_commits_at_most_delta_t_of_the_time(case):
    outcomes, delta_t, runs = NEUTRAL_OR_HARMFUL[case], 0.2, 1500
    assert sum(d * p for d, p in outcomes.items()) <= 1e-12
    commits = sum(_decide(outcomes, random.Random(i), delta_t, 300, 60).verdict == "commit" for i in range(runs))
    for i in range(runs, runs + 20):  # optional stopping: the looks change neither the verdict nor where it came
        by_item, by_batch = (_decide(outcomes, random.Random(i), delta_t, 300, n) for n in (1, 60))
        assert (by_item.verdict, by_item.items) == (by_batch.verdict, by_batch.items)
    assert commits / runs <= delta_t + 3 * math.sqrt(delta_t * (1 - delta_t) / runs), case


def test_every_item_tied_spends_the_budget_and_rolls_back():
    test = SequentialTest(0.05, 200)
    assert test.observe([0.0] * 500) == "budget"
    assert test.items == 200 and test.gain.log_wealth == 0.0 == test.loss.log_wealth


@pytest.mark.parametrize("outcomes", [{1.0: 0.3, -1.0: 0.1, 0.0: 0.6},  # gain +0.2
                                      {1.0: 0.1, -1.0: 0.05, 0.0: 0.85},  # gain +0.05, 15% discordant
                                      {0.5: 0.3, -0.5: 0.1, 0.0: 0.6}])  # non-binary, gain +0.1
def test_a_useful_update_commits_with_plays_near_the_information_bound(outcomes):
    # no constant bet grows faster than growth_rate: log(1/δ)/rate items is the bound; the mixture
    # pays for not knowing the best bet (measured 1.0-1.25x the bound on these)
    delta_t, runs = 0.05, 300
    bound = math.log(1 / delta_t) / growth_rate(outcomes)
    tests = [_decide(outcomes, random.Random(i), delta_t, 100_000, 16) for i in range(runs)]
    assert sum(t.verdict == "commit" for t in tests) / runs >= 0.98
    mean_items = sum(t.items for t in tests) / runs
    assert mean_items <= 1.4 * bound, (mean_items, bound)


@pytest.mark.parametrize("outcomes", [{1.0: 0.1, -1.0: 0.1, 0.0: 0.8},  # gain exactly 0: the worst case
                                      {1.0: 0.1, -1.0: 0.07, 0.0: 0.83}])  # a small gain, +0.03
def test_futility_rolls_back_an_update_that_does_not_hurt_at_most_alpha_of_the_time(outcomes):
    # K⁻ is a supermartingale when E[d] ≥ 0, so it reaches 1/α with probability ≤ α (Ville again)
    alpha, runs = 0.3, 600
    early = sum(_decide(outcomes, random.Random(i), 0.01, 400, 80, alpha).verdict == "rollback" for i in range(runs))
    assert early / runs <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    assert SequentialTest(0.01, 400, futility=alpha).log_rollback_bar == pytest.approx(math.log(1 / alpha))
    assert SequentialTest(0.5, 400, futility=alpha).log_rollback_bar == pytest.approx(math.log(2))  # δ_t lower


def test_a_clearly_harmful_update_is_rolled_back_early():
    tests = [_decide({1.0: 0.1, -1.0: 0.3, 0.0: 0.6}, random.Random(i), 0.05, 2048, 16) for i in range(200)]
    assert all(t.verdict == "rollback" for t in tests)
    assert sum(t.items for t in tests) / len(tests) < 200


def test_negated_streams_swap_the_verdicts():
    rng = random.Random(7)
    for _ in range(200):
        stream = [rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0]) for _ in range(rng.randrange(1, 400))]
        a, b = SequentialTest(0.1, 400), SequentialTest(0.1, 400)
        a.observe(stream)
        b.observe([-d for d in stream])
        swap = {"commit": "rollback", "rollback": "commit", "budget": "budget", None: None}
        assert swap[a.verdict] == b.verdict and a.items == b.items


def test_the_fewest_items_to_commit_are_all_won_and_grow_as_delta_shrinks():
    for delta_t in (0.05, 0.1 / 12, 0.1 / 930):
        n = fewest_items_to_commit(delta_t)
        early = SequentialTest(delta_t, 10_000)
        assert early.observe([1.0] * (n - 1)) is None
        assert early.observe([1.0]) == "commit" and early.items == n
    assert fewest_items_to_commit(0.05) < fewest_items_to_commit(0.05 / 100)


def test_the_mixture_is_the_bayes_factor_of_a_uniform_win_rate_on_discordant_items():
    # d in {-1, 0, +1}: mean_j (1 + λ_j)^W (1 - λ_j)^L = mean_j (2p_j)^W (2(1 - p_j))^L with p_j = (1 + λ_j)/2
    # evenly spread over [½, 1]: ≈ 2 ∫_{½}^{1} (2p)^W (2(1 - p))^L dp; W = 3, L = 0: 2 · 2^3 · (1 - 2^-4)/4 = 3.75
    wealth = MixtureWealth(+1)
    wealth.advance(torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0], dtype=torch.float64))
    assert math.exp(wealth.log_wealth) == pytest.approx(3.75, rel=1e-3)
    against = MixtureWealth(-1)
    against.advance(torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64))
    assert against.log_wealth < math.log(0.25)  # a bet that the update hurts loses on every win


def test_judge_in_batches_plays_whole_batches_and_stops_at_the_verdict():
    # the proposal wins every item: it commits after fewest_items_to_commit items (7 at δ_t = 0.05:
    # 2^8/8 = 32 ≥ 20 > 2^7/7), in the third batch of 3, and plays no fourth
    delta_t, n = 0.05, fewest_items_to_commit(0.05)
    assert n == 7
    calls = []

    def play_pair(batch, items):
        calls.append((batch, list(items)))
        return torch.ones(len(items)), torch.zeros(len(items))

    test = SequentialTest(delta_t, 64)
    new, old = judge_in_batches(test, list(range(64)), 3, play_pair)
    assert test.verdict == "commit" and test.items == 7 and test.played == 9 == new.numel() == old.numel()
    assert calls == [(0, [0, 1, 2]), (1, [3, 4, 5]), (2, [6, 7, 8])]
    with pytest.raises(ValueError, match="reserved 10 items for a budget of 64"):
        judge_in_batches(SequentialTest(delta_t, 64), list(range(10)), 8, play_pair)


def test_differences_outside_minus_one_one_are_refused():
    for bad in (1.5, -2.0, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"differences in \[-1, 1\]"):
            SequentialTest(0.1, 10).observe([bad])
    with pytest.raises(ValueError, match="level must be in"):
        SequentialTest(0.0, 10)
    with pytest.raises(ValueError, match="futility level must be in"):
        SequentialTest(0.1, 10, futility=1.0)


def test_config_names_the_keys_for_a_sequential_bound_it_cannot_use():
    with pytest.raises(ValueError, match="algo.commit.bound=sequential .* algo.commit.mode=empirical: add "
                                         "algo.commit.mode=certified"):
        EvoHeirConfig(commit=CommitSettings(bound="sequential"))
    with pytest.raises(ValueError, match=r"set algo.commit.max_items=\d+ or more"):
        EvoHeirConfig(commit=CommitSettings(mode="certified", bound="sequential", max_items=5))
    with pytest.raises(ValueError, match=r"callbacks.heircommit.max_items=\d+"):
        HeirCommitConfig(mode="certified", bound="sequential", max_items=5)
    with pytest.raises(ValueError, match="no bar fixed in advance"):
        threshold("certified", 1, 16, bound="sequential")
    config = EvoHeirConfig(commit=CommitSettings(mode="certified", bound="sequential"))
    assert (config.commit.max_items, config.commit.batch_items, config.commit.futility, config.commit.metric) == (
        1024, 64, 0.3, "greedy")
