"""HEIRCOMMIT across a crash and ``resume=``: the same decisions, no item drawn twice, Σδ_t ≤ δ.

Setup (as ``test_heircommit_grpo_run``): 8 seeded GRPO steps on ``boxes``, a proposal every 2 steps
judged on 8 fresh confirmation items x 2 samples, so decisions fall at steps 2, 4, 6, 8. The split
run is killed (an exception from a callback, after the step-5 checkpoint is written) one step into
the third excursion: its root is the state after step 4, its weights are those after step 5. A
resume that lost the callback's state would take the step-5 weights as the root, decide at step 7
instead of 6, number that decision 1 and draw confirmation items 3,000,000.. again. The resumed
run must match the uninterrupted one exactly: decisions, gains, ledger, weights, metrics.
The second test does it for real: ``coevo-train`` in its own process, SIGKILLed once step 6 is
logged (its checkpoint is written after the metrics row: the kill lands around there), then ``resume=`` from the command line.
"""

import json
import os
import signal
import subprocess
import sys
import time

import lightning as L
import pytest
import torch
from conftest import CONFIG_DIR, FAST_BOXES
from safetensors.torch import load_file

from coevo.core.cli import train
from coevo.core.testing.fast_configs import compose_fast
from coevo.evoheir.heircommit import HeirCommit

SETTINGS = ["+callbacks=heircommit", "callbacks.heircommit.metric=sampled", "callbacks.heircommit.samples=2",
            "eval.before=false", "eval.after=false", "algo.tasks_per_step=2",
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


def _run(compose, monkeypatch, run_dir, *extra, kill_at=None):
    made = []
    original_callbacks, original_trainer = train.configured_callbacks, train.make_trainer
    monkeypatch.setattr(train, "configured_callbacks", lambda nodes: made.extend(original_callbacks(nodes)) or made)

    def make_trainer(*args, **kwargs):
        trainer = original_trainer(*args, **kwargs)
        if kill_at is not None:
            trainer.callbacks.append(_KillAtStep(kill_at))
        return trainer

    monkeypatch.setattr(train, "make_trainer", make_trainer)
    cfg = compose(*SETTINGS, f"run_dir={run_dir}", *extra)
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


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """(compose, the warm-start cache, the folder of the uninterrupted run and its callback), shared."""
    root = tmp_path_factory.mktemp("heircommit_resume")

    def compose(*overrides):
        return compose_fast(CONFIG_DIR, overrides, root / "cache", root / "unused", FAST_BOXES)

    with pytest.MonkeyPatch.context() as monkeypatch:
        straight = _run(compose, monkeypatch, root / "straight")
    return compose, root / "cache", root / "straight", straight


def _heircommit_state(run_dir):
    ckpt = torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=True)
    (state,) = [v for k, v in ckpt["callbacks"].items() if k.startswith("HeirCommit")]
    return ckpt, state


def _same_run(a_dir, b_dir):
    wa = load_file(str(a_dir / "policy" / "model.safetensors"))
    wb = load_file(str(b_dir / "policy" / "model.safetensors"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert _metrics(b_dir) == _metrics(a_dir)


def test_decisions_straddling_a_kill_match_an_uninterrupted_run(folders, monkeypatch, tmp_path):
    compose, _, straight_dir, straight = folders
    with pytest.raises(_Killed):
        _run(compose, monkeypatch, tmp_path / "split", kill_at=5)
    ckpt, state = _heircommit_state(tmp_path / "split")  # weights_only: plain values only
    assert ckpt["global_step"] == 5
    assert state["root_step"] == 4 and state["judge"]["decisions"] == 2
    resumed = _run(compose, monkeypatch, tmp_path / "split", f"resume={tmp_path / 'split'}")

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
    _same_run(straight_dir, tmp_path / "split")


def _cli(*args):
    env = {**os.environ, "COEVO_CONFIG_DIR": CONFIG_DIR, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "coevo.core.cli.train", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_real_kill_9_mid_run_resumes_to_the_same_decisions(folders, tmp_path):
    _, cache, straight_dir, _ = folders
    split = tmp_path / "split"
    proc = _cli(*FAST_BOXES, *SETTINGS, f"warmstart.cache_dir={cache}", f"run_dir={split}")
    deadline = time.monotonic() + 240
    while not ((split / "metrics.jsonl").is_file() and len((split / "metrics.jsonl").read_text().splitlines()) >= 6):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()[-3000:]
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = torch.load(split / "checkpoints" / "last.ckpt", weights_only=True)["global_step"]
    assert 5 <= killed_at < 8
    resumed = _cli(f"resume={split}")  # nothing else on the command line: the saved config stands
    out, _ = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, out[-3000:]
    assert f"reclaimed the lock of process {proc.pid}" in out
    _, a = _heircommit_state(straight_dir)
    _, b = _heircommit_state(split)
    assert b["history"] == a["history"] and b["judge"] == a["judge"] and b["root_step"] == a["root_step"] == 8
    assert b["judge"]["decisions"] == 4 and b["judge"]["spent_delta"] <= 0.1
    _same_run(straight_dir, split)
