"""RSIPO with its policy sharded over two gloo processes (``trainer=fsdp_cpu``): rollouts, replays and
skill writing sample from each rank's full copy, teacher log-probs are computed on it, and the
combined update runs the same number of micro-batches on every rank; each rank holds half the state."""

from conftest import CONFIG_DIR, FAST

from coevo.core.testing.ddp import FSDP, assert_holds_half, metrics_rows, train_ddp, warm_start_parameters

RSIPO = ["algo=rsipo", "algo.group_size=4", "algo.tasks_per_step=4", "eval.before=false", "eval.after=false",
         "trainer.max_steps=2", "trainer.collective_timeout=300"]


def test_rsipo_trains_sharded_over_two_ranks(tmp_path):
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")]
    cache = tmp_path / "cache"
    train_ddp(CONFIG_DIR, RSIPO, cache, tmp_path / "run", base, trainer=FSDP)
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    assert_holds_half(rows, warm_start_parameters(cache))
    for row in rows:
        assert row["train/budget/student_episodes"] == 16.0  # 4 tasks x 4 episodes over both ranks
        assert "train/gain_mean" in row and "train/opsd_loss" in row
    assert (tmp_path / "run" / "skills.jsonl").is_file()
