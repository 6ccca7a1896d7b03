"""Commit/rollback with the policy sharded over two gloo processes (``trainer=fsdp_cpu``), and
sharded (distributed) checkpoints (``trainer.fsdp.state_dict_type=sharded``, the preset's).

Each rank snapshots its own shards of the weights and of the AdamW state and restores them in place.
Scripted decisions every 2 steps (commit, roll back, commit) over 6 steps end with the same weights
as 4 steps without the excursion, bit for bit, and steps 5-6 replay steps 3-4. A run stopped at
step 3 (its root, taken at step 2, in the checkpoint: every rank's shards) and resumed to step 6
ends the same way: metrics and exported weights (exact resume over two ranks, from a checkpoint
folder of both ranks' shard files whose ``meta.pt`` carries the callback's root and the module's RNG).

The 4-step run's checkpoint (2 ranks) resumed on 1 process (``trainer.devices=1``) restores the
same weights and AdamW moments and step counts (torch.distributed.checkpoint reshards them): saved
again on that process they equal the 2-rank checkpoint's, and one more step trains from there. The
commit root of the stopped run (each rank's shards in its own file of the checkpoint folder) is
refused on 1 process, naming the 2 to resume with. That 1-process checkpoint, resumed on 2 ranks again,
gives back the same state, and training goes on there.
"""

import shutil

import pytest
import torch
from conftest import CONFIG_DIR, FAST
from safetensors.torch import load_file
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

from coevo.core.testing.ddp import FSDP, assert_holds_half, metrics_rows, train_ddp, warm_start_parameters

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) path of trainer=fsdp")

BASE = [o for o in FAST if not o.startswith("algo.tasks_per_step")] + [
    "algo.tasks_per_step=4", "algo.skip_zero_advantage=false", "eval.before=false", "eval.after=false"]
