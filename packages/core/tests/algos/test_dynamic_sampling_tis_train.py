"""``algo.dynamic_sampling`` and ``algo.off_policy.tis_cap`` end to end: short GRPO runs on boxes."""

from __future__ import annotations

import json
import math

import pytest
import torch
from safetensors.torch import load_file

from coevo.core.algos.dynamic_sampling import REFILL_INDEX_BASE
from coevo.core.algos.grpo import GRPO
from coevo.core.cli import train
from coevo.core.testing.fast_configs import FAST_BOXES, compose_fast, repository_configs

FAST = [*FAST_BOXES, "algo.tasks_per_step=2", "algo.group_size=4", "algo.optim.lr=1e-3"]
# a flat choice softmax (per-token mean scores at temperature 5): the untrained policy's groups differ
FLAT = ["agent.choice_score=mean", "agent.choice_temperature=5.0"]


# one update per batch: TIS weights from the update's own forward; two: stored when old log-probs
# are recomputed (max_steps counts optimizer steps: 2 training steps at most either way). With the
# untrained policy's peaked choices (flat=False) every group ties: each step plays its refill round.
@pytest.mark.parametrize(("updates", "flat"), [(1, True), (2, True), (1, False)])
def test_training_steps_with_dynamic_sampling_and_tis(tmp_path, monkeypatch, updates, flat):
    played = []
    rollout = GRPO.rollout

    def spy(self, tasks, group_size=None, seed=None, sync=True):
        played.append(([t.index for t in tasks], seed, sync))
        return rollout(self, tasks, group_size, seed, sync)

    monkeypatch.setattr(GRPO, "rollout", spy)
    cfg = compose_fast(repository_configs(__file__),
                       [f"trainer.max_steps={2 * updates}", "warmstart.enabled=false", "eval.before=false",
                        "eval.after=false", "algo=grpo", "algo.dynamic_sampling.enabled=true",
                        "algo.dynamic_sampling.max_rounds=2", "algo.off_policy.tis_cap=2.0",
                        f"algo.updates_per_batch={updates}", *(FLAT if flat else [])],
                       tmp_path / "cache", tmp_path / "run", FAST)
    train.run(cfg)
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert rows and all("train/dynamic_sampling_rounds" in r for r in rows)
    for row in rows:
        assert row["train/dynamic_sampling_rounds"] in (1.0, 2.0)
        assert 0.0 <= row["train/informative_groups"] <= 2.0
        assert 0.0 < row["train/tis_ess"] <= 1.0 + 1e-9 and 0.0 <= row["train/tis_clipped_fraction"] <= 1.0
        assert math.isfinite(row["train/loss"])
    if flat:
        assert any(r["train/samples"] > 0 and r["train/tis_ess"] < 1.0 for r in rows)  # weights did vary
    else:  # nothing informative: 2 rounds a step, trained on nothing (the step still advances)
        assert [(r["train/dynamic_sampling_rounds"], r["train/informative_groups"]) for r in rows] == [(2, 0)] * 2
    # round 1 of each step: the stream's tasks with the step's seed; refills: their own tasks and seeds
    firsts = [p for p in played if p[1] is None]
    assert [p[0] for p in firsts] == [[0, 1], [2, 3]][: len(rows)] and all(p[2] for p in firsts)
    assert len(played) == sum(r["train/dynamic_sampling_rounds"] for r in rows)
    # the rollout budget counts every round's episodes, refills included
    assert sum(r["train/budget/rollouts"] for r in rows) == sum(len(p[0]) for p in played) * cfg.algo.group_size
    refills = [p for p in played if p[1] is not None]
    assert all(min(p[0]) >= REFILL_INDEX_BASE and not p[2] for p in refills)
    assert flat or [p[0] for p in refills] == [[REFILL_INDEX_BASE, REFILL_INDEX_BASE + 1],
                                               [REFILL_INDEX_BASE + 2, REFILL_INDEX_BASE + 3]]


def test_resume_replays_the_refills(tmp_path):
    # groups of 2 under the flat softmax: some tie, some do not (here 3, 3 and 1 rounds: refills
    # on steps 1 and 2, the resumed one included)
    options = ["warmstart.enabled=false", "eval.before=false", "eval.after=false", "algo=grpo",
               "algo.group_size=2", "algo.dynamic_sampling.enabled=true", "algo.off_policy.tis_cap=2.0",
               "trainer.checkpoint_every=1", *FLAT]

    def run(name: str, steps: int, *extra: str):
        train.run(compose_fast(repository_configs(__file__), [f"trainer.max_steps={steps}", *options, *extra],
                               tmp_path / "cache", tmp_path / name, FAST))

    run("straight", 3)
    run("split", 1)
    run("split", 3, f"resume={tmp_path / 'split'}")
    drop = ("train/rollout_seconds", "train/update_seconds")

    def rows(name: str) -> list[dict]:
        lines = (tmp_path / name / "metrics.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k not in drop} for line in lines]

    straight = rows("straight")
    assert [r["step"] for r in straight] == [1, 2, 3] and rows("split") == straight
    assert any(r["train/dynamic_sampling_rounds"] > 1 for r in straight)  # refills were replayed
    a = load_file(str(tmp_path / "straight" / "policy" / "model.safetensors"))
    b = load_file(str(tmp_path / "split" / "policy" / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
