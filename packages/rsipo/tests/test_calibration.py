"""Trust calibration used alone: a registered Lightning callback that another (toy) distillation
module asks for ω in its training_step; its estimates survive a checkpoint."""

import lightning as L
import pytest
import torch

from coevo.core import registry
from coevo.core.cli.train import configured_callbacks
from coevo.rsipo.calibration import TrustCalibration
from coevo.rsipo.config import TrustSettings


class ToyDistillation(L.LightningModule):
    """Each step: two tasks of type "a"; the privileged context helps task 0 and hurts task 1."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(2))
        self.omegas = []

    def training_step(self, batch, batch_idx):
        calibration = TrustCalibration.find(self.trainer)
        result = calibration.calibrate(["a", "a"], [[0, 0, 0, 0], [1, 1, 1, 1]], [[1, 1, 1, 1], [0, 0, 0, 0]])
        omega = torch.tensor(result.omega)
        self.omegas.append(result.omega)
        return (omega * self.weight).sum()  # a stand-in for the ω-weighted distillation loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

    def train_dataloader(self):
        return torch.utils.data.DataLoader(list(range(8)), batch_size=1)


def test_registered_and_built_from_config():
    assert registry.callbacks.get("trust_calibration") is TrustCalibration
    (callback,) = configured_callbacks({"trust": {"name": "trust_calibration", "kappa": 2.0}})
    assert isinstance(callback, TrustCalibration) and callback.config.kappa == 2.0


def test_used_alone_by_another_module(tmp_path):
    # Δ = +1 and −1 (σ² floored at 0.01): type mean 0, Var = 2 (unbiased), τ² = 2 − 0.01, B ≈ 0.995
    # ω = clip(1 + Δ̃, 0, 2) ≈ [1.995, 0.005]
    module = ToyDistillation()
    callback = TrustCalibration(TrustSettings(type_decay=1.0))
    trainer = L.Trainer(max_steps=2, callbacks=[callback], logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, accelerator="cpu")
    trainer.fit(module)
    assert module.omegas[0] == pytest.approx([1.995, 0.005], abs=1e-3)
    assert callback.estimates.states["a"].weight == 4.0
    assert "trust/omega_mean" in trainer.callback_metrics
    # the estimates are part of the callback's checkpoint state
    path = tmp_path / "ckpt.ckpt"
    trainer.save_checkpoint(path)
    fresh = TrustCalibration(TrustSettings(type_decay=1.0))
    state = next(v for k, v in torch.load(path, weights_only=False)["callbacks"].items() if "TrustCalibration" in k)
    fresh.load_state_dict(state)
    assert fresh.estimates.states["a"] == callback.estimates.states["a"]


def test_find_without_the_callback_says_how_to_add_it():
    trainer = L.Trainer(logger=False, enable_progress_bar=False, enable_model_summary=False, accelerator="cpu")
    with pytest.raises(LookupError, match="callbacks=trust_calibration"):
        TrustCalibration.find(trainer)
