"""Bit-exact rollback inside a real training run: snapshot → 2 steps → rollback → the next
steps equal those of a run that never took the excursion."""

import json

import torch
from safetensors.torch import load_file

from coevo.core import registry
from coevo.core.callbacks.commit_rollback import CommitRollback, Decision
from coevo.core.cli import train


def _weights(run_dir):
    return load_file(str(run_dir / "policy" / "model.safetensors"))


def _metrics(run_dir):
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    drop = ("train/rollout_seconds", "train/update_seconds")
    return [{k: v for k, v in row.items() if k not in drop and not k.startswith("train/commit")} for row in rows]


class _ScriptedCommits(CommitRollback):
    """Every 2 steps: commit, roll back, commit, … as scripted."""

    script = [True, False, True]

    def __init__(self):
        decisions = iter(self.script)
        super().__init__(lambda trainer, module, root: Decision(next(decisions)), every_n_steps=2)


def test_rollback_is_bit_exact(compose_train, tmp_path):
    registry.callbacks.register("test_scripted_commits", _ScriptedCommits)
    try:
        excursion = compose_train("trainer.max_steps=6", "eval.before=false", "eval.after=false",
                                  "trainer.callbacks=[test_scripted_commits]", f"run_dir={tmp_path / 'excursion'}")
        train.run(excursion)
    finally:
        registry.callbacks.unregister("test_scripted_commits")
    straight = compose_train("trainer.max_steps=4", "eval.before=false", "eval.after=false",
                             f"run_dir={tmp_path / 'straight'}")
    train.run(straight)
    a, b = _weights(tmp_path / "excursion"), _weights(tmp_path / "straight")
    for name in b:
        assert torch.equal(a[name], b[name]), name
    rows_a, rows_b = _metrics(tmp_path / "excursion"), _metrics(tmp_path / "straight")
    strip = [{k: v for k, v in r.items() if k != "step"} for r in rows_a]
    # steps 1-2 committed, 3-4 rolled back, 5-6 replay what the straight run did at 3-4
    assert strip[:2] + strip[4:] == [{k: v for k, v in r.items() if k != "step"} for r in rows_b]
    # without the rollback, steps 5-6 would have trained on batches 4-5; with it the data cursor
    # is back at 2, and 6 optimizer steps consumed 4 batches
    assert [r["step"] for r in rows_a] == [1, 2, 3, 4, 5, 6]
    ckpt = torch.load(tmp_path / "excursion" / "checkpoints" / "last.ckpt", weights_only=False)
    assert ckpt["RolloutDataModule"]["batches_consumed"] == 4