SCRIPTED = ["+callbacks.scripted.name=scripted_commits", "+callbacks.scripted.script=[true,false,true]"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The 2-rank runs (each ~25 s here): with the excursion, straight, and stopped at 3 then resumed."""
    tmp = tmp_path_factory.mktemp("fsdp_rollback")
    cache = tmp / "cache"
    train_ddp(CONFIG_DIR, [*SCRIPTED, "trainer.max_steps=6"], cache, tmp / "excursion", BASE, trainer=FSDP)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=4"], cache, tmp / "straight", BASE, trainer=FSDP)
    train_ddp(CONFIG_DIR, [*SCRIPTED, "trainer.max_steps=3"], cache, tmp / "split", BASE, trainer=FSDP)
    train_ddp(CONFIG_DIR, ["trainer.max_steps=6", f"resume={tmp / 'split'}"], cache, tmp / "unused", BASE,
              trainer=FSDP)
    return tmp


def _weights(run):
    return load_file(str(run / "policy" / "model.safetensors"))


def _without_timing_and_decisions(rows):
    return [{k: v for k, v in r.items() if k != "step" and not k.startswith("train/commit")} for r in rows]


def test_sharded_rollback_is_bit_exact_and_survives_resume(runs):
    excursion, straight = _weights(runs / "excursion"), _weights(runs / "straight")
    assert excursion.keys() == straight.keys() and all(torch.equal(excursion[k], straight[k]) for k in straight)
    rows = metrics_rows(runs / "excursion")
    assert [r.get("train/commit/decision") for r in rows] == [None, 1.0, None, 0.0, None, 1.0]
    plain = _without_timing_and_decisions(rows)
    straight_rows = metrics_rows(runs / "straight")
    assert plain[:2] + plain[4:] == _without_timing_and_decisions(straight_rows)
    assert all(r["train/samples"] > 0 for r in straight_rows)
    assert_holds_half(straight_rows, warm_start_parameters(runs / "cache"))  # each rank held half of the state

    resumed = _weights(runs / "split")
    assert all(torch.equal(resumed[k], excursion[k]) for k in excursion)
    assert metrics_rows(runs / "split") == rows

    # the checkpoint is sharded: a folder with each rank's shard file and its shards of the commit root
    # (rank<r>.pt), the rest in rank 0's meta.pt; no process gathered the others' shards
    last = runs / "split" / "checkpoints" / "last.ckpt"
    assert sorted(p.name for p in last.iterdir()) == [".metadata", "__0_0.distcp", "__1_0.distcp", "meta.pt",
                                                      "rank0.pt", "rank1.pt"]
    meta = torch.load(last / "meta.pt", weights_only=False)
    assert meta["global_step"] == 6 and meta["RolloutDataModule"] == {"batches_consumed": 4}  # 2 rolled back
    assert len(meta["coevo_rng"]["torch_per_rank"]) == 2
    root = meta["callbacks"]["ScriptedCommits"]["root"]
    assert root["shards_in_rank_files"] == 2 and root["weights"] == {} and "shards_per_rank" not in root
    held = [sum(t.numel() for t in torch.load(last / f"rank{r}.pt", weights_only=True)["ScriptedCommits"]
                ["weights"].values()) for r in (0, 1)]
    assert 0 < held[0] and 0 < held[1] and sum(held) == warm_start_parameters(runs / "cache")
    assert sorted(p.name for p in last.parent.iterdir()) == ["last.ckpt", "step6.ckpt"]  # no temporaries


def _full(checkpoint, out):
    """A sharded checkpoint folder as one plain state dict (every rank's shards joined)."""
    dcp_to_torch_save(checkpoint, out)
    return torch.load(out, weights_only=False)


def _assert_equal(a, b, where=""):
    if isinstance(a, torch.Tensor):
        assert torch.equal(a, b), where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_equal(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_equal(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def test_a_sharded_checkpoint_resumes_on_another_number_of_processes(runs, tmp_path):
    one = tmp_path / "one"
    shutil.copytree(runs / "straight", one)
    saved = _full(one / "checkpoints" / "last.ckpt", tmp_path / "two_ranks.pt")
    # 2 ranks -> 1 process, no step more: the restored state, saved again by that process
    train_ddp(CONFIG_DIR, [f"resume={one}", "trainer.devices=1", "trainer.max_steps=4"], runs / "cache", one, BASE,
              trainer=FSDP)  # (a moved run folder: it still writes checkpoints/last.ckpt)
    again = _full(one / "checkpoints" / "last.ckpt", tmp_path / "one_rank.pt")
    assert sorted(p.name for p in (one / "checkpoints" / "last.ckpt").iterdir()) == [".metadata", "__0_0.distcp",
                                                                                   "meta.pt"]  # one rank's shards
    _assert_equal(saved["model"], again["model"], "model")
    _assert_equal(saved["optimizer_0"], again["optimizer_0"], "optimizer_0")  # AdamW's moments and step counts
    moments = [s["exp_avg_sq"] for s in saved["optimizer_0"]["state"].values()]
    assert moments and all(float(m.abs().sum()) > 0 for m in moments)  # real moments were compared
    assert all(torch.equal(t, _weights(one)[k]) for k, t in _weights(runs / "straight").items())
    meta = torch.load(one / "checkpoints" / "last.ckpt" / "meta.pt", weights_only=False)
    assert meta["global_step"] == 4 and meta["RolloutDataModule"] == {"batches_consumed": 4}

    train_ddp(CONFIG_DIR, [f"resume={one}", "trainer.devices=1", "trainer.max_steps=5"], runs / "cache", one, BASE,
              trainer=FSDP)
    rows = metrics_rows(one)
    assert [r["step"] for r in rows] == [1, 2, 3, 4, 5] and rows[:4] == metrics_rows(runs / "straight")
    assert rows[4]["train/samples"] > 0


def test_a_one_process_checkpoint_resumes_on_two(runs, tmp_path):
    # 2 ranks -> 1 process -> 2 ranks, no step more: the state comes back whole, and training goes on
    moved = tmp_path / "moved"
    shutil.copytree(runs / "straight", moved)
    saved = _full(moved / "checkpoints" / "last.ckpt", tmp_path / "two_ranks.pt")
    train_ddp(CONFIG_DIR, [f"resume={moved}", "trainer.devices=1", "trainer.max_steps=4"], runs / "cache", moved, BASE,
              trainer=FSDP)
    train_ddp(CONFIG_DIR, [f"resume={moved}", "trainer.devices=2", "trainer.max_steps=4"], runs / "cache", moved, BASE,
              trainer=FSDP)
    last = moved / "checkpoints" / "last.ckpt"
    assert {"__0_0.distcp", "__1_0.distcp"} <= {p.name for p in last.iterdir()}  # two ranks' shards again
    back = _full(last, tmp_path / "back.pt")
    _assert_equal(saved["model"], back["model"], "model")
    _assert_equal(saved["optimizer_0"], back["optimizer_0"], "optimizer_0")
    assert len(torch.load(last / "meta.pt", weights_only=False)["coevo_rng"]["torch_per_rank"]) == 2

    train_ddp(CONFIG_DIR, [f"resume={moved}", "trainer.devices=2", "trainer.max_steps=5"], runs / "cache", moved, BASE,
              trainer=FSDP)
    rows = metrics_rows(moved)
    assert [r["step"] for r in rows] == [1, 2, 3, 4, 5] and rows[:4] == metrics_rows(runs / "straight")
    assert rows[4]["train/samples"] > 0


def test_a_commit_root_of_two_ranks_refuses_another_number_of_processes(runs, tmp_path):
    split = tmp_path / "split"
    shutil.copytree(runs / "split", split)
    with pytest.raises(AssertionError, match=r"commit/rollback root was saved by 2 processes holding shards of the "
                                             r"policy, this run has 1; resume with trainer.devices x trainer.num_nodes "
                                             r"= 2"):
        train_ddp(CONFIG_DIR, [f"resume={split}", "trainer.devices=1", "trainer.max_steps=7"], runs / "cache", split,
                  BASE, trainer=FSDP)
