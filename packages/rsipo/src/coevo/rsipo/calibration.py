"""Trust calibration as a Lightning callback, usable with any distillation setup.

Any LightningModule that measures, per task, outcomes *without* privileged context (a control
half) and *with* it (a replay half) can ask the callback for trust coefficients in its
``training_step``::

    calibration = TrustCalibration.find(self.trainer)          # configured with +callbacks=trust_calibration
    result = calibration.calibrate(task_types, control_outcomes, replay_outcomes)
    loss = opsd_loss(..., omega=torch.tensor(result.omega)[row_task])

``calibrate`` computes the replay gains Δ_x, updates the running per-type estimates, shrinks
(``shrinkage.py``) and returns ω_x. The callback keeps the estimates in checkpoints (exact resume)
and logs ``trust/*`` every step. RSIPO owns one instance built from ``algo.trust`` and records its
metrics itself. Registered as ``trust_calibration`` in ``coevo.core.registry.callbacks``.

Several processes (``trainer=ddp_cpu``): ``calibrate_all_ranks`` gathers every rank's tasks and
outcomes, calibrates on all of them in rank order — the same computation on every rank, so the
per-type estimates stay identical (checked) — and tells each rank which rows are its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import lightning as L

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.rsipo.config import TrustSettings
from coevo.rsipo.gain import replay_gain
from coevo.rsipo.shrinkage import TypeEstimates, shrink, trust_coefficients


@dataclass
class TrustResult:
    types: list[str]
    gains: list[float]  # Δ_x
    variances: list[float]  # σ_x²
    shrunk: list[float]  # Δ̃_x
    factors: list[float]  # B_x
    omega: list[float]  # ω_x
    type_means: dict[str, float]  # μ_k after this batch

    def rows(self, rows: slice) -> TrustResult:
        """The results of some tasks only (a rank's own share of the batch)."""
        return TrustResult(self.types[rows], self.gains[rows], self.variances[rows], self.shrunk[rows],
                           self.factors[rows], self.omega[rows], self.type_means)

    def metrics(self) -> dict[str, float]:
        n = max(1, len(self.omega))
        out = {
            "omega_mean": sum(self.omega) / n,
            "omega_min": min(self.omega, default=0.0),
            "omega_max": max(self.omega, default=0.0),
            "omega_zero_share": sum(w == 0.0 for w in self.omega) / n,
            "gain_mean": sum(self.gains) / n,
            "shrink_factor_mean": sum(self.factors) / n,
            "teacher_better_share": sum(g > 0 for g in self.gains) / n,
            "teacher_worse_share": sum(g < 0 for g in self.gains) / n,
        }
        for task_type in dict.fromkeys(self.types):
            rows = [i for i, t in enumerate(self.types) if t == task_type]
            out[f"gain/{task_type}"] = sum(self.gains[i] for i in rows) / len(rows)
            out[f"gain_shrunk/{task_type}"] = sum(self.shrunk[i] for i in rows) / len(rows)
            out[f"omega/{task_type}"] = sum(self.omega[i] for i in rows) / len(rows)
        return out


@registry.callbacks.register("trust_calibration")
class TrustCalibration(L.Callback):
    Config = TrustSettings

    def __init__(self, config: TrustSettings | None = None, log_metrics: bool = True):
        self.config = config or TrustSettings()
        self.estimates = TypeEstimates(self.config.type_decay)
        self.log_metrics = log_metrics
        self.last: TrustResult | None = None

    @staticmethod
    def find(trainer: L.Trainer) -> TrustCalibration:
        for callback in trainer.callbacks:
            if isinstance(callback, TrustCalibration):
                return callback
        raise LookupError("no TrustCalibration callback configured; add +callbacks=trust_calibration")

    def running_means(self) -> dict[str, float]:
        """μ_k of every type seen so far (before this batch, when called before ``calibrate``)."""
        return self.estimates.means()

    def calibrate(self, types: list[str], control_outcomes: list[list[float]],
                  replay_outcomes: list[list[float]]) -> TrustResult:
        """ω_x for every task from the outcomes of its control and replay halves (0/1 each)."""
        c = self.config
        measured = [replay_gain(ctrl, rep, c.variance_floor) for ctrl, rep in zip(control_outcomes, replay_outcomes)]
        gains, variances = [m.gain for m in measured], [m.variance for m in measured]
        return self.calibrate_gains(types, gains, variances)

    def calibrate_all_ranks(self, types: list[str], control_outcomes: list[list[float]],
                            replay_outcomes: list[list[float]]) -> tuple[TrustResult, slice]:
        """``calibrate`` on the tasks of every rank (rank order): ``(the batch's result, this rank's rows)``.

        One process: ``calibrate`` on its tasks and all rows."""
        shares = dist.gather_objects((list(types), control_outcomes, replay_outcomes))
        start = sum(len(share[0]) for share in shares[: dist.rank()])
        result = self.calibrate([t for s in shares for t in s[0]], [c for s in shares for c in s[1]],
                                [r for s in shares for r in s[2]])
        if dist.world_size() > 1:
            dist.agree(self.estimates.state_dict(), "the trust calibration's per-type estimates")
        return result, slice(start, start + len(types))

    def calibrate_gains(self, types: list[str], gains: list[float], variances: list[float]) -> TrustResult:
        self.estimates.update(gains, variances, types)
        shrunk, factors = shrink(gains, variances, types, self.estimates)
        omega = trust_coefficients(shrunk, self.config.kappa, self.config.omega_max)
        self.last = TrustResult(list(types), gains, variances, shrunk, factors, omega, self.estimates.means())
        return self.last

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if self.log_metrics and self.last is not None:
            pl_module.log_dict({f"trust/{k}": float(v) for k, v in self.last.metrics().items()}, on_step=True)
            self.last = None

    def state_dict(self) -> dict:
        return {"estimates": self.estimates.state_dict()}

    def load_state_dict(self, state_dict: dict) -> None:
        self.estimates.load_state_dict(state_dict["estimates"])
