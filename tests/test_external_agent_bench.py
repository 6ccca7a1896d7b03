"""bench/serving/external_agent_household.py's reading of a run folder and its summary, worked by hand:
the mean held-out gain over seeds, its standard error (the larger of the spread over seeds and the runs'
own binomial error) and whether the two paths agree within two standard errors."""

from __future__ import annotations

import json

import pytest

from bench.serving.external_agent_household import agreement, gain_summary, run_of


def _run(before: float, after: float, greedy_before: float = 0.4, greedy_after: float = 0.4) -> dict:
    return {"heldout_before": {"sampled": before, "greedy": greedy_before},
            "heldout_after": {"sampled": after, "greedy": greedy_after}}


def test_the_standard_error_is_the_spread_over_seeds_when_it_is_the_larger():
    # gains 0.1 and 0.0: spread = stdev / sqrt(2) = 0.0707 / 1.414 = 0.05
    # binomial, 100 episodes: (0.25 + 0.24) / 100 + (0.25 + 0.25) / 100 = 0.0099 -> sqrt / 2 = 0.04975
    summary = gain_summary([_run(0.5, 0.6, 0.4, 0.5), _run(0.5, 0.5, 0.4, 0.3)], episodes=100)
    assert summary["gains"] == [0.1, 0.0] and summary["mean_gain"] == pytest.approx(0.05)
    assert summary["standard_error"] == pytest.approx(0.05)
    assert summary["greedy_gains"] == [0.1, -0.1] and summary["mean_greedy_gain"] == pytest.approx(0.0)


def test_equal_gains_keep_the_binomial_error():
    # no spread over seeds; each run: 2 x 0.25 / 100 = 0.005, three runs: sqrt(0.015) / 3 = 0.0408
    summary = gain_summary([_run(0.5, 0.5)] * 3, episodes=100)
    assert summary["standard_error"] == pytest.approx(0.0408, abs=1e-4)
    # success 0 or 1 has no binomial error: only the spread would count, and it is 0 here
    assert gain_summary([_run(0.0, 1.0)] * 2, episodes=10)["standard_error"] == 0.0


def test_two_paths_agree_within_two_standard_errors():
    loop, endpoint = {"mean_gain": 0.05, "standard_error": 0.03}, {"mean_gain": 0.13, "standard_error": 0.04}
    # difference 0.08, error hypot(0.03, 0.04) = 0.05: within 0.10
    assert agreement(loop, endpoint) == {"endpoint_minus_loop": 0.08, "standard_error": 0.05,
                                         "within_two_standard_errors": True}
    assert not agreement(loop, {**endpoint, "mean_gain": 0.16})["within_two_standard_errors"]  # 0.11 > 0.10


def test_a_run_folder_gives_its_curve_and_held_out_numbers(tmp_path):
    rows = [{"step": 1, "train/success": 0.5, "train/invalid_rate": 0.25}, {"step": 1, "eval/success": 0.9},
            {"step": 2, "train/success": 0.75, "train/invalid_rate": 0.125}]
    (tmp_path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    for when, sampled in (("before", 0.5), ("after", 0.625)):
        (tmp_path / f"eval_{when}.json").write_text(json.dumps(
            {"success": sampled, "greedy/success": sampled - 0.125, "invalid_rate": 0.5}))
    run = run_of(tmp_path)
    assert run["train_success_per_step"] == [0.5, 0.75] and run["train_invalid_rate_per_step"] == [0.25, 0.125]
    assert run["heldout_before"] == {"sampled": 0.5, "greedy": 0.375}
    assert run["heldout_after"] == {"sampled": 0.625, "greedy": 0.5}
    assert run["invalid_rate_before_after"] == [0.5, 0.5]
