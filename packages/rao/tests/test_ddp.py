"""RAO under ``trainer=ddp_cpu`` (2 gloo processes) on craft: each rank plays its share of the step's
tasks (recursive trees and the flat copy in lockstep), both learners' gradients are averaged, the
env-step totals count every rank's trees, and rank 0 writes one metrics row per step."""

from conftest import CONFIG_DIR, FAST

from coevo.core.testing.ddp import metrics_rows, train_ddp


def test_rao_recursive_and_flat_learners_train_under_ddp(tmp_path):
    base = [o for o in FAST if o != "env=boxes" and not o.startswith(("algo.tasks_per_step", "algo.report"))]
    train_ddp(CONFIG_DIR, ["algo=rao", "env=craft", "algo.tasks_per_step=2", "algo.report.num_tasks=0",
                           "algo.recursion.budget.max_nodes=8", "trainer.max_steps=2"],
              tmp_path / "cache", tmp_path / "run", base)
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    for key in ("train/env_steps_total", "train/flat/env_steps_total"):
        assert 0 < rows[0][key] < rows[1][key]
    assert (tmp_path / "run" / "checkpoints" / "last.ckpt").is_file()
