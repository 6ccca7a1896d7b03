"""HEIRCOMMIT's acceptance bar τ_t.

- ``empirical``: τ_t = 0 (commit when the paired gain is positive).
- ``certified``: τ_t = σ·sqrt(2·log(1/δ_t)/m) with δ_t = δ/(t(t+1)). If the paired differences
  d_i ∈ [-1, 1] are σ-sub-Gaussian (Hoeffding: σ = 1 for that range), a harmful update
  (true gain ≤ 0) clears the bar at decision t with probability ≤ δ_t, and since
  Σ_t 1/(t(t+1)) = 1, over an unbounded number of decisions with probability ≤ δ in total.
"""

from __future__ import annotations

import math

MODES = ("empirical", "certified")


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


def threshold(mode: str, t: int, m: int, sigma: float = 1.0, delta: float = 0.1) -> float:
    if mode == "empirical":
        return 0.0
    if mode == "certified":
        return certified_threshold(sigma, delta, t, m)
    raise ValueError(f"commit mode: unknown '{mode}'; choose one of {list(MODES)}")


def check_certifiable(sigma: float, delta: float, m: int, decisions: int, where: str) -> None:
    """A clear error when the certified bar reaches 1 (a success gain can never exceed it) within
    ``decisions`` decisions; names the pool size that would do."""
    if not 0.0 < delta < 1.0:
        raise ValueError(f"{where}.delta: must be in (0, 1), got {delta}")
    if sigma <= 0:
        raise ValueError(f"{where}.sigma: must be positive, got {sigma}")
    last = max(1, decisions)
    tau = certified_threshold(sigma, delta, last, m)
    if tau >= 1.0:
        needed = math.floor(2.0 * sigma**2 * math.log(1.0 / decision_delta(delta, last))) + 1
        raise ValueError(
            f"{where}: certified mode with a confirmation pool of {m} items gives τ_{last} = {tau:.3f} ≥ 1 at "
            f"decision {last}, which no success gain can beat; use at least {needed} items "
            f"(or a larger delta, or mode=empirical)"
        )
