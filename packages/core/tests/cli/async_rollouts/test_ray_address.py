"""``rollout.ray.address`` that does not answer: refused naming the key within its timeout, before any
work. In a process of its own: the abandoned connection attempt dies with it."""

import subprocess
import sys
import time

import pytest

pytest.importorskip("ray")

SCRIPT = """
from coevo.core.config import ConfigError
from coevo.core.workers.async_rollouts import connect
from coevo.core.rollout.async_settings import RaySettings
try:
    connect(RaySettings(address="127.0.0.1:9", connect_timeout_s=5.0))  # loopback, nothing listens there
except ConfigError as exc:
    print("REFUSED", exc)
"""


def test_an_address_that_does_not_answer_is_refused_within_the_timeout():
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    refused = [line for line in done.stdout.splitlines() if line.startswith("REFUSED")]
    assert refused, done.stdout + done.stderr
    assert "rollout.ray.address" in refused[0] and "127.0.0.1:9" in refused[0]
    assert time.perf_counter() - start < 30
