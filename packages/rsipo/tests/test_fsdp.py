"""RSIPO with its policy sharded over two gloo processes (``trainer=fsdp_cpu``): rollouts, replays and
skill writing sample from each rank's full copy, teacher log-probs are computed on it, and the
combined update runs the same number of micro-batches on every rank; each rank holds half the state.
Its baselines (opsd, grpo_opsd, skill_grpo, skill_prompt) train 2 sharded steps the same way."""

import pytest
from conftest import CONFIG_DIR, FAST

from coevo.core.testing.ddp import FSDP, assert_holds_half, metrics_rows, train_ddp, warm_start_parameters

COMMON = ["eval.before=false", "eval.after=false", "trainer.max_steps=2", "trainer.collective_timeout=300"]
RSIPO = ["algo=rsipo", "algo.group_size=4", "algo.tasks_per_step=4", "eval.before=false", "eval.after=false",
         "trainer.max_steps=2", "trainer.collective_timeout=300"]


def test_rsipo_trains_sharded_over_two_ranks(tmp_path):
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")]
    cache = tmp_path / "cache"
    train_ddp(CONFIG_DIR, RSIPO, cache, tmp_path / "run", base, trainer=FSDP)
    rows = metrics_rows(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2]
    assert_holds_half(rows, warm_start_parameters(cache))
    for row in rows:
        assert row["train/budget/student_episodes"] == 16.0  # 4 tasks x 4 episodes over both ranks
        assert "train/gain_mean" in row and "train/opsd_loss" in row
    assert (tmp_path / "run" / "skills.jsonl").is_file()


@pytest.mark.parametrize("baseline", ["opsd", "grpo_opsd", "skill_grpo", "skill_prompt"])
def test_baselines_train_sharded_over_two_ranks(tmp_path, baseline):
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")]
    group = [] if baseline == "skill_prompt" else ["algo.group_size=4"]
    cache = tmp_path / "cache"  # its own (0.3 s to build): the session's holds other tests' warm starts too
    train_ddp(CONFIG_DIR, [f"algo={baseline}", *group, "algo.tasks_per_step=4", *COMMON], cache,
              tmp_path / "run", base, trainer=FSDP)
    rows = metrics_rows(tmp_path / "run")
    if baseline == "skill_prompt":  # evaluation only: one step, every rank plays from its full copy
        assert [r["step"] for r in rows] == [1] and 0.0 <= rows[0]["train/skill_prompt/success"] <= 1.0
        return
    assert [r["step"] for r in rows] == [1, 2]
    assert_holds_half(rows, warm_start_parameters(cache))
