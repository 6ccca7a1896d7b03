"""``timed``: the fuzz tests' time bound stretches with the machine's load, and still catches a slow call."""

from __future__ import annotations

import time

import pytest

from coevo.core.testing import hostile


def _nap() -> str:
    time.sleep(0.15)
    return "done"


@pytest.mark.parametrize(("load", "cores", "factor"), [(0.3, 2, 1.0), (2.0, 2, 1.0), (6.0, 2, 3.0), (9.0, 4, 2.25)])
def test_the_load_factor_is_the_load_per_core_and_at_least_one(monkeypatch, load, cores, factor):
    monkeypatch.setattr(hostile.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(hostile.os, "cpu_count", lambda: cores)
    assert hostile.load_factor() == factor


def test_a_call_over_the_limit_fails_on_an_idle_machine_and_passes_on_a_loaded_one(monkeypatch):
    monkeypatch.setattr(hostile.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(hostile.os, "getloadavg", lambda: (1.0, 0.0, 0.0))  # idle: 0.1 s allowed
    with pytest.raises(AssertionError, match=r"_nap took \d+\.\d\d s \(limit 0\.10 s\)"):
        hostile.timed(_nap, limit=0.1)
    monkeypatch.setattr(hostile.os, "getloadavg", lambda: (8.0, 0.0, 0.0))  # 4 per core: 0.4 s allowed
    assert hostile.timed(_nap, limit=0.1) == "done"
