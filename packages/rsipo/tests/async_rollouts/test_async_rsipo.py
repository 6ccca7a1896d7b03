"""RSIPO with its plays beside training (``rollout.async``; coevo-rsipo's ``async`` extra, a real local
Ray instance): a worker plays each batch's students, writes its skills and replays them with one
weight version, and the trainer learns from them. ``max_staleness=0`` is the synchronous run to the
digit (metrics, skills.jsonl, weights); with ``max_staleness=1`` every batch is played one step ahead
and RSIPO's records (skills, replay gains, budget) are whole."""

import importlib.util
import json

import pytest
import torch

from coevo.core.cli import train
from coevo.core.testing.async_runs import async_overrides, comparable, exported_weights, metrics_rows
from coevo.core.testing.fixtures import local_ray  # noqa: F401 (a real local Ray instance; imports Ray itself)

if importlib.util.find_spec("ray") is None:
    pytest.skip("Ray is not installed: pip install 'coevo-rsipo[async]'", allow_module_level=True)

pytestmark = pytest.mark.usefixtures("local_ray")

STEPS = 3
RUN = ["warmstart.enabled=false", "eval.before=false", "eval.after=false", "algo.skip_zero_advantage=false",
       "algo.warmup.steps=2", "algo.warmup.episodes=4", "trainer.cpu_threads=1"]


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]




def test_rsipo_at_max_staleness_zero_is_the_synchronous_run(compose_train, tmp_path):
    sync_dir, async_dir = tmp_path / "sync", tmp_path / "async"
    train.run(compose_train("rsipo", *RUN, f"trainer.max_steps={STEPS}", f"run_dir={sync_dir}"))
    train.run(compose_train("rsipo", *RUN, *async_overrides(0), f"trainer.max_steps={STEPS}", f"run_dir={async_dir}"))
    played = metrics_rows(async_dir)
    assert [r["rollout/policy_version"] for r in played] == [0.0, 1.0, 2.0]
    assert comparable(played) == comparable(metrics_rows(sync_dir))  # Δ, ω, losses: to the digit
    assert _rows(async_dir / "skills.jsonl") == _rows(sync_dir / "skills.jsonl")  # the same skills written
    a, b = exported_weights(sync_dir), exported_weights(async_dir)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_rsipo_plays_one_step_ahead_with_whole_records(compose_train, tmp_path):
    run_dir = tmp_path / "run"
    result = train.run(compose_train("rsipo", *RUN, *async_overrides(1), "trainer.max_steps=4", f"run_dir={run_dir}"))
    rows = metrics_rows(run_dir)
    assert result["steps"] == 4
    assert [r["rollout/policy_version"] for r in rows] == [0.0, 0.0, 1.0, 2.0]
    assert [r["rollout/staleness_max"] for r in rows] == [0.0, 1.0, 1.0, 1.0]
    for row in rows:  # 2 tasks x 4 students + 2 tasks x 2 replays, all from the worker
        assert row["train/budget/student_episodes"] == 8 and row["train/budget/replay_episodes"] == 4
        assert row["rollout/dropped_stale"] == 0.0 and "train/tis_ess" in row
    skills = _rows(run_dir / "skills.jsonl")
    assert [r["step"] for r in skills] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert all(r["source"] == "policy" and -1.0 <= r["replay_gain"] <= 1.0 for r in skills)
