"""RSIPO end to end under ``trainer=ddp_cpu`` (2 gloo processes): each rank rolls out and replays its
own tasks, the trust calibration runs on all ranks' replay gains (its per-type estimates are checked
identical on every rank after each step; a mismatch fails the run), rank 0 writes every file, and
a resumed run repeats the uninterrupted one exactly (metrics and skills)."""

import json

from conftest import CONFIG_DIR, FAST

from coevo.core.testing.ddp import metrics_rows, train_ddp

RSIPO = ["algo=rsipo", "algo.group_size=4", "algo.tasks_per_step=4", "eval.before=false", "eval.after=false"]


def _skills(run):
    return [json.loads(line) for line in (run / "skills.jsonl").read_text().splitlines()]


def test_rsipo_under_ddp_calibrates_on_every_ranks_tasks_and_resumes_exactly(tmp_path):
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")]
    cache = tmp_path / "cache"
    train_ddp(CONFIG_DIR, [*RSIPO, "trainer.max_steps=2"], cache, tmp_path / "straight", base)
    train_ddp(CONFIG_DIR, [*RSIPO, "trainer.max_steps=1"], cache, tmp_path / "split", base)
    train_ddp(CONFIG_DIR, [*RSIPO, "trainer.max_steps=2", f"resume={tmp_path / 'split'}"], cache, tmp_path / "x", base)

    run = tmp_path / "straight"
    skills = _skills(run)
    assert [r["step"] for r in skills] == [1] * 4 + [2] * 4  # both ranks' 2 tasks per step, written once
    assert len({r["task"] for r in skills if r["step"] == 1}) == 4  # the ranks played different tasks
    rows = metrics_rows(run)
    assert [r["step"] for r in rows] == [1, 2]
    for row in rows:
        assert row["train/budget/student_episodes"] == 16.0  # 4 tasks x 4 episodes, summed over ranks
        assert "train/gain_mean" in row and 0.0 <= row["train/omega_mean"] <= 2.0
    assert rows[1]["train/budget/rollouts_total"] == 2 * rows[0]["train/budget/rollouts"] > 0
    assert metrics_rows(tmp_path / "split") == rows
    assert _skills(tmp_path / "split") == skills
