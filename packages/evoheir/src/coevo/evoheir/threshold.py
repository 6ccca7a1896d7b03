"""HEIRCOMMIT's acceptance bar τ_t.

- ``empirical``: τ_t = 0 (commit when the paired gain is positive).
- ``certified``: τ_t = σ·sqrt(2·log(1/δ_t)/m) with δ_t = δ/(t(t+1)). If the paired differences
  d_i ∈ [-1, 1] are σ-sub-Gaussian (Hoeffding: σ = 1 for that range), a harmful update
  (true gain ≤ 0) clears the bar at decision t with probability ≤ δ_t, and since
  Σ_t 1/(t(t+1)) = 1, over an unbounded number of decisions with probability ≤ δ in total.

How the certified bar is computed (``bound``):

- ``subgaussian`` (the paper's): the formula above, fixed before the items are played.
- ``sign``: an exact sign test (McNemar's) on the discordant items, for one answer per item and
  policy (d_i ∈ {-1, 0, +1}). Of the n items where the two policies differ, W favour the new one;
  under a harmful update (true gain ≤ 0, i.e. P(d=+1) ≤ P(d=-1) on a fresh item) W given n is
  Binomial(n, p) with p ≤ ½, so committing when P(Binomial(n, ½) ≥ W) ≤ δ_t errs with probability
  ≤ δ_t whatever n turns out to be. As a bar on v = (2W - n)/m it is τ_t = (2k* - n - 1)/m, k* the
  smallest count whose tail is ≤ δ_t. It adapts to how often the policies disagree: with 10% of
  items discordant it needs about a tenth of the items the sub-Gaussian bar needs
  (bench/notebook.md).
- ``sequential``: no bar fixed in advance: the judge plays batches of fresh items until an
  e-process crosses 1/δ_t (``coevo.evoheir.sequential``), with the same guarantee under optional
  stopping; ``max_items`` bounds its plays.
"""

from __future__ import annotations

import math

from coevo.evoheir.sequential import fewest_items_to_commit

MODES = ("empirical", "certified")
BOUNDS = ("subgaussian", "sign", "sequential")


def decision_delta(delta: float, t: int) -> float:
    """δ_t = δ / (t (t+1)) for decision t = 1, 2, ... (sums to δ over all t)."""
    if t < 1:
        raise ValueError(f"decisions are numbered from 1, got t={t}")
    return delta / (t * (t + 1))


def spent_delta(delta: float, decisions: int) -> float:
    """Σ_{t=1..T} δ_t = δ·T/(T+1): the error budget spent by ``decisions`` = T decisions (< δ always)."""
    return delta * decisions / (decisions + 1)


def certified_threshold(sigma: float, delta: float, t: int, m: int) -> float:
    """τ_t = σ·sqrt(2·log(1/δ_t)/m) for a confirmation pool of ``m`` items."""
    if m < 1:
        raise ValueError(f"the confirmation pool needs at least one item, got m={m}")
    return sigma * math.sqrt(2.0 * math.log(1.0 / decision_delta(delta, t)) / m)


def binomial_upper_tail(n: int, k: int) -> float:
    """P(Binomial(n, ½) ≥ k), exact (integer arithmetic)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def sign_test_wins(n: int, level: float) -> int:
    """k*: the fewest wins out of ``n`` discordant items with P(Binomial(n, ½) ≥ k*) ≤ ``level``
    (n + 1 when even n wins of n are not enough)."""
    low, high = 0, n + 1  # the tail falls as k grows: binary search for the first k with tail ≤ level
    while low < high:
        k = (low + high) // 2
        low, high = (low, k) if binomial_upper_tail(n, k) <= level else (k + 1, high)
    return low


def sign_threshold(discordant: int, delta: float, t: int, m: int) -> float:
    """τ_t on v for the sign test: v = (2W - n)/m > τ_t exactly when W ≥ k*(n, δ_t)."""
    if m < 1 or not 0 <= discordant <= m:
        raise ValueError(f"the sign test needs 0 ≤ discordant items ≤ m, m ≥ 1; got {discordant} of {m}")
    k = sign_test_wins(discordant, decision_delta(delta, t))
    return (2 * k - discordant - 1) / m


def threshold(mode: str, t: int, m: int, sigma: float = 1.0, delta: float = 0.1, bound: str = "subgaussian",
              discordant: int | None = None) -> float:
    """τ_t. ``bound="sign"`` needs ``discordant``: the items where the two policies' answers differ."""
    if mode == "empirical":
        return 0.0
    if mode != "certified":
        raise ValueError(f"commit mode: unknown '{mode}'; choose one of {list(MODES)}")
    if bound == "subgaussian":
        return certified_threshold(sigma, delta, t, m)
    if bound == "sign":
        if discordant is None:
            raise ValueError("the sign bound is computed from the discordant items; pass discordant=")
        return sign_threshold(discordant, delta, t, m)
    if bound == "sequential":
        raise ValueError("the sequential bound has no bar fixed in advance: its judge plays batches until an e-process "
                         "decides (coevo.evoheir.sequential.judge_in_batches)")
    raise ValueError(f"commit bound: unknown '{bound}'; choose one of {list(BOUNDS)}")


