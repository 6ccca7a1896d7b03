"""One thread owns the rollout engine: requests queue for it, each generation runs alone.

Every generation runs with torch's RNG forked (the trainer's stream is untouched) and seeded with
the request's seed (drawn from ``server.seed``'s stream when the request names none), so a request
replays exactly: the same seed, prompt and weights give the same tokens and log-probs as
``torch.manual_seed(seed); engine.generate([prompt] * n, settings)`` called directly.

Requests that name no seed and do not stream are batched: the ones waiting together with the same
temperature and top_p go to the engine in one call (their rows sampled from one drawn seed, each
cut at its own ``max_tokens``), which is how the hf engine reaches its throughput with many agents
at once (after a batchable request the worker waits ``server.batch_wait_ms`` for another while several
clients have been active lately, so agents a few milliseconds apart share the call; a lone client
never waits); such a turn records the call's seed and ``batch_rows`` (the rows of that call), and
replays only with that batch. A request with a seed always runs alone.

A streaming request passes a ``TokenStream``: the engine hands it each step's tokens, and it raises
``Cancelled`` once its client has gone, which aborts the generation (nothing is returned, so nothing
is recorded). ``hold()`` pauses the worker between generations (the trainer updates the weights
while it is held) and reports the policy ``version`` generations are tagged with.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import torch

from coevo.core.rollout.engine import Generation, SamplingSettings

BUSY_S = 2.0  # the endpoint counts as busy this long after it last had several requests at once
MAX_WAITS = 64  # batchable requests one call waits for, each at most batch_wait_s after the last


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
    batchable: bool = False  # no seed named, not streamed: may share an engine call with others
    batch_rows: int = 0  # rows of the engine call that generated it (set by the worker)


class EngineWorker:
    def __init__(self, engine, max_queue: int, seed: int, version: int = 0, max_batch_rows: int = 64,
                 batch_wait_s: float = 0.0):
        self.engine = engine
        self.version = version
        self._queue: queue.Queue[Job | None] = queue.Queue(maxsize=max_queue)
        self._later: list[Job] = []  # taken from the queue while batching, not batchable with that batch
        self.max_batch_rows = max_batch_rows
        self.batch_wait_s = batch_wait_s
        self.last_concurrent = float("-inf")  # when the endpoint last had several requests at once
        self._threads = torch.get_num_threads()  # the creator's setting: a new thread would get OpenMP's default
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

    def _take(self) -> list[Job] | None:
        """The next engine call's jobs: one job, or batchable ones with the same sampling settings."""
        job = self._later.pop(0) if self._later else self._queue.get()
        if job is None or not job.batchable:
            return None if job is None else [job]
        batch, rows = [job], len(job.prompts)
        key = (job.sampling.temperature, job.sampling.top_p)
        candidates = self._later
        self._later = []
        waits = 0
        while True:
            try:
                if candidates:
                    other = candidates.pop(0)
                elif self.batch_wait_s > 0 and waits < MAX_WAITS and not self._later and self._busy_lately():
                    waits += 1
                    other = self._queue.get(timeout=self.batch_wait_s)
                else:
                    other = self._queue.get_nowait()
            except queue.Empty:
                break
            fits = other is not None and other.batchable and rows + len(other.prompts) <= self.max_batch_rows
            if fits and (other.sampling.temperature, other.sampling.top_p) == key:
                batch.append(other)
                rows += len(other.prompts)
            else:
                self._later.append(other)
                if other is None:
                    break
        return batch

    def _busy_lately(self) -> bool:
        """Several clients lately: worth waiting for a batch-mate (a lone client never waits)."""
        return time.monotonic() - self.last_concurrent < BUSY_S

    def _run(self) -> None:
        torch.set_num_threads(self._threads)
        while True:
            jobs = self._take()
            if jobs is None:
                return
            with self._idle:
                self._idle.wait_for(lambda: self._held == 0)
                self._busy = True
            try:
                self._serve(jobs)
            finally:
                with self._idle:
                    self._busy = False
                    self._idle.notify_all()

    def _serve(self, jobs: list[Job]) -> None:
        try:
            job = jobs[0]
            if job.stream is not None and job.stream.cancelled.is_set():
                raise Cancelled()
            rows = sum(len(j.prompts) for j in jobs)
            for j in jobs:
                j.version, j.batch_rows, j.seed = self.version, rows, job.seed
            if len(jobs) == 1:
                job.future.set_result(self._generate(job))
                return
            longest = max(j.sampling.max_new_tokens for j in jobs)
            merged = Job([p for j in jobs for p in j.prompts], replace(job.sampling, max_new_tokens=longest), job.seed)
            generations = self._generate(merged)
            at = 0
            for j in jobs:
                mine = generations[at: at + len(j.prompts)]
                at += len(j.prompts)
                j.future.set_result([_cut(g, j.sampling.max_new_tokens) for g in mine])
        except BaseException as exc:  # noqa: BLE001 - every failure goes to its requests
            self.aborted += isinstance(exc, Cancelled)
            for j in jobs:
                if not j.future.done():
                    j.future.set_exception(exc)

    def _generate(self, job: Job) -> list[Generation]:
        device = self.engine.device
        devices = [device] if device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(job.seed)
            if job.stream is not None:
                return self.engine.generate(job.prompts, job.sampling, streamer=job.stream)
            return self.engine.generate(job.prompts, job.sampling)


def _cut(generation: Generation, max_tokens: int) -> Generation:
    """``generation`` as if it had been generated with ``max_tokens`` (a longer batch-mate's limit)."""
    if len(generation.token_ids) <= max_tokens:
        return generation
    return Generation(generation.token_ids[:max_tokens], generation.logprobs[:max_tokens], finished=False)
