"""HEIRCOMMIT under ``trainer=ddp_cpu`` (2 gloo processes): GRPO shards its tasks over the ranks, the
judge's decision is made on rank 0 and broadcast, every rank commits or rolls back the same way (the
callback compares a checksum of the weights across ranks after each decision and stops otherwise),
and rank 0 writes one metrics row per step. EVOHEIR's rounds run replicated on both ranks, with rank
0's decisions."""

import json

from conftest import CONFIG_DIR, FAST_BOXES, FAST_MATH

from coevo.core.testing.ddp import metrics_rows, train_ddp


def test_heircommit_decisions_are_shared_by_both_ranks(tmp_path):
    train_ddp(CONFIG_DIR, ["+callbacks=heircommit", "eval.before=false", "eval.after=false", "algo.tasks_per_step=4",
                           "algo.group_size=4", "algo.optim.lr=1e-3", "trainer.max_steps=4",
                           "callbacks.heircommit.every_n_steps=2", "callbacks.heircommit.pool_size=8"],
              tmp_path / "cache", tmp_path / "run", FAST_BOXES)
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    decided = [r for r in rows if "train/commit/decision" in r]
    assert [r["step"] for r in decided] == [2, 4]
    last = decided[-1]
    assert last["train/commit/commits"] + last["train/commit/rollbacks"] == 2.0
    for row in decided:
        assert row["train/commit/decision"] == float(row["train/commit/gain"] > row["train/commit/threshold"])
        assert row["train/commit/gain"] * 16 == round(row["train/commit/gain"] * 16)  # 8 items x 2 samples


def test_evoheir_round_replicated_on_both_ranks(tmp_path):
    # one round of the grpo host: both ranks play it, rank 0 decides and writes rounds.jsonl once
    small = ["algo.rounds=1", "algo.host=grpo", "algo.branches=2", "algo.explore_steps=1", "algo.tasks_per_step=2",
             "algo.group_size=2", "algo.screen.pool_size=4", "algo.screen.samples=1", "algo.commit.pool_size=4",
             "algo.commit.samples=1", "algo.heldout_tasks=4", "algo.recovery.steps=2", "eval.before=false",
             "eval.after=false"]
    done = train_ddp(CONFIG_DIR, small, tmp_path / "cache", tmp_path / "run", FAST_MATH)
    run = tmp_path / "run"
    rounds = [json.loads(line) for line in (run / "rounds.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rounds] == [1]
    assert done.stdout.count("round 1 |") == 1  # printed by rank 0 only
    assert (run / "evoheir_summary.json").is_file() and (run / "archive.json").is_file()
    assert metrics_rows(run)[0]["train/commit/decision"] == float(rounds[0]["commit"])
