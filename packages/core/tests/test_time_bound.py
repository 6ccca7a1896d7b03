"""``call_bounded``: results come back, a slow call returns the default within its bound (in a
thread too, where ``signal.alarm`` cannot work), the worker is replaced after a timeout, and a
raising call returns the default."""

from __future__ import annotations

import os
import threading
import time

import pytest

from coevo.core import time_bound
from coevo.core.time_bound import call_bounded

T = "coevo.core.testing.slow_calls"


@pytest.fixture(autouse=True)
def fresh_worker():
    time_bound.close()
    call_bounded(f"{T}:echo", (0,), timeout_s=60)  # start it outside the timed parts
    yield
    time_bound.close()


def test_results_round_trip_and_run_in_another_process():
    assert call_bounded(f"{T}:echo", ({"a": [1, 2.5, "x"]},), timeout_s=5) == {"a": [1, 2.5, "x"]}
    assert call_bounded(f"{T}:pid", (), timeout_s=5) != os.getpid()


@pytest.mark.parametrize("target", [f"{T}:sleep_then", f"{T}:spin"])
def test_a_slow_call_returns_the_default_in_time_and_the_next_call_works(target):
    before = dict(time_bound.stats)
    start = time.monotonic()
    args = (30, "late") if target.endswith("sleep_then") else (30,)
    assert call_bounded(target, args, timeout_s=0.5, default="default") == "default"
    assert time.monotonic() - start < 5  # 0.5 s bound + killing the worker (not the 30 s of the call)
    assert time_bound.stats["timeouts"] == before["timeouts"] + 1
    assert call_bounded(f"{T}:echo", ("again",), timeout_s=60) == "again"  # a fresh worker answers


def test_the_bound_holds_outside_the_main_thread():
    out = {}

    def work():
        start = time.monotonic()
        out["value"] = call_bounded(f"{T}:spin", (30,), timeout_s=0.5, default=False)
        out["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(20)
    assert out["value"] is False and out["seconds"] < 5


def test_a_raising_call_returns_the_default_and_keeps_the_worker():
    pid = call_bounded(f"{T}:pid", (), timeout_s=5)
    assert call_bounded(f"{T}:fail", ("no",), timeout_s=5, default="d") == "d"
    assert call_bounded(f"{T}:pid", (), timeout_s=5) == pid


def test_a_bad_target_is_a_clear_error():
    with pytest.raises(ValueError, match="module:function"):
        call_bounded("no_colon", (), timeout_s=1)


def test_overhead_per_call_is_small():
    n = 200
    start = time.perf_counter()
    for i in range(n):
        call_bounded(f"{T}:echo", (i,), timeout_s=5)
    per_call = (time.perf_counter() - start) / n
    assert per_call < 0.01  # a pipe round trip: ~0.1 ms measured; 10 ms leaves room for a loaded CI box
