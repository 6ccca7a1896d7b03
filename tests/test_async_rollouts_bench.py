"""bench/throughput/async_rollouts.py's summary, worked by hand: the speedup and the overlap ceiling
(sync play + sync update) / max(async play, async update), per seed, then averaged."""

from __future__ import annotations

import pytest

from bench.throughput.async_rollouts import ceiling, steady_rate, summarise


def _run(mode: str, seed: int, steps_per_s: float, play: float, update: float, staleness: int | None = None,
         steady: float | None = None) -> dict:
    return {"mode": mode, "max_staleness": staleness, "seed": seed, "steps_per_s": steps_per_s,
            "steady_steps_per_s": steady,
            "agent_tokens_per_s": 100.0, "heldout_after": 0.5, "heldout_after_greedy": 0.4, "dropped_share": 0.0,
            "phase_seconds": {"play": play, "update": update}}


def test_the_ceiling_is_both_sync_phases_over_the_slower_async_phase():
    sync = _run("sync", 0, 2.0, play=0.3, update=0.2)
    # a perfect overlap takes max(0.4, 0.35) = 0.4 s a step, where the sync step takes 0.3 + 0.2 = 0.5 s
    assert ceiling(sync, _run("async", 0, 1.6, play=0.4, update=0.35, staleness=1)) == pytest.approx(1.25)
    # update-bound: the rollout hides, the one-thread update (0.8 s) is the step
    assert ceiling(sync, _run("async", 0, 1.0, play=0.4, update=0.8, staleness=1)) == pytest.approx(0.625)
    assert ceiling({"mode": "sync"}, _run("async", 0, 1.0, 0.4, 0.8, 1)) is None  # an old record: no phases
    # two workers each play every other batch: a batch every 0.45 / 2 s, so the update (0.3 s) is the step
    two = {**_run("async", 0, 1.0, play=0.45, update=0.3, staleness=2), "workers": 2}
    assert ceiling(sync, two) == pytest.approx(0.5 / 0.3)


def test_the_summary_pairs_each_async_run_with_the_sync_run_of_its_seed():
    runs = [_run("sync", 0, 2.0, 0.3, 0.2), _run("async", 0, 1.5, 0.4, 0.35, staleness=1),
            _run("sync", 1, 1.0, 0.6, 0.4), _run("async", 1, 1.2, 0.5, 1.0, staleness=1)]
    summary = summarise(runs)["async_s1"]
    assert summary["speedup"] == pytest.approx((1.5 / 2.0 + 1.2 / 1.0) / 2)  # 0.975
    assert summary["ceiling"] == pytest.approx((0.5 / 0.4 + 1.0 / 1.0) / 2)  # 1.125
    assert "steady_speedup" not in summary  # no run had a step clock


def test_the_steady_speedup_leaves_out_each_runs_first_step():
    ends = [10.0, 12.0, 12.5, 13.0, 13.5]  # the first step took 2 s (starting the worker), then 0.5 s each
    assert steady_rate(ends) == pytest.approx(4 / 3.5)  # 4 steps from the end of the first to the end of the last
    assert steady_rate(ends[:1]) is None
    runs = [_run("sync", 0, 2.0, 0.3, 0.2, steady=2.2), _run("async", 0, 1.5, 0.4, 0.35, staleness=2, steady=2.75)]
    assert summarise(runs)["async_s2"]["steady_speedup"] == pytest.approx(1.25)
