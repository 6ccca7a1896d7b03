"""One thread owns the rollout engine: requests queue for it, each generation runs alone.

Every generation runs with torch's RNG forked (the trainer's stream is untouched) and seeded with
the request's seed (drawn from ``server.seed``'s stream when the request names none), so a request
replays exactly: the same seed, prompt and weights give the same tokens and log-probs as
``torch.manual_seed(seed); engine.generate([prompt] * n, settings)`` called directly.

A streaming request passes a ``TokenStream``: the engine hands it each step's tokens, and it raises
``Cancelled`` once its client has gone, which aborts the generation (nothing is returned, so nothing
is recorded). ``hold()`` pauses the worker between generations (the trainer updates the weights
while it is held) and reports the policy ``version`` generations are tagged with.
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from coevo.core.rollout.engine import Generation, SamplingSettings


class Cancelled(Exception):
    """The client of a streaming generation went away."""


class QueueFull(Exception):
    """More generation requests are waiting than ``server.max_queue``."""


class TokenStream:
    """transformers' streamer interface: the first ``put`` is the prompt batch, then ``[B]`` tokens a step."""

    def __init__(self, on_tokens: Callable[[list[int]], None]):
        self.on_tokens = on_tokens
        self.cancelled = threading.Event()
        self._prompt_seen = False

    def put(self, value: torch.Tensor) -> None:
        if self.cancelled.is_set():
            raise Cancelled()
        if not self._prompt_seen:
            self._prompt_seen = True
            return
        self.on_tokens(value.reshape(-1).tolist())  # [B] this step's token of every row

    def end(self) -> None:
        pass


@dataclass
class Job:
    prompts: list[list[int]]
    sampling: SamplingSettings
    seed: int
    stream: TokenStream | None = None
    future: Future = field(default_factory=Future)
    version: int = -1  # the policy version it was generated with (set by the worker)


class EngineWorker:
    def __init__(self, engine, max_queue: int, seed: int, version: int = 0):
        self.engine = engine
        self.version = version
        self._queue: queue.Queue[Job | None] = queue.Queue(maxsize=max_queue)
        self._seeds = random.Random(seed)
        self._seed_lock = threading.Lock()
        self._idle = threading.Condition()
        self._held = 0
        self._busy = False
        self.aborted = 0  # generations cut short because their client went away
        self._thread = threading.Thread(target=self._run, name="coevo-engine-worker", daemon=True)
        self._thread.start()

    def draw_seed(self) -> int:
        with self._seed_lock:
            return self._seeds.randrange(2**31)

    def submit(self, job: Job) -> Future:
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            raise QueueFull() from None
        return job.future

    @contextmanager
    def hold(self) -> Iterator[None]:
        """No generation starts inside this block; it is entered once the running one has ended."""
        with self._idle:
            self._held += 1
            self._idle.wait_for(lambda: not self._busy)
        try:
            yield
        finally:
            with self._idle:
                self._held -= 1
                self._idle.notify_all()

    def close(self) -> None:
        self._queue.put(None)

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._idle:
                self._idle.wait_for(lambda: self._held == 0)
                self._busy = True
            try:
                if job.stream is not None and job.stream.cancelled.is_set():
                    raise Cancelled()
                job.version = self.version
                job.future.set_result(self._generate(job))
            except BaseException as exc:  # noqa: BLE001 - every failure goes to its request
                self.aborted += isinstance(exc, Cancelled)
                if not job.future.done():
                    job.future.set_exception(exc)
            finally:
                with self._idle:
                    self._busy = False
                    self._idle.notify_all()

    def _generate(self, job: Job) -> list[Generation]:
        device = self.engine.device
        devices = [device] if device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(job.seed)
            if job.stream is not None:
                return self.engine.generate(job.prompts, job.sampling, streamer=job.stream)
            return self.engine.generate(job.prompts, job.sampling)
