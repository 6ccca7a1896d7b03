"""DAPO's dynamic sampling (``algo.dynamic_sampling``): tied groups dropped, refilled deterministically.

A stub ``play`` gives every task a scripted group of returns (tied or not, by task index), so the
rounds, the refill tasks and the kept groups can be counted by hand.
"""

from __future__ import annotations

from coevo.core.agent.types import Episode
from coevo.core.algos.dynamic_sampling import (
    REFILL_INDEX_BASE,
    DynamicSamplingSettings,
    informative,
    refill_seed,
    refill_tasks,
    sample_informative_groups,
)
from coevo.core.algos.grpo import GRPOConfig
from coevo.core.data.rollout_datamodule import task_batch
from coevo.core.env.protocol import Task
from coevo.core.seeds import step_seed
from coevo.core.testing.boxes_env import BoxesEnv
from coevo.core.testing.gloo import run_on_ranks

G = 2  # episodes per group


def _tied(task: Task) -> bool:
    """The script: stream tasks 0 and 2 tie; refill tasks tie when their index is a multiple of 4."""
    offset = task.index - REFILL_INDEX_BASE if task.index >= REFILL_INDEX_BASE else task.index
    return offset % 4 == 0 if task.index >= REFILL_INDEX_BASE else task.index in (0, 2)


def _play_stub(calls: list):
    def play(tasks: list[Task], round_: int) -> list[Episode]:
        calls.append((round_, [t.index for t in tasks]))
        return [Episode(task, group_id=i, reward=1.0 if _tied(task) else float(k))
                for i, task in enumerate(tasks) for k in range(G)]
    return play


def _refill(batch_index: int, max_rounds: int, block: int = 4):
    env = BoxesEnv()
    return lambda round_, count: refill_tasks(env, "train", block, count, batch_index, round_, max_rounds, seed=0)


def test_settings_default_off():
    assert GRPOConfig().dynamic_sampling == DynamicSamplingSettings(enabled=False, max_rounds=3)


def test_informative_drops_tied_groups():
    task = Task("boxes", "train", 0, "t", 0)
    episodes = [Episode(task, 0, reward=r) for r in (0.5, 0.5, 0.0, 1.0, 0.9, 0.9 + 1e-9)]
    # groups of 2: (0.5, 0.5) tied, (0, 1) informative, (0.9, 0.9 + 1e-9) tied within TIE_TOLERANCE
    assert informative(episodes, 2) == [episodes[2:4]]


def test_refills_until_the_target_then_stops():
    calls = []
    stream = task_batch(BoxesEnv(), "train", 4, 3, 0)  # step 3: tasks 12..15, none tied
    # round 1: 4 informative groups of 4 wanted, all found: no refill
    result = sample_informative_groups(stream, _play_stub(calls), _refill(3, 3), 4, G, 3)
    assert (result.rounds, result.informative_groups, len(calls)) == (1, 4, 1)


def test_dropped_groups_are_refilled_deterministically_and_max_rounds_is_respected():
    # step 0, tasks 0..3: groups 0 and 2 tie -> 2 informative, 2 needed.
    # round 2 (block 0 of refills, max_rounds 3: 2 blocks a step): base + 0, base + 1 -> base + 0 ties
    #   (offset 0 % 4 == 0): 1 found, 1 needed.
    # round 3 (block 1): base + 4 -> ties. max_rounds reached: 3 groups, trained on as they are.
    calls = []
    stream = task_batch(BoxesEnv(), "train", 4, 0, 0)
    result = sample_informative_groups(stream, _play_stub(calls), _refill(0, 3), 4, G, 3)
    b = REFILL_INDEX_BASE
    assert calls == [(1, [0, 1, 2, 3]), (2, [b, b + 1]), (3, [b + 4])]
    assert (result.rounds, result.informative_groups) == (3, 3)
    kept = [ep.task.index for ep in result.episodes[::G]]
    assert kept == [1, 3, b + 1]
    assert [ep.group_id for ep in result.episodes] == [0, 0, 1, 1, 2, 2]  # distinct across rounds
    assert len(result.first_round) == 4 * G  # round 1's episodes, for the step's rollout metrics
    # one round allowed: no refill at all
    calls.clear()
    result = sample_informative_groups(stream, _play_stub(calls), _refill(0, 1), 4, G, 1)
    assert (result.rounds, result.informative_groups, len(calls)) == (1, 2, 1)
    # the same step again: the same refill tasks (a resumed run replays them)
    again = []
    sample_informative_groups(stream, _play_stub(again), _refill(0, 3), 4, G, 3)
    assert again == [(1, [0, 1, 2, 3]), (2, [b, b + 1]), (3, [b + 4])]


