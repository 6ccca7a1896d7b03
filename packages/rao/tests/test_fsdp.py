"""RAO with its policy sharded over two gloo processes (``trainer=fsdp_cpu``) on craft: the trees of
each rank are played on its full copy of the weights, the recursive learner's update runs in lockstep
and the flat copy (a full replica on every rank, not sharded) averages its gradients over the ranks."""

from conftest import CONFIG_DIR, FAST

from coevo.core.testing.ddp import FSDP, metrics_rows, train_ddp


def test_rao_recursive_and_flat_learners_train_sharded(tmp_path):
    base = [o for o in FAST if o != "env=boxes" and not o.startswith(("algo.tasks_per_step", "algo.report"))]
    train_ddp(CONFIG_DIR, ["algo=rao", "env=craft", "algo.tasks_per_step=2", "algo.report.num_tasks=0",
                           "algo.recursion.budget.max_nodes=8", "trainer.max_steps=2",
                           "trainer.collective_timeout=300"],
              tmp_path / "cache", tmp_path / "run", base, trainer=FSDP)
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    for key in ("train/env_steps_total", "train/flat/env_steps_total"):
        assert 0 < rows[0][key] < rows[1][key]
    assert all("train/held_parameters_bytes" in r for r in rows)  # the recursive policy is sharded
    assert (tmp_path / "run" / "checkpoints" / "last.ckpt" / "meta.pt").is_file()  # a sharded checkpoint folder
