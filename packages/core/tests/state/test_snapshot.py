"""take_snapshot / restore_snapshot on a plain model + AdamW + scheduler + RNGs (no Lightning)."""

import random
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from coevo.core.state.snapshot import restore_snapshot, take_snapshot


def _setup():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 1))
    model[0].bias.requires_grad_(False)  # frozen: not copied
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0 / (1 + step))
    trainer = SimpleNamespace(optimizers=[opt], lr_scheduler_configs=[SimpleNamespace(scheduler=sched)], datamodule=None)
    return model, opt, sched, trainer


def _train(model, opt, sched, steps):
    draws = []
    for _ in range(steps):
        x = torch.randn(8, 4)  # the torch RNG drives the data
        draws.append((random.random(), float(np.random.rand())))
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return draws


def test_restore_replays_the_same_steps_bit_exactly():
    model, opt, sched, trainer = _setup()
    _train(model, opt, sched, 2)
    snap = take_snapshot(model, trainer)
    assert set(snap.weights) == {"0.weight", "1.weight", "1.bias"}
    draws_a = _train(model, opt, sched, 3)
    after_a = {k: v.clone() for k, v in model.state_dict().items()}
    lr_a = opt.param_groups[0]["lr"]
    restore_snapshot(snap, model, trainer)
    assert opt.param_groups[0]["lr"] == pytest.approx(1.0 / 3 * 0.1)
    draws_b = _train(model, opt, sched, 3)
    assert draws_a == draws_b  # python and numpy RNGs were restored
    assert opt.param_groups[0]["lr"] == lr_a
    for name, value in model.state_dict().items():
        assert torch.equal(value, after_a[name]), name


def test_snapshot_is_a_copy_and_mismatches_are_refused():
    model, opt, sched, trainer = _setup()
    snap = take_snapshot(model, trainer)
    _train(model, opt, sched, 1)
    assert not torch.equal(snap.weights["0.weight"], model[0].weight)  # not aliased
    other = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have"):
        restore_snapshot(snap, other)
    with pytest.raises(ValueError, match="optimizers"):
        restore_snapshot(snap, model, SimpleNamespace(optimizers=[], lr_scheduler_configs=[], datamodule=None))


def test_snapshot_state_survives_a_weights_only_checkpoint(tmp_path):
    # a root kept in a Lightning checkpoint: plain values only, and restoring it replays the same steps
    from coevo.core.state.snapshot import snapshot_from_state, snapshot_state

    model, opt, sched, trainer = _setup()
    _train(model, opt, sched, 2)
    torch.save({"root": snapshot_state(take_snapshot(model, trainer))}, tmp_path / "ckpt")
    draws_a = _train(model, opt, sched, 3)
    after_a = {k: v.clone() for k, v in model.state_dict().items()}
    _train(model, opt, sched, 2)  # drift further, then restore from the file
    snap = snapshot_from_state(torch.load(tmp_path / "ckpt", weights_only=True)["root"])
    restore_snapshot(snap, model, trainer)
    assert _train(model, opt, sched, 3) == draws_a
    for name, value in model.state_dict().items():
        assert torch.equal(value, after_a[name]), name
