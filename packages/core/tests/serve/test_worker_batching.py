"""How the engine worker gathers batchable requests into one call: it waits ``batch_wait_s`` for each
further request while several clients are active, and not once the batch holds every request the
endpoint is answering (nobody is left to wait for)."""

from __future__ import annotations

import queue
import time

import pytest

from coevo.core.rollout.engine import SamplingSettings
from coevo.core.serve.worker import EngineWorker, Job


class CountedQueue(queue.Queue):
    """A queue that counts the waits made on it: ``get`` with a timeout while it is empty."""

    def __init__(self):
        super().__init__()
        self.timed_waits = 0

    def get(self, block=True, timeout=None):
        if block and timeout is not None and self.empty():
            self.timed_waits += 1
        return super().get(block, timeout)


@pytest.fixture
def worker():
    """A worker whose thread has stopped: the test calls ``_take`` itself on a counted queue."""
    engine_worker = EngineWorker(engine=None, max_queue=64, seed=0, max_batch_rows=64, batch_wait_s=0.01)
    engine_worker.close()
    engine_worker._thread.join(10)
    engine_worker._queue = CountedQueue()
    engine_worker.last_concurrent = time.monotonic()  # several clients lately: batching waits
    return engine_worker


def _jobs(worker: EngineWorker, count: int, temperature: float = 1.0) -> list[Job]:
    jobs = [Job([[1, 2, 3]], SamplingSettings(temperature=temperature), 0, batchable=True) for _ in range(count)]
    for job in jobs:
        worker.submit(job)
    return jobs


@pytest.mark.parametrize("in_flight", [1, 3, 16])
def test_a_batch_holding_every_request_in_flight_starts_without_waiting(worker, in_flight):
    worker.requests_in_flight = lambda: in_flight
    jobs = _jobs(worker, in_flight)
    assert worker._take() == jobs
    assert worker._queue.timed_waits == 0


def test_the_worker_waits_for_requests_in_flight_not_yet_queued(worker):
    worker.requests_in_flight = lambda: 4  # two more are being parsed by the endpoint
    jobs = _jobs(worker, 2)
    assert worker._take() == jobs
    assert worker._queue.timed_waits == 1  # one wait of batch_wait_s, then the call goes with what came


def test_without_a_count_the_worker_waits_as_before(worker):
    assert worker.requests_in_flight is None  # a worker without an endpoint
    jobs = _jobs(worker, 3)
    assert worker._take() == jobs
    assert worker._queue.timed_waits == 1


def test_a_lone_client_never_waits(worker):
    worker.last_concurrent = float("-inf")
    jobs = _jobs(worker, 2)
    assert worker._take() == jobs
    assert worker._queue.timed_waits == 0


def test_requests_of_other_sampling_settings_wait_for_the_next_call(worker):
    worker.requests_in_flight = lambda: 3
    first, second = _jobs(worker, 1), _jobs(worker, 1, temperature=0.5)
    third = _jobs(worker, 1)
    assert worker._take() == first + third
    assert worker._take() == second
