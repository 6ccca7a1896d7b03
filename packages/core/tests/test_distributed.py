"""Collectives across two real gloo processes: metric reduction, episode stats, sharding, gradient
averaging, broadcast decisions and error sharing (``coevo.core.distributed``)."""

import os
import socket

import pytest
import torch
import torch.distributed as torch_dist
import torch.multiprocessing as mp

from coevo.core import distributed as dist
from coevo.core.agent.loop import summarize
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Task


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _episode(index: int, task_type: str, won: bool, reward: float, turns: int = 2) -> Episode:
    task = Task("boxes", "train", index, task_type, index)
    return Episode(task, 0, [None] * turns, won=won, reward=reward)


def _worker(rank: int, port: int, results) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch_dist.init_process_group("gloo", rank=rank, world_size=2)
    try:
        out = {}
        # rank 0: 3 "near" episodes (2 won); rank 1: 1 "near" (lost) + 2 "far" (1 won)
        mine = ([_episode(0, "near", True, 1.0), _episode(0, "near", True, 1.0), _episode(1, "near", False, 0.0)]
                if rank == 0 else
                [_episode(2, "near", False, 0.0), _episode(3, "far", True, 1.0), _episode(3, "far", False, -0.5)])
        out["summary"] = summarize(dist.gather_episode_stats(mine), ("near", "far"))
        out["reduced"] = dist.reduce_metrics({"loss": 1.0 + rank, "samples": 3.0 + rank, "only_rank0": 5.0}
                                             if rank == 0 else {"loss": 1.0 + rank, "samples": 3.0 + rank})
        out["shard"] = dist.shard(list("abcd"))
        model = torch.nn.Linear(2, 1, bias=False)
        with torch.no_grad():
            model.weight.fill_(float(rank))
        dist.broadcast_parameters(model)
        out["weight"] = model.weight.detach().tolist()
        model.weight.grad = None if rank == 0 else torch.tensor([[2.0, 4.0]])  # rank 0 took no backward
        dist.average_gradients(model.parameters())
        out["grad"] = model.weight.grad.tolist()
        dist.BUCKET_ELEMENTS = 5  # several all-reduce buckets: 4 + 3 + 6 values
        layers = [torch.nn.Parameter(torch.zeros(n)) for n in (4, 3, 6)]
        for p in layers:
            p.grad = torch.full_like(p, 2.0 * rank)  # rank 0: 0, rank 1: 2 -> mean 1
        dist.average_gradients(layers)
        out["bucketed"] = [p.grad.tolist() for p in layers]
        out["decision"] = dist.broadcast_object("commit" if rank == 0 else "rollback")
        try:
            dist.on_main(lambda: (_ for _ in ()).throw(FileExistsError("run_dir: taken")))
        except FileExistsError as exc:
            out["error"] = str(exc)
        try:
            dist.agree({"mu": rank}, "trust estimates")
        except dist.RankMismatchError as exc:
            out["mismatch"] = str(exc)
        results[rank] = out
    finally:
        torch_dist.destroy_process_group()


@pytest.fixture(scope="module")
def two_ranks():
    results = mp.Manager().dict()
    mp.spawn(_worker, args=(_free_port(), results), nprocs=2, join=True)
    return dict(results)


def test_step_metrics_are_those_of_all_ranks_episodes(two_ranks):
    # 6 episodes: 3 won -> success 0.5; rewards 1+1+0+0+1-0.5 = 2.5 -> 2.5/6; near: 2 of 4; far: 1 of 2
    for rank in (0, 1):
        s = two_ranks[rank]["summary"]
        assert s["success"] == 0.5
        assert s["reward"] == pytest.approx(2.5 / 6)
        assert s["success/near"] == 0.5 and s["success/far"] == 0.5
        assert s["turns"] == 2.0


def test_reduce_metrics_sums_counts_and_averages_the_rest(two_ranks):
    # loss: (1 + 2) / 2; samples: 3 + 4; a key only rank 0 logged keeps its value
    for rank in (0, 1):
        assert two_ranks[rank]["reduced"] == {"loss": 1.5, "samples": 7.0, "only_rank0": 5.0}


def test_shard_splits_the_global_batch(two_ranks):
    assert two_ranks[0]["shard"] == ["a", "b"] and two_ranks[1]["shard"] == ["c", "d"]


def test_gradients_averaged_and_parameters_aligned(two_ranks):
    for rank in (0, 1):
        assert two_ranks[rank]["weight"] == [[0.0, 0.0]]  # rank 0's
        assert two_ranks[rank]["grad"] == [[1.0, 2.0]]  # (0 + [2, 4]) / 2


def test_gradient_buckets_each_average_their_share(two_ranks):
    assert two_ranks[1]["bucketed"] == [[1.0] * 4, [1.0] * 3, [1.0] * 6]


def test_decisions_and_errors_come_from_rank_zero(two_ranks):
    for rank in (0, 1):
        assert two_ranks[rank]["decision"] == "commit"
        assert two_ranks[rank]["error"] == "run_dir: taken"
        assert "trust estimates differs between rank 0 and rank 1" in two_ranks[rank]["mismatch"]


def test_shard_refuses_an_uneven_split(monkeypatch):
    monkeypatch.setattr(dist, "world_size", lambda: 2)
    monkeypatch.setattr(dist, "rank", lambda: 0)
    with pytest.raises(ValueError, match="algo.tasks_per_step=3 is not divisible by the 2 training processes"):
        dist.shard([1, 2, 3])
