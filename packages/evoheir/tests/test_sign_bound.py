"""The certified sign-test bar (``bound=sign``): hand-worked tails, the guarantee by simulation with
known gains (a harmful update passes decision t with probability ≤ δ_t), its power against the
sub-Gaussian bar at equal items, and the refusals."""

import pytest
import torch

from coevo.evoheir.config import CommitSettings, EvoHeirConfig
from coevo.evoheir.heircommit import HeirCommitConfig
from coevo.evoheir.threshold import (
    binomial_upper_tail,
    certified_threshold,
    check_certifiable,
    commit_threshold,
    decision_delta,
    sign_test_wins,
    sign_threshold,
    threshold,
)


def test_binomial_tails_hand_worked():
    # n = 10: C(10,10) = 1, C(10,9) = 10, C(10,8) = 45 → P(≥9) = 11/1024, P(≥8) = 56/1024
    assert binomial_upper_tail(10, 9) == pytest.approx(11 / 1024)
    assert binomial_upper_tail(10, 8) == pytest.approx(56 / 1024)
    assert binomial_upper_tail(10, 0) == 1.0 and binomial_upper_tail(10, 11) == 0.0
    # δ_1 = 0.05 (δ = 0.1): 11/1024 = 0.0107 ≤ 0.05 < 56/1024 = 0.0547, so k* = 9
    assert sign_test_wins(10, 0.05) == 9
    # 4 discordant items: even 4 of 4 (1/16 = 0.0625) is not enough at 0.05 → k* = n + 1
    assert sign_test_wins(4, 0.05) == 5 and sign_test_wins(0, 0.05) == 1


def test_sign_threshold_on_v_commits_exactly_from_k_star_wins():
    # m = 64, 10 discordant, t = 1: k* = 9, τ = (2·9 − 10 − 1)/64 = 7/64; 9 wins 1 loss: v = 8/64 > τ,
    # 8 wins 2 losses: v = 6/64 < τ
    tau = sign_threshold(10, 0.1, 1, 64)
    assert tau == pytest.approx(7 / 64)
    assert 8 / 64 > tau > 6 / 64
    # no discordant item: nothing can commit (v = 0, τ = (2 − 0 − 1)/m > 0)
    assert sign_threshold(0, 0.1, 1, 64) == pytest.approx(1 / 64)
    assert threshold("certified", 1, 64, bound="sign", discordant=10) == pytest.approx(7 / 64)
    assert threshold("empirical", 1, 64, bound="sign", discordant=10) == 0.0
    with pytest.raises(ValueError, match="discordant="):
        threshold("certified", 1, 64, bound="sign")
    with pytest.raises(ValueError, match="unknown"):
        threshold("certified", 1, 64, bound="chernoff", discordant=3)


def test_commit_threshold_reads_the_discordant_items_and_refuses_non_ternary_differences():
    new = torch.tensor([1.0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0])  # [12]
    old = torch.tensor([0.0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1])  # [12]: 9 wins, 2 losses, 1 tie
    # 11 discordant at δ_1 = 0.05: P(≥9 of 11) = (1 + 11 + 55)/2048 = 0.0327, P(≥8) = 232/2048 = 0.113 → k* = 9
    assert commit_threshold("certified", "sign", 1, 1.0, 0.1, new, old) == pytest.approx((2 * 9 - 11 - 1) / 12)
    assert commit_threshold("certified", "subgaussian", 1, 1.0, 0.1, new, old) == pytest.approx(
        certified_threshold(1.0, 0.1, 1, 12))
    with pytest.raises(ValueError, match="-1, 0, \\+1"):
        commit_threshold("certified", "sign", 1, 1.0, 0.1, torch.tensor([0.5, 1.0]), torch.tensor([0.0, 0.0]))


def simulate(p_win: float, p_loss: float, m: int, t: int, bound: str, trials: int, seed: int) -> float:
    """Share of ``trials`` decisions at round t that commit, items drawn with known win/loss rates."""
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(trials, m, generator=g)  # [trials, m]
    diff = (u < p_win).double() - ((u >= p_win) & (u < p_win + p_loss)).double()  # [trials, m] ∈ {-1,0,1}
    wins, losses = (diff > 0).sum(1).tolist(), (diff < 0).sum(1).tolist()
    decided: dict[tuple[int, int], bool] = {}  # the decision depends on (wins, losses) only
    for key in set(zip(wins, losses)):
        new = torch.tensor([1.0] * key[0] + [0.0] * (m - key[0]))  # [m]: the proposal won key[0] items,
        old = torch.tensor([0.0] * key[0] + [1.0] * key[1] + [0.0] * (m - key[0] - key[1]))  # lost key[1]
        decided[key] = float((new - old).mean()) > commit_threshold("certified", bound, t, 1.0, 0.1, new, old)
    return sum(decided[key] for key in zip(wins, losses)) / trials


@pytest.mark.parametrize(("p_win", "p_loss", "t"), [
    (0.05, 0.05, 1),  # true gain 0, 10% of items discordant
    (0.20, 0.20, 1),  # true gain 0, 40% discordant
    (0.04, 0.06, 1),  # harmful: true gain −0.02
    (0.10, 0.10, 3),  # later decision, δ_3 = 0.1/12
])
def test_a_harmful_update_passes_decision_t_at_most_delta_t(p_win, p_loss, t):
    trials = 20_000
    rate = simulate(p_win, p_loss, 64, t, "sign", trials, seed=7)
    slack = 3 * (decision_delta(0.1, t) / trials) ** 0.5  # three standard errors of the estimate
    assert rate <= decision_delta(0.1, t) + slack


def test_the_sign_bar_keeps_more_useful_updates_than_the_subgaussian_bar_at_equal_items():
    # a useful update: +0.05 true gain, 10% of items discordant (7.5% won, 2.5% lost), m = 256, t = 1:
    # the sub-Gaussian bar (τ_1 = 0.153) almost never clears; the sign test usually does
    sign = simulate(0.075, 0.025, 256, 1, "sign", 400, seed=3)
    subgaussian = simulate(0.075, 0.025, 256, 1, "subgaussian", 400, seed=3)
    assert subgaussian < 0.01 and sign > 0.6


def test_sign_bound_needs_one_answer_per_item_and_enough_items():
    with pytest.raises(ValueError, match=r"algo.commit.bound=sign .* algo.commit.samples=2"):
        EvoHeirConfig(commit=CommitSettings(mode="certified", bound="sign", metric="sampled", samples=2))
    with pytest.raises(ValueError, match=r"callbacks.heircommit.bound=sign .* callbacks.heircommit.samples=2"):
        HeirCommitConfig(mode="certified", bound="sign", metric="sampled", samples=2)
    HeirCommitConfig(mode="certified", bound="sign", samples=1, pool_size=64)
    # t = 1, δ = 0.1: 2^-m ≤ 0.05 needs m ≥ 5 (2^-4 = 0.0625)
    with pytest.raises(ValueError, match="use at least 5 items"):
        check_certifiable(1.0, 0.1, 4, 1, "x", bound="sign")
    check_certifiable(1.0, 0.1, 5, 1, "x", bound="sign")
    with pytest.raises(ValueError, match="bound"):
        HeirCommitConfig(bound="hoeffding")
