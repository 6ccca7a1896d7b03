"""RSIPO end to end under ``trainer=ddp_cpu`` (2 gloo processes): each rank rolls out and replays its
own tasks, the trust calibration runs on all ranks' replay gains (its per-type estimates are checked
identical on every rank after each step; a mismatch fails the run) and rank 0 writes every file."""

import json

from conftest import CONFIG_DIR, FAST

from coevo.core.testing.ddp import metrics_rows, train_ddp


def test_rsipo_under_ddp_calibrates_on_every_ranks_tasks(tmp_path):
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")]
    train_ddp(CONFIG_DIR, ["algo=rsipo", "algo.group_size=4", "algo.tasks_per_step=4", "trainer.max_steps=2",
                           "eval.before=false", "eval.after=false"], tmp_path / "cache", tmp_path / "run", base)
    run = tmp_path / "run"
    skills = [json.loads(line) for line in (run / "skills.jsonl").read_text().splitlines()]
    assert [r["step"] for r in skills] == [1] * 4 + [2] * 4  # both ranks' 2 tasks per step, written once
    assert len({r["task"] for r in skills if r["step"] == 1}) == 4  # the ranks played different tasks
    rows = metrics_rows(run)
    assert [r["step"] for r in rows] == [1, 2]
    for row in rows:
        assert row["train/budget/student_episodes"] == 16.0  # 4 tasks x 4 episodes, summed over ranks
        assert "train/gain_mean" in row and 0.0 <= row["train/omega_mean"] <= 2.0
    ckpt = run / "checkpoints" / "last.ckpt"
    assert ckpt.is_file()
