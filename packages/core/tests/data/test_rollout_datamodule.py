"""The stream of task batches: deterministic, resumable, finite splits cycle through every task."""

from __future__ import annotations

import torch

from coevo.core.data.rollout_datamodule import RolloutDataModule, TaskBatchRef, task_batch
from coevo.core.env.protocol import Task
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def _env(eval_size: int = 6) -> BoxesEnv:
    return BoxesEnv(BoxesConfig(eval_size=eval_size))


def test_unbounded_split_batches_are_consecutive_tasks():
    env = _env()
    batch = task_batch(env, "train", batch_size=3, index=2, seed=0)
    # batch k of a procedural split is tasks k*B .. k*B+B-1: 6, 7, 8
    assert [t.index for t in batch] == [6, 7, 8]
    assert batch == [env.task("train", i) for i in (6, 7, 8)]
    assert all(isinstance(t, Task) and t.split == "train" for t in batch)


def test_task_batch_is_deterministic():
    for split in ("train", "eval_in_distribution"):
        a = task_batch(_env(), split, batch_size=4, index=3, seed=11)
        b = task_batch(_env(), split, batch_size=4, index=3, seed=11)
        assert a == b
        assert a != task_batch(_env(), split, batch_size=4, index=4, seed=11)


def test_finite_split_cycles_through_all_tasks_each_epoch():
    env = _env(eval_size=6)
    batches = [task_batch(env, "eval_in_distribution", batch_size=4, index=k, seed=3) for k in range(3)]
    flat = [t.index for b in batches for t in b]  # 12 positions = 2 epochs of 6 tasks
    assert sorted(flat[:6]) == list(range(6))
    assert sorted(flat[6:]) == list(range(6))
    # epoch e is the seeded permutation randperm(6, seed + e)
    for epoch in (0, 1):
        order = torch.randperm(6, generator=torch.Generator().manual_seed(3 + epoch)).tolist()
        assert flat[6 * epoch : 6 * epoch + 6] == order
    # a batch may straddle two epochs: batch 1 holds positions 4..7 (2 of epoch 0, 2 of epoch 1)
    assert [t.index for t in batches[1]] == flat[4:8]
    assert all(t.split == "eval_in_distribution" for b in batches for t in b)


def test_finite_split_order_depends_on_seed():
    env = _env(eval_size=12)
    orders = {tuple(t.index for t in task_batch(env, "eval_in_distribution", 12, 0, seed)) for seed in range(4)}
    assert len(orders) == 4  # 12! orders: four seeds give four different shuffles


def test_datamodule_starts_at_the_loaded_batch():
    env = _env()
    dm = RolloutDataModule(env, batch_size=3, split="train", seed=5)
    assert dm.state_dict() == {"batches_consumed": 0}
    dm.load_state_dict({"batches_consumed": 4})
    assert dm.state_dict() == {"batches_consumed": 4}
    it = iter(dm.train_dataloader())
    first_ref, second_ref = next(it), next(it)  # fetched ahead: nothing is consumed yet
    assert isinstance(first_ref, TaskBatchRef) and dm.state_dict() == {"batches_consumed": 4}
    index, first = first_ref.take()
    assert index == 4 and first == task_batch(env, "train", 3, 4, 5)  # tasks 12, 13, 14
    assert [t.index for t in first] == [12, 13, 14]
    assert all(isinstance(t, Task) for t in first)
    assert second_ref.take() == (5, task_batch(env, "train", 3, 5, 5))
    assert dm.state_dict() == {"batches_consumed": 6}


def test_datamodule_finite_split_iterates_epochs():
    env = _env(eval_size=6)
    dm = RolloutDataModule(env, batch_size=2, split="eval_in_distribution", seed=0)
    it = iter(dm.train_dataloader())
    epoch = [t.index for _ in range(3) for t in next(it).take()[1]]
    assert sorted(epoch) == list(range(6))
    fresh = iter(RolloutDataModule(env, batch_size=2, split="eval_in_distribution", seed=0).train_dataloader())
    assert [t.index for t in next(fresh).take()[1]] == epoch[:2]  # the same stream from the start


def test_moving_the_cursor_back_replays_batches_even_after_a_prefetch():
    dm = RolloutDataModule(_env(), batch_size=2)
    it = iter(dm.train_dataloader())
    _, a = next(it).take()
    prefetched = next(it)
    dm.load_state_dict({"batches_consumed": 0})  # a rollback between fetch and use
    assert prefetched.take() == (0, a)
