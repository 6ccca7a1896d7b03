"""Asynchronous rollouts end to end with a real local Ray instance (``rollout.async``; core's ``async``
extra): ``max_staleness=0`` is the synchronous run to the digit; with ``max_staleness=1`` the workers
play one batch ahead and no sample is staler than the bound; a kill between checkpoints resumes
exactly; weights a worker was not sent trip the log-prob self-check."""

import os

import pytest
import torch

from coevo.core.workers.async_rollouts import LOOPBACK_NODE

os.environ.setdefault(LOOPBACK_NODE, "0")  # before Ray is imported: the local instance on loopback only
ray = pytest.importorskip("ray")

from coevo.core.cli import train  # noqa: E402
from coevo.core.rollout.sync_check import WeightSyncError  # noqa: E402
from coevo.core.testing.async_runs import async_overrides, comparable, exported_weights, metrics_rows  # noqa: E402
from coevo.core.testing.fixtures import local_ray  # noqa: E402,F401 (a real local Ray instance)

STEPS = 3
RUN = ["eval.before=false", "eval.after=false", "warmstart.enabled=false", "algo.skip_zero_advantage=false",
       "agent.choice_score=mean", "trainer.cpu_threads=1"]


pytestmark = pytest.mark.usefixtures("local_ray")






def test_max_staleness_zero_is_the_synchronous_run(compose_train, tmp_path):
    sync_dir, async_dir = tmp_path / "sync", tmp_path / "async"
    train.run(compose_train(*RUN, f"trainer.max_steps={STEPS}", f"run_dir={sync_dir}"))
    train.run(compose_train(*RUN, *async_overrides(0), f"trainer.max_steps={STEPS}", f"run_dir={async_dir}"))
    played = metrics_rows(async_dir)
    assert [r["rollout/staleness_max"] for r in played] == [0.0] * STEPS
    assert [r["rollout/policy_version"] for r in played] == [0.0, 1.0, 2.0]
    assert comparable(played) == comparable(metrics_rows(sync_dir))  # rewards, losses, grad norms: to the digit
    synced, asynced = exported_weights(sync_dir), exported_weights(async_dir)
    assert all(torch.equal(synced[k], asynced[k]) for k in synced)


def test_max_staleness_one_plays_ahead_within_the_bound(compose_train, tmp_path):
    run_dir = tmp_path / "run"
    cfg = compose_train(*RUN, *async_overrides(1), "trainer.max_steps=4", f"run_dir={run_dir}")
    assert cfg.algo.off_policy.tis_cap is None  # turned on by the run for stale samples
    result = train.run(cfg)
    rows = metrics_rows(run_dir)
    assert result["steps"] == 4
    # batch 0 with the starting weights; batch k >= 1 was started while batch k-1 trained: one step stale
    assert [r["rollout/policy_version"] for r in rows] == [0.0, 0.0, 1.0, 2.0]
    assert [r["rollout/staleness_max"] for r in rows] == [0.0, 1.0, 1.0, 1.0]
    assert all(r["rollout/dropped_stale"] == 0.0 for r in rows)
    assert all("train/tis_ess" in r for r in rows)  # truncated importance sampling on


def test_a_kill_between_checkpoints_resumes_exactly(compose_train, tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    train.run(compose_train(*RUN, *async_overrides(2), "trainer.max_steps=4", f"run_dir={straight}"))
    train.run(compose_train(*RUN, *async_overrides(2), "trainer.max_steps=2", f"run_dir={split}"))
    # what a kill -9 after the step-2 checkpoint leaves: a torn metrics line; the batches the workers
    # had in flight exist only in that checkpoint
    with (split / "metrics.jsonl").open("a") as handle:
        handle.write('{"step": 3, "train/rew')
    train.run(compose_train(*RUN, *async_overrides(2), "trainer.max_steps=4", f"resume={split}"))
    assert comparable(metrics_rows(split)) == comparable(metrics_rows(straight))
    assert [r["rollout/policy_version"] for r in metrics_rows(split)] == [r["rollout/policy_version"]
                                                                       for r in metrics_rows(straight)]
    a, b = exported_weights(straight), exported_weights(split)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_weights_a_worker_was_not_sent_trip_the_self_check(compose_train, tmp_path, monkeypatch):
    """The workers play version v with whatever they were sent as v: perturbed weights under the right
    version number make the trainer's log-probs disagree with the engine's, and the run stops."""
    from coevo.core.algos.rollout_module import RolloutModule

    def push_perturbed(self):
        state = {k: v + 0.5 * torch.randn_like(v) if v.is_floating_point() else v
                 for k, v in self.policy.state_dict().items()}
        self.async_rollouts.push(self.batch_index + 1, state)

    monkeypatch.setattr(RolloutModule, "push_weights", push_perturbed)
    cfg = compose_train(*RUN, *async_overrides(0), "trainer.max_steps=3", f"run_dir={tmp_path / 'run'}")
    with pytest.raises(WeightSyncError, match="disagree"):
        train.run(cfg)


def test_a_killed_worker_is_restarted_and_its_batches_replayed_exactly(compose_train, tmp_path, monkeypatch):
    """kill -9 the rollout worker's process after step 1's push: Ray starts it again, the driver sends
    it the kept weight versions and replays its unfinished batch with the same version and seed; the
    run goes on and ends as the undisturbed run does."""
    import os
    import signal

    from coevo.core.algos.rollout_module import RolloutModule

    undisturbed, killed = tmp_path / "undisturbed", tmp_path / "killed"
    train.run(compose_train(*RUN, *async_overrides(1), "trainer.max_steps=4", f"run_dir={undisturbed}"))
    push = RolloutModule.push_weights

    def push_then_kill(self):
        push(self)
        if self.batch_index == 1:  # batch 2 is in flight on the worker
            os.kill(ray.get(self.async_rollouts.workers[0].pid.remote()), signal.SIGKILL)

    monkeypatch.setattr(RolloutModule, "push_weights", push_then_kill)
    train.run(compose_train(*RUN, *async_overrides(1), "trainer.max_steps=4", f"run_dir={killed}"))
    rows = metrics_rows(killed)
    assert rows[-1]["rollout/worker_restarts"] >= 1
    assert comparable(rows) == comparable(metrics_rows(undisturbed))
    a, b = exported_weights(undisturbed), exported_weights(killed)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_lora_only_push_plays_what_a_full_push_plays(compose_train, tmp_path):
    """With LoRA the workers get only the adapter after each step (the base never changes): the same
    episodes, log-probs and metrics as sending the whole state dict, for a fraction of the bytes."""
    lora = ["model.lora.enabled=true", "model.lora.r=4", "algo.optim.lr=1e-2"]
    runs = {}
    for push in ("trainable", "full"):
        run_dir = tmp_path / push
        train.run(compose_train(*RUN, *async_overrides(1), *lora, f"rollout.async.push={push}", "trainer.max_steps=3",
                                f"run_dir={run_dir}"))
        runs[push] = metrics_rows(run_dir)
    assert comparable(runs["trainable"]) == comparable(runs["full"])
    sent = {push: rows[-1]["rollout/push_bytes"] for push, rows in runs.items()}
    assert 0 < sent["trainable"] < sent["full"] / 4
