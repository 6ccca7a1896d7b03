"""Audit metrics for commit-all / random-at-rate / HEIRCOMMIT, and compute units."""

import math

import pytest

from coevo.evoheir.audit import summarize_audit
from coevo.evoheir.compute import ComputeMeter


def test_audit_constructed_case():
    # 6 proposals: true gains -, -, -, +, +, 0; HEIRCOMMIT accepted one harmful and both useful
    gains = [-0.1, -0.2, -0.05, 0.1, 0.2, 0.0]
    commits = [True, False, False, True, True, False]
    out = summarize_audit([{"commit": c, "true_gain": g} for c, g in zip(commits, gains)])
    assert out["commit_all"]["harmful_share"] == pytest.approx(3 / 6)
    assert out["heircommit"] == pytest.approx({"accepted": 3, "harmful_commits": 1, "harmful_share": 1 / 3,
                                               "coverage": 0.5, "useful_retention": 1.0})
    # random at rate 0.5: expected 0.5·3 = 1.5 harmful commits, share 3/6, keeps half the useful ones
    assert out["random_at_rate"]["harmful_commits"] == pytest.approx(1.5)
    assert out["random_at_rate"]["harmful_share"] == pytest.approx(0.5)
    assert out["random_at_rate"]["useful_retention"] == pytest.approx(0.5)
    none = summarize_audit([{"commit": False, "true_gain": -1.0}])
    assert math.isnan(none["heircommit"]["harmful_share"]) and summarize_audit([]) == {}


def test_compute_units_relative_to_single_stream():
    meter = ComputeMeter()
    meter.start_round()
    meter.add("explore", 1000, baseline=True)  # branch 1: what the host alone spends
    meter.add("explore", 1000)  # branch 2
    meter.add("screen", 300)
    meter.add("audit", 5000)  # diagnostics are not counted
    assert meter.round_units() == pytest.approx(230.0)
    meter.start_round()
    meter.add("explore", 1000, baseline=True)
    assert meter.round_units() == pytest.approx(100.0)
    assert meter.total_units() == pytest.approx(100 * 3300 / 2000)