def test_refill_tasks_are_disjoint_from_the_stream_and_from_each_other():
    env = BoxesEnv()
    seen = set()
    for step in range(5):
        for round_ in (2, 3):
            indices = [t.index for t in refill_tasks(env, "train", 4, 4, step, round_, 3, seed=0)]
            # unbounded split: block (step, round) = base + (2 step + round - 2) * 4 + [0, 4)
            assert indices == [REFILL_INDEX_BASE + (2 * step + round_ - 2) * 4 + i for i in range(4)]
            assert not seen & set(indices)
            seen |= set(indices)
    assert min(seen) >= REFILL_INDEX_BASE  # the stream's tasks are 0, 1, 2, …
    # a finite split: a second seeded shuffle of it, deterministic
    first = refill_tasks(env, "eval_in_distribution", 4, 3, 2, 2, 3, seed=5)
    assert first == refill_tasks(env, "eval_in_distribution", 4, 3, 2, 2, 3, seed=5)
    assert first == task_batch(env, "eval_in_distribution", 4, 2 * 2, 5 + 0x5A17)[:3]


def test_refill_seeds_are_distinct_from_the_stream_seeds():
    stream = {step_seed(seed, step) for seed in (0, 1) for step in range(200)}
    refills = {refill_seed(seed, step, r) for seed in (0, 1) for step in range(200) for r in (2, 3, 4)}
    assert len(refills) == 2 * 200 * 3 and not stream & refills
    assert refill_seed(0, 7, 2) == refill_seed(0, 7, 2)


def _ranked(rank: int) -> tuple:
    # 2 ranks, target 4: rank 0 plays stream tasks 0, 1 (0 ties), rank 1 plays 2, 3 (2 ties) -> 2 found.
    # round 2: need 2 -> 2 refill tasks, one a rank: rank 0 base + 0 (ties), rank 1 base + 1 -> 3.
    # round 3: need 1 -> 2 tasks (a multiple of the world): rank 0 base + 4 (ties), rank 1 base + 5;
    # rank 1 keeps it: 4 in all. Both ranks agree on 3 rounds.
    calls = []
    stream = task_batch(BoxesEnv(), "train", 4, 0, 0)[2 * rank : 2 * rank + 2]
    result = sample_informative_groups(stream, _play_stub(calls), _refill(0, 3), 4, G, 3)
    return calls, result.rounds, result.informative_groups, [ep.task.index for ep in result.episodes[::G]]


def test_ranks_play_their_shares_and_agree_on_the_rounds(tmp_path):
    b = REFILL_INDEX_BASE
    out = run_on_ranks(_ranked, tmp_path)
    assert out[0] == ([(1, [0, 1]), (2, [b]), (3, [b + 4])], 3, 4, [1])
    assert out[1] == ([(1, [2, 3]), (2, [b + 1]), (3, [b + 5])], 3, 4, [3, b + 1, b + 5])


def test_an_algorithm_with_its_own_training_step_refuses_it():
    from coevo.core.algos.grpo import GRPO

    class OwnStep(GRPO):
        def training_step(self, batch, batch_idx):
            return None

    config = GRPOConfig(dynamic_sampling=DynamicSamplingSettings(enabled=True))
    try:
        OwnStep(config, context=None)
    except ValueError as error:
        assert "OwnStep has its own training step" in str(error)
    else:
        raise AssertionError("OwnStep accepted algo.dynamic_sampling.enabled=true")
