"""Short seeded EVOHEIR runs end to end through ``coevo-train`` on the tiny model (env=math)."""

import json
import math

import pytest
import torch
from conftest import FAST_MATH

from coevo.core.cli import train
from coevo.core.config import ConfigError
from coevo.evoheir.archive import Archive
from coevo.evoheir.experience import Record
from coevo.evoheir.math_env import generate_problem, task_seed
from coevo.evoheir.sequential import SequentialTest
from coevo.evoheir.threshold import decision_delta

SMALL = ["algo.branches=2", "algo.explore_steps=1", "algo.tasks_per_step=2", "algo.group_size=2",
         "algo.screen.pool_size=4", "algo.screen.samples=1", "algo.commit.pool_size=4", "algo.commit.samples=1",
         "algo.heldout_tasks=4", "algo.recovery.steps=2"]


def _seed_archive(path, n=6):
    """``n`` qualified records from the generator (train indices 7,000,000+: no pool uses them)."""
    archive = Archive(cap=256)
    records = []
    for i in range(n):
        kind = ("arithmetic", "linear_equation")[i % 2]
        p = generate_problem(kind, "train", task_seed("train", 7_000_000 + i, 0), 1)
        records.append(Record(p.text, p.answer, f"The answer is \\boxed{{{p.answer}}}.", kind, 0, "seed"))
    archive.add(records)
    assert len(archive) == n
    return archive.save(path)


def _rows(run):
    return [json.loads(line) for line in (run / "rounds.jsonl").read_text().splitlines()]


def test_grpo_host_rounds_with_recovery_and_audit(compose_train, tmp_path, capfd):
    seeded = _seed_archive(tmp_path / "seed.json")
    cfg = compose_train("algo.host=grpo", "algo.rounds=2", *SMALL, f"algo.archive.load={seeded}", "algo.audit=true",
                        "algo.audit_settings.pool_size=4", "algo.recovery.teacher_warmup_examples=4",
                        "algo.scout.warmup_epochs=1", base=FAST_MATH)
    result = train.run(cfg)
    # the grpo host has no Scout: the pre-round warm-up teaches only the repair teacher's prompt
    assert "pre-round warm-up: 4 examples (0 Scout replies + 0 solver answers + 4 read from a reference)" in \
        " ".join(capfd.readouterr().out.split())
    run = tmp_path / "run"
    rows = _rows(run)
    assert [r["round"] for r in rows] == [1, 2] and result["steps"] == 2  # one Lightning step per round
    first = rows[0]
    # the 6 seeded records qualify; the recipient attempts each once, failed → repair, won → keep
    assert first["qualified"] >= 6
    assert first["n_repair"] + first["n_keep"] == first["qualified"]
    assert first["n_repair"] > 0 and first["recovery_loss_first"] > first["recovery_loss_last"] >= 0
    # the repair teacher's greedy success on D_repair's questions shown with their references
    assert 0.0 <= first["teacher_success"] <= 1.0
    assert all(math.isnan(r["teacher_success"]) == (r["n_repair"] == 0) for r in rows)
    for row in rows:
        assert set(row["screen"]) == {"root", "b1", "b2"} and row["screen"]["root"] == 0.0
        assert row["recipient"] == "root" or row["screen"][row["recipient"]] > 0
        assert row["commit"] == (not row["unchanged"] and row["v"] > row["tau"] == 0.0)
        assert row["units"] > 100.0  # K=2 branches plus screening/recovery/confirmation
        assert 0.0 <= row["heldout"] <= 1.0
        assert row["true_gain"] is not None or row["unchanged"]
    saved = json.loads((run / "archive.json").read_text())
    assert len(saved["records"]) >= 6 and not (run / "archive.json.tmp").exists()
    summary = json.loads((run / "evoheir_summary.json").read_text())
    assert set(summary["audit"]) >= {"commit_all", "random_at_rate", "heircommit"} or all(r["unchanged"] for r in rows)
    assert (run / "rounds.png").stat().st_size > 0 and any((run / "tb").iterdir())
    # training.png's "training rollouts" panel reads train/success and train/reward: the explore
    # rollouts' won share (one answer per episode: reward is 1 when won, minus invalid penalties)
    logged = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    per_round = [m for m in logged if "train/round" in m]
    assert [m["train/round"] for m in per_round] == [1.0, 2.0]
    for m in per_round:
        assert 0.0 <= m["train/success"] <= 1.0 and m["train/reward"] <= m["train/success"]
    ckpt = torch.load(run / "checkpoints" / "last.ckpt", weights_only=False)
    assert ckpt["global_step"] == 2