def check_bound(mode: str, bound: str, samples: int, where: str) -> None:
    """Refuse the bounds a setting cannot use, naming the keys: the sign test is exact for one answer
    per item and policy; the sequential judge is a certified rule (the empirical one has no error budget)."""
    if bound == "sign" and samples != 1 and mode == "certified":
        raise ValueError(f"{where}.bound=sign tests one answer per item and policy (each paired difference is "
                         f"-1, 0 or +1), but {where}.samples={samples}: set {where}.samples=1, or "
                         f"{where}.bound=subgaussian")
    if bound == "sequential" and mode != "certified":
        raise ValueError(f"{where}.bound=sequential spends the certified error budget {where}.delta, but "
                         f"{where}.mode={mode}: add {where}.mode=certified, or leave {where}.bound at subgaussian")


def ternary_discordant(diff) -> int:
    """The items whose paired difference is ±1; refuses differences the sign test is not exact for."""
    values = set(float(x) for x in diff.unique().tolist())
    if not values <= {-1.0, 0.0, 1.0}:
        raise ValueError(f"the sign bound needs paired differences in {{-1, 0, +1}} (one answer per item with a "
                         f"0/1 success), got {sorted(values)[:5]}")
    return int((diff != 0).sum())


def check_certifiable(sigma: float, delta: float, m: int, decisions: int, where: str,
                      bound: str = "subgaussian", max_items: int = 0) -> None:
    """A clear error when the certified bar reaches 1 (a success gain can never exceed it) within
    ``decisions`` decisions; names the pool size (sequential: the budget ``max_items``) that would do."""
    if not 0.0 < delta < 1.0:
        raise ValueError(f"{where}.delta: must be in (0, 1), got {delta}")
    if sigma <= 0:
        raise ValueError(f"{where}.sigma: must be positive, got {sigma}")
    last = max(1, decisions)
    if bound == "sequential":  # best case: every item won
        needed = fewest_items_to_commit(decision_delta(delta, last))
        if max_items < needed:
            raise ValueError(f"{where}: the sequential judge with a budget of {max_items} items cannot commit at "
                             f"decision {last} even if the proposal wins every item (it needs {needed}); set "
                             f"{where}.max_items={needed} or more (or a larger delta)")
        return
    if bound == "sign":  # best case: every item discordant and won, P = 2^-m
        needed = math.ceil(math.log2(1.0 / decision_delta(delta, last)))
        if m < needed:
            raise ValueError(f"{where}: the certified sign test with a confirmation pool of {m} items cannot commit "
                             f"at decision {last} (even {m} wins of {m} have probability 2^-{m} > δ_{last}); use "
                             f"at least {needed} items (or a larger delta, or mode=empirical)")
        return
    tau = certified_threshold(sigma, delta, last, m)
    if tau >= 1.0:
        needed = math.floor(2.0 * sigma**2 * math.log(1.0 / decision_delta(delta, last))) + 1
        raise ValueError(
            f"{where}: certified mode with a confirmation pool of {m} items gives τ_{last} = {tau:.3f} ≥ 1 at "
            f"decision {last}, which no success gain can beat; use at least {needed} items "
            f"(or a larger delta, or mode=empirical)"
        )


def commit_threshold(mode: str, bound: str, t: int, sigma: float, delta: float, new, old) -> float:
    """τ_t for the paired per-item scores ``new`` and ``old`` ([m] each) of one decision."""
    discordant = ternary_discordant(new.double() - old.double()) if mode == "certified" and bound == "sign" else None
    return threshold(mode, t, new.numel(), sigma, delta, bound, discordant)
