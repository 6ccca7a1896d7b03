"""EVOHEIR with its policy sharded over two gloo processes (``trainer=fsdp_cpu``): rounds of the grpo
host (explore branches with their own AdamW, screening, recovery from a seeded archive merged into
the shards, the paired confirmation), replicated on both ranks. Each rank holds half of the weights,
rank 0 writes one row per round, and the rounds are the ones a single process plays: the same
recovery losses, the same paired gain, the same decisions and held-out accuracy. And HEIRCOMMIT
around GRPO sharded over two ranks: decisions every 2 steps, applied to every rank's shards."""

import json

from conftest import CONFIG_DIR, FAST_BOXES, FAST_MATH
from test_evoheir_rounds import _seed_archive

from coevo.core.cli import train
from coevo.core.testing.ddp import FSDP, assert_holds_half, metrics_rows, train_ddp, warm_start_parameters

SMALL = ["algo.rounds=2", "algo.host=grpo", "algo.branches=2", "algo.explore_steps=1", "algo.tasks_per_step=2",
         "algo.group_size=2", "algo.screen.pool_size=4", "algo.screen.samples=1", "algo.commit.pool_size=4",
         "algo.commit.samples=1", "algo.heldout_tasks=4", "algo.recovery.steps=2", "eval.before=false",
         "eval.after=false"]
SAME = ("round", "screen", "recipient", "experience", "qualified", "n_repair", "n_keep", "recovery_gain",
        "recovery_loss_first", "recovery_loss_last", "v", "tau", "commit", "unchanged", "heldout", "compute_tokens")


def _rounds(run):
    return [json.loads(line) for line in (run / "rounds.jsonl").read_text().splitlines()]


def test_evoheir_rounds_sharded_over_two_ranks_match_one_process(compose_train, tmp_path):
    seeded = _seed_archive(tmp_path / "seed.json")
    overrides = [*SMALL, f"algo.archive.load={seeded}"]
    cache, run = tmp_path / "cache", tmp_path / "run"
    done = train_ddp(CONFIG_DIR, [*overrides, "trainer.collective_timeout=300"], cache, run, FAST_MATH, trainer=FSDP)
    sharded = _rounds(run)
    assert [r["round"] for r in sharded] == [1, 2]
    assert done.stdout.count("round 1 |") == 1 and done.stdout.count("round 2 |") == 1  # rank 0 prints
    first = sharded[0]
    assert first["qualified"] >= 6 and first["n_repair"] > 0  # the seeded records were distilled
    assert first["recovery_loss_first"] > first["recovery_loss_last"] >= 0
    assert not first["unchanged"]  # the merged deltas changed the shards: the proposal was judged
    rows = metrics_rows(run)
    assert [r["step"] for r in rows] == [1, 2]
    assert_holds_half(rows, warm_start_parameters(cache))
    for row, round_ in zip(rows, sharded):
        assert row["train/commit/decision"] == float(round_["commit"])

    single = tmp_path / "single"
    cfg = compose_train(*overrides, base=FAST_MATH)
    cfg.run_dir = str(single)
    train.run(cfg)
    for mine, theirs in zip(sharded, _rounds(single), strict=True):
        assert {k: mine[k] for k in SAME} == {k: theirs[k] for k in SAME}


def test_heircommit_judges_a_policy_sharded_over_two_ranks(tmp_path):
    # GRPO sharded over 2 ranks with HEIRCOMMIT: the judge plays the proposal and the root (each rank's
    # shards loaded, the replica refreshed) and rank 0's decision is applied to every rank's shards
    cache, run = tmp_path / "cache", tmp_path / "run"
    train_ddp(CONFIG_DIR, ["+callbacks=heircommit", "eval.before=false", "eval.after=false", "algo.tasks_per_step=4",
                           "algo.group_size=4", "algo.optim.lr=1e-3", "trainer.max_steps=4",
                           "callbacks.heircommit.every_n_steps=2", "callbacks.heircommit.pool_size=8",
                           "trainer.collective_timeout=300"],
              cache, run, FAST_BOXES, trainer=FSDP)
    rows = metrics_rows(run)
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert_holds_half(rows, warm_start_parameters(cache))
    decided = [r for r in rows if "train/commit/decision" in r]
    assert [r["step"] for r in decided] == [2, 4]
    assert decided[-1]["train/commit/commits"] + decided[-1]["train/commit/rollbacks"] == 2.0
    for row in decided:
        assert row["train/commit/decision"] == float(row["train/commit/gain"] > row["train/commit/threshold"])
        assert row["train/commit/gain"] * 16 == round(row["train/commit/gain"] * 16)  # 8 items x 2 samples
