"""``callbacks.heircommit.bound=sequential`` around a seeded GRPO run on ``boxes``, and a kill in the
middle of a decision.

Settings as ``test_heircommit_grpo_run`` (8 steps, a proposal every 2), judged on one sampled answer per
item (common seeds) in batches of 16 fresh items with a budget of 160 per decision, δ = 0.1, at lr
5e-3 so that the first proposal wins clearly (it commits after 6 batches; later ones tie on every item
and spend the budget). The kill comes from the judge itself, in
the second batch of decision 2, before that step's checkpoint: the resumed run replays decision 2
from the step-3 checkpoint on the same items with the same seeds and must end exactly as the
uninterrupted run: the same decisions, items, error budget and weights.
"""

import math

import pytest
import torch
from conftest import CONFIG_DIR, FAST_BOXES
from safetensors.torch import load_file

from coevo.core.cli import train
from coevo.core.testing.fast_configs import compose_fast
from coevo.evoheir.heircommit import ConfirmationJudge, HeirCommit

SETTINGS = ["+callbacks=heircommit", "callbacks.heircommit.mode=certified", "callbacks.heircommit.bound=sequential",
            "callbacks.heircommit.max_items=160", "callbacks.heircommit.batch_items=16",
            "callbacks.heircommit.every_n_steps=2", "callbacks.heircommit.metric=sampled", "eval.before=false",
            "eval.after=false", "algo.tasks_per_step=2", "algo.group_size=4", "algo.optim.lr=5e-3", "trainer.max_steps=8", "trainer.checkpoint_every=1"]


def _plain(rows):
    """Rows comparable with ==: nan (the sequential judge's threshold) as None."""
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()} for row in rows]


class _Killed(RuntimeError):
    pass


def _run(compose, monkeypatch, run_dir, *extra):
    made = []
    original = train.configured_callbacks
    monkeypatch.setattr(train, "configured_callbacks", lambda nodes: made.extend(original(nodes)) or made)
    try:
        train.run(compose(*SETTINGS, f"run_dir={run_dir}", *extra))
    finally:
        monkeypatch.undo()
    (callback,) = [c for c in made if isinstance(c, HeirCommit)]
    return callback


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    root = tmp_path_factory.mktemp("heircommit_sequential")

    def compose(*overrides):
        return compose_fast(CONFIG_DIR, overrides, root / "cache", root / "unused", FAST_BOXES)

    with pytest.MonkeyPatch.context() as monkeypatch:
        callback = _run(compose, monkeypatch, root / "straight")
    return compose, root / "straight", callback


def test_each_decision_plays_whole_batches_until_its_e_process_decides(straight):
    _, _, callback = straight
    rows = callback.confirmation.audit
    assert [r["decision"] for r in rows] == [1, 2, 3, 4]
    assert rows[0]["commit"] and rows[0]["items"] < 160  # stopped early: the evidence sufficed
    for (_, decision), row in zip(callback.history, rows):
        d = decision.details
        assert row["items"] == d["played"] and d["played"] % 16 == 0 and d["items"] <= d["played"] <= 160
        assert math.isnan(row["threshold"]) and -1.0 <= row["gain"] <= 1.0
        assert d["log_bar"] == pytest.approx(math.log(1 / (0.1 / (row["decision"] * (row["decision"] + 1)))))
        assert decision.commit == (d["verdict"] == "commit")
        if d["verdict"] == "commit":
            assert d["log_wealth_gain"] >= d["log_bar"]
        elif d["verdict"] == "rollback":
            assert d["log_wealth_loss"] >= d["log_bar"] and d["played"] < 160
        else:
            assert d["items"] == 160 == d["played"]
    # each decision reserves its budget of fresh items, used or not
    used = sorted(i for (_, i), owner in callback.confirmation.ledger.used.items() if owner == "confirmation")
    assert used == list(range(3_000_000, 3_000_000 + 4 * 160))
    assert callback.confirmation.spent_delta == pytest.approx(0.08)


def test_a_kill_in_the_middle_of_a_decision_replays_it_on_the_same_items(straight, monkeypatch, tmp_path):
    compose, straight_dir, uninterrupted = straight
    original = ConfirmationJudge._paired_scores

    def killing(self, module, root, tasks, samples, t, role, batch=None):
        if t == 2 and batch == 1:
            raise _Killed("simulated kill -9 in the second batch of decision 2")
        return original(self, module, root, tasks, samples, t, role, batch)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ConfirmationJudge, "_paired_scores", killing)
        with pytest.raises(_Killed):
            _run(compose, monkeypatch, tmp_path / "split")
    ckpt = torch.load(tmp_path / "split" / "checkpoints" / "last.ckpt", weights_only=True)
    assert ckpt["global_step"] == 3  # decision 2 (step 4) never reached its checkpoint
    resumed = _run(compose, monkeypatch, tmp_path / "split", f"resume={tmp_path / 'split'}")

    a, b = uninterrupted.confirmation, resumed.confirmation
    assert _plain(b.audit) == _plain(a.audit) and b.ledger.used == a.ledger.used
    assert [(s, d.commit, d.details) for s, d in resumed.history] == [(s, d.commit, d.details)
                                                                      for s, d in uninterrupted.history]
    assert b.decisions == 4 and b.spent_delta == pytest.approx(0.08) and b.spent_delta <= b.config.delta
    wa = load_file(str(straight_dir / "policy" / "model.safetensors"))
    wb = load_file(str(tmp_path / "split" / "policy" / "model.safetensors"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
