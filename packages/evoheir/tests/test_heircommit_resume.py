"""HEIRCOMMIT across a crash and ``resume=``: the same decisions, no item drawn twice, Σδ_t ≤ δ.

Setup (as ``test_heircommit_grpo_run``): 8 seeded GRPO steps on ``boxes``, a proposal every 2 steps
judged on 8 fresh confirmation items x 2 samples, so decisions fall at steps 2, 4, 6, 8. The split
run is killed (an exception from a callback, after the step-5 checkpoint is written) one step into
the third excursion: its root is the state after step 4, its weights are those after step 5. A
resume that lost the callback's state would take the step-5 weights as the root, decide at step 7
instead of 6, number that decision 1 and draw confirmation items 3,000,000.. again. The resumed
run must match the uninterrupted one exactly: decisions, gains, ledger, weights, metrics.
"""

import json

import lightning as L
import pytest
import torch
from conftest import FAST_BOXES
from safetensors.torch import load_file

from coevo.core.cli import train
from coevo.evoheir.heircommit import HeirCommit

SETTINGS = ["+callbacks=heircommit", "eval.before=false", "eval.after=false", "algo.tasks_per_step=2",
            "algo.group_size=4", "algo.optim.lr=1e-3", "trainer.max_steps=8", "trainer.checkpoint_every=1",
            "callbacks.heircommit.every_n_steps=2", "callbacks.heircommit.pool_size=8",
            "callbacks.heircommit.audit_pool_size=4"]


class _Killed(RuntimeError):
    pass


class _KillAtStep(L.Callback):
    """Raises after ``step``'s checkpoint is written (appended last: it runs after ModelCheckpoint)."""

    def __init__(self, step):
        self.step = step

    def on_train_batch_end(self, trainer, *args):
        if trainer.global_step == self.step:
            raise _Killed(f"simulated kill -9 after step {self.step}")


def _run(compose_train, monkeypatch, run_dir, *extra, kill_at=None):
    made = []
    original_callbacks, original_trainer = train.configured_callbacks, train.make_trainer
    monkeypatch.setattr(train, "configured_callbacks", lambda nodes: made.extend(original_callbacks(nodes)) or made)

    def make_trainer(*args, **kwargs):
        trainer = original_trainer(*args, **kwargs)
        if kill_at is not None:
            trainer.callbacks.append(_KillAtStep(kill_at))
        return trainer

    monkeypatch.setattr(train, "make_trainer", make_trainer)
    cfg = compose_train(*SETTINGS, f"run_dir={run_dir}", *extra, base=FAST_BOXES)
    try:
        train.run(cfg)
    finally:
        monkeypatch.undo()
    (callback,) = [c for c in made if isinstance(c, HeirCommit)]
    return callback


def _metrics(run_dir):
    drop = ("train/rollout_seconds", "train/update_seconds")
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if k not in drop} for row in rows]


def test_decisions_straddling_a_kill_match_an_uninterrupted_run(compose_train, monkeypatch, tmp_path):
    straight = _run(compose_train, monkeypatch, tmp_path / "straight")
    with pytest.raises(_Killed):
        _run(compose_train, monkeypatch, tmp_path / "split", kill_at=5)
    ckpt = torch.load(tmp_path / "split" / "checkpoints" / "last.ckpt", weights_only=True)  # plain values only
    assert ckpt["global_step"] == 5
    (state,) = [v for k, v in ckpt["callbacks"].items() if k.startswith("HeirCommit")]
    assert state["root_step"] == 4 and state["judge"]["decisions"] == 2
    resumed = _run(compose_train, monkeypatch, tmp_path / "split", f"resume={tmp_path / 'split'}")

    a, b = straight.confirmation, resumed.confirmation
    assert [r["decision"] for r in b.audit] == [1, 2, 3, 4]
    assert b.audit == a.audit  # same gains, thresholds, commits and audit gains, decision by decision
    assert [(s, d.commit, d.gain) for s, d in resumed.history] == [(s, d.commit, d.gain) for s, d in straight.history]
    assert [s for s, _ in resumed.history] == [2, 4, 6, 8]
    # the ledger: 4 decisions x 8 confirmation items, each drawn once, the same as the straight run's
    assert b.ledger.used == a.ledger.used
    confirmation = sorted(i for (_, i), owner in b.ledger.used.items() if owner == "confirmation")
    assert confirmation == list(range(3_000_000, 3_000_032))
    # Σ_{t≤4} δ_t = δ·4/5 = 0.08 ≤ δ = 0.1
    assert b.decisions == 4 and b.spent_delta == pytest.approx(0.08) and b.spent_delta <= b.config.delta
    wa = load_file(str(tmp_path / "straight" / "policy" / "model.safetensors"))
    wb = load_file(str(tmp_path / "split" / "policy" / "model.safetensors"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert _metrics(tmp_path / "split") == _metrics(tmp_path / "straight")