def test_the_sequential_judge_decides_each_round_in_batches(compose_train, tmp_path):
    seeded = _seed_archive(tmp_path / "seed.json")
    cfg = compose_train("algo.host=grpo", "algo.rounds=2", *SMALL, f"algo.archive.load={seeded}", "algo.commit.mode=certified",
                        "algo.commit.bound=sequential", "algo.commit.max_items=24", "algo.commit.batch_items=8",
                        "algo.audit=true", "algo.audit_settings.pool_size=4", base=FAST_MATH)
    train.run(cfg)
    judged = [r for r in _rows(tmp_path / "run") if not r["unchanged"]]
    assert judged  # recovery distils the seeded records into the recipient: there is a proposal to judge
    assert [r["decision"] for r in judged] == list(range(1, len(judged) + 1))  # rounds with nothing to judge spend no δ
    for row in judged:
        diffs = row["confirm_diffs"]
        assert len(diffs) == row["confirm_items"] and row["confirm_items"] in (8, 16, 24)
        assert math.isnan(row["tau"]) and row["v"] == pytest.approx(sum(diffs) / len(diffs))
        # the verdict is the one the e-processes reach on these differences, in this order
        replay = SequentialTest(decision_delta(0.1, row["decision"]), 24, 0.3)
        replay.observe(diffs)
        assert row["commit"] == (replay.verdict == "commit") and replay.played == 0 < replay.items <= len(diffs)


def test_r_zero_host_survives_a_scout_that_writes_garbage(compose_train, tmp_path):
    # a barely warmed-up Scout (8 examples, 1 epoch) writes mostly unparsable or invalid problems:
    # they are counted and skipped; nothing qualifies for Recovery, and Confirm still decides
    cfg = compose_train("algo.rounds=1", *SMALL, "algo.branches=1", "algo.scout.attempts=4",
                        "algo.scout.consensus_answers=2", "algo.scout.warmup_examples=8",
                        "algo.scout.warmup_epochs=1", "algo.scout.max_new_tokens=24", base=FAST_MATH)
    train.run(cfg)
    (row,) = _rows(tmp_path / "run")
    stats = row["host_stats"]
    assert stats["attempts"] == 4
    assert stats["valid"] + sum(stats["rejected"].values()) == 4
    assert row["commit"] in (True, False) and not math.isnan(row["tau"])


def test_evoheir_needs_math_and_a_certifiable_pool(compose_train):
    with pytest.raises(ConfigError, match="use at least"):
        train.run(compose_train("algo.commit.mode=certified", "algo.commit.pool_size=4", base=FAST_MATH))
    with pytest.raises(ConfigError, match="pools overlap: 'training'"):
        train.run(compose_train("algo.screen.start=5", *SMALL, base=FAST_MATH))


def test_evoheir_plays_synchronously_and_says_why(compose_train, tmp_path):
    # its screening and confirmation judge the round's own weights: refused before any work (no Ray needed)
    with pytest.raises(ConfigError, match="'rollout.async.enabled': algo=evoheir plays synchronously: EVOHEIR's "
                                          "screening and confirmation judge the weights of this very round"):
        train.run(compose_train("rollout.async.enabled=true", *SMALL, base=FAST_MATH))
    assert not (tmp_path / "run").exists()


def test_resume_continues_with_fresh_pools_and_the_archive(compose_train, tmp_path):
    seeded = _seed_archive(tmp_path / "seed.json", n=2)
    common = ["algo.host=grpo", "algo.rounds=2", *SMALL, "algo.branches=1", "algo.heldout_tasks=0",
              f"algo.archive.load={seeded}", "eval.before=false", "eval.after=false"]
    train.run(compose_train(*common, "trainer.max_steps=1", base=FAST_MATH))  # interrupted after round 1
    run = tmp_path / "run"
    train.run(compose_train(*common, f"resume={run}", "trainer.max_steps=2", base=FAST_MATH))
    rows = _rows(run)
    assert [r["round"] for r in rows] == [1, 2]
    ckpt = torch.load(run / "checkpoints" / "last.ckpt", weights_only=False)
    state = ckpt["evoheir"]
    assert state["round"] == 2 and len(state["archive"]) >= 2
    # round 2 drew the next screening/confirmation items, not round 1's again
    assert state["cursor"]["screening"] == 2_000_000 + 2 * 4
    assert state["cursor"]["confirmation"] == 3_000_000 + 2 * 4 or rows[1]["unchanged"] or rows[0]["unchanged"]
    # a fresh run started in the same folder (overwrite=true) writes its own rounds, not after the earlier run's
    train.run(compose_train(*common, "trainer.max_steps=1", "overwrite=true", base=FAST_MATH))
    assert [r["round"] for r in _rows(run)] == [1]
