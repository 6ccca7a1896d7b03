"""Type-level empirical-Bayes shrinkage of replay gains, and the trust coefficient ω_x.

A raw replay gain Δ_x rests on a few rollouts and is noisy. Model it as Δ_x = θ_x + noise with
noise variance σ_x² (binomial, ``gain.py``) and θ_x ~ (μ_k, τ_k²) within the task's type k. The
posterior-mean (James–Stein style) estimate shrinks Δ_x towards its type mean:

    Δ̃_x = μ_k + B_x (Δ_x − μ_k),   B_x = τ_k² / (τ_k² + σ_x²)

with the method-of-moments between-task variance τ_k² = max(0, Var_k(Δ) − mean_k σ²).

μ_k, Var_k(Δ) and mean_k σ² are *running* per-type estimates (``TypeEstimates``): exponentially
weighted sums over every task of type k seen so far, each older observation weighted ``decay``
times less per update of its type (``decay=1``: plain cumulative sums). Var_k is the unbiased
weighted variance, corrected with the effective count n_eff = (Σw)² / Σw²; with n_eff ≤ 1 it is
0 (one observation says nothing about the spread), so Δ̃_x = μ_k = Δ_x for a first lone task.

Trust (our choice, as the spec): ω_x = clip(1 + κ·Δ̃_x, 0, ω_max). ω < 1 where the skill-conditioned
teacher does worse than the student, 0 switches distillation off for the task, > 1 where it helps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class TypeState:
    """Exponentially weighted sums over the replay gains of one task type."""

    weight: float = 0.0  # Σ w
    weight_sq: float = 0.0  # Σ w²
    gain_sum: float = 0.0  # Σ w Δ
    gain_sq_sum: float = 0.0  # Σ w Δ²
    variance_sum: float = 0.0  # Σ w σ²

    @property
    def mean(self) -> float:  # μ_k
        return self.gain_sum / self.weight if self.weight > 0 else 0.0

    @property
    def effective_count(self) -> float:  # n_eff = (Σw)² / Σw²
        return self.weight**2 / self.weight_sq if self.weight_sq > 0 else 0.0

    @property
    def gain_variance(self) -> float:  # Var_k(Δ), unbiased (0 when n_eff <= 1)
        n_eff = self.effective_count
        if n_eff <= 1.0 + 1e-9:
            return 0.0
        population = max(0.0, self.gain_sq_sum / self.weight - self.mean**2)
        return population * n_eff / (n_eff - 1.0)

    @property
    def mean_sampling_variance(self) -> float:  # mean_k σ²
        return self.variance_sum / self.weight if self.weight > 0 else 0.0

    @property
    def between_variance(self) -> float:  # τ_k² = max(0, Var_k(Δ) − mean_k σ²)
        return max(0.0, self.gain_variance - self.mean_sampling_variance)


class TypeEstimates:
    """Running per-type estimates μ_k, Var_k(Δ), mean_k σ² (and so τ_k²) over training."""

    def __init__(self, decay: float = 0.9):
        if not 0.0 < decay <= 1.0:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.decay = decay
        self.states: dict[str, TypeState] = {}

    def update(self, gains: list[float], variances: list[float], types: list[str]) -> None:
        """Add one batch: each type present is decayed once, then its tasks are added with weight 1."""
        d = self.decay
        for task_type in dict.fromkeys(types):
            s = self.states.setdefault(task_type, TypeState())
            s.weight, s.weight_sq = d * s.weight, d * d * s.weight_sq
            s.gain_sum, s.gain_sq_sum, s.variance_sum = d * s.gain_sum, d * s.gain_sq_sum, d * s.variance_sum
        for gain, variance, task_type in zip(gains, variances, types):
            s = self.states[task_type]
            s.weight += 1.0
            s.weight_sq += 1.0
            s.gain_sum += gain
            s.gain_sq_sum += gain * gain
            s.variance_sum += variance

    def means(self) -> dict[str, float]:
        return {k: s.mean for k, s in self.states.items() if s.weight > 0}

    def state_dict(self) -> dict:
        return {"decay": self.decay, "states": {k: asdict(s) for k, s in self.states.items()}}

    def load_state_dict(self, state: dict) -> None:
        self.decay = state["decay"]
        self.states = {k: TypeState(**v) for k, v in state["states"].items()}


def shrink(
    gains: list[float], variances: list[float], types: list[str], estimates: TypeEstimates
) -> tuple[list[float], list[float]]:
    """(Δ̃_x, B_x) for every task, from the estimates of its type (which must already hold it)."""
    shrunk, factors = [], []
    for gain, variance, task_type in zip(gains, variances, types):
        state = estimates.states[task_type]
        tau2 = state.between_variance
        factor = tau2 / (tau2 + variance) if tau2 + variance > 0 else 1.0
        shrunk.append(state.mean + factor * (gain - state.mean))
        factors.append(factor)
    return shrunk, factors


def trust_coefficients(shrunk_gains: list[float], kappa: float = 1.0, omega_max: float = 2.0) -> list[float]:
    """ω_x = clip(1 + κ·Δ̃_x, 0, ω_max)."""
    return [min(omega_max, max(0.0, 1.0 + kappa * g)) for g in shrunk_gains]
