"""RAO with its trees played beside training (``rollout.async``; coevo-rao's ``async`` extra, a real
local Ray instance): a worker plays each batch's recursion trees with one weight version and the
trainer credits and updates on them. ``max_staleness=0`` is the synchronous run to the digit; with
``max_staleness=2`` a run stopped after a checkpoint with trees in flight resumes exactly (the
finished trees are kept in the checkpoint as plain records)."""

import importlib.util

import pytest
import rao_sums_env
import torch

from coevo.core.cli import train
from coevo.core.testing.async_runs import TIMING, async_overrides, comparable, exported_weights, metrics_rows
from coevo.core.testing.fixtures import local_ray  # noqa: F401 (a real local Ray instance; imports Ray itself)

if importlib.util.find_spec("ray") is None:
    pytest.skip("Ray is not installed: pip install 'coevo-rao[async]'", allow_module_level=True)

pytestmark = pytest.mark.usefixtures("local_ray", "sums_env_by_value")

RUN = ["warmstart.enabled=false", "eval.before=false", "eval.after=false", "algo.report.num_tasks=0",
       "algo.flat_baseline=off", "algo.skip_zero_advantage=false", "agent.mode=choose", "trainer.cpu_threads=1"]
ENV = {"length": 4, "max_digit": 1}
TREE_TIMING = (*TIMING, "latency")  # and tree_latency, a wall time too


@pytest.fixture(scope="module")
def sums_env_by_value():
    """The workers cannot import the test folder's env module: Ray ships it by value."""
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(rao_sums_env)
    yield
    ray.cloudpickle.unregister_pickle_by_value(rao_sums_env)






def test_rao_at_max_staleness_zero_is_the_synchronous_run(compose_train, tmp_path):
    sync_dir, async_dir = tmp_path / "sync", tmp_path / "async"
    train.run(compose_train(*RUN, "trainer.max_steps=3", f"run_dir={sync_dir}", env=ENV))
    train.run(compose_train(*RUN, *async_overrides(0), "trainer.max_steps=3", f"run_dir={async_dir}", env=ENV))
    played = metrics_rows(async_dir)
    assert [r["rollout/policy_version"] for r in played] == [0.0, 1.0, 2.0]
    assert comparable(played, TREE_TIMING) == comparable(metrics_rows(sync_dir), TREE_TIMING)  # tree sizes, credit, losses: to the digit
    assert any(r["train/tree/nodes"] > 1 for r in played)  # the trees delegated
    a, b = exported_weights(sync_dir), exported_weights(async_dir)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_rao_resumes_exactly_with_trees_in_flight(compose_train, tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    train.run(compose_train(*RUN, *async_overrides(2), "trainer.max_steps=4", f"run_dir={straight}", env=ENV))
    train.run(compose_train(*RUN, *async_overrides(2), "trainer.max_steps=2", f"run_dir={split}", env=ENV))
    train.run(compose_train(*RUN, *async_overrides(2), "trainer.max_steps=4", f"run_dir={split}", f"resume={split}", env=ENV))
    rows = metrics_rows(straight)
    assert [r["rollout/staleness_max"] for r in rows] == [0.0, 1.0, 2.0, 2.0]
    assert comparable(metrics_rows(split), TREE_TIMING) == comparable(rows, TREE_TIMING)
    a, b = exported_weights(straight), exported_weights(split)
    assert all(torch.equal(a[k], b[k]) for k in a)
