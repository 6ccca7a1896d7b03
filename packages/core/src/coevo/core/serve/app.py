"""The FastAPI app: ``/v1/models``, ``/v1/chat/completions``, ``/v1/completions``, sessions and rewards.

Handlers never touch the model: they check the request (``requests``), queue a job for the engine's
thread (``worker``) and turn its tokens into OpenAI's response shapes (``completion``). Streams send
each token's text as it is sampled (held back where it could begin a stop string); a stream whose
client goes away cancels its generation and records nothing. Every response carries coevo's token
trace beside OpenAI's fields (``coevo``: prompt token ids, each choice's token ids, policy version,
seed) so a token-in/token-out client needs no re-tokenisation.

Routes beyond OpenAI's: ``POST /v1/sessions/{id}/reward`` (``{"reward": float, "task_id": str?,
"won": bool?, "invalid": int?}``, ``invalid`` the episode's invalid replies, at most its turns),
``GET /v1/sessions/{id}`` (its trace), ``GET /v1/sessions`` (counters).
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from coevo.core.serve.completion import Completion, complete, token_strings, visible_text
from coevo.core.serve.requests import SESSION_ID, RequestError, SamplingRequest, parse_chat, parse_completion
from coevo.core.serve.sessions import SessionStore, TurnRecord
from coevo.core.serve.settings import ServerSettings
from coevo.core.serve.worker import Cancelled, EngineWorker, Job, QueueFull, TokenStream

POLL_S = 0.05  # how often a waiting stream checks whether its client is still there


def error_response(error: RequestError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status)


async def read_json(request: Request, limit: int):
    """The request body decoded, at most ``limit`` bytes read."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestError(f"the request body is larger than server.max_request_bytes={limit}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise RequestError(f"the request body is larger than server.max_request_bytes={limit}")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RequestError(f"the request body is not valid JSON ({str(exc)[:120]})") from None


class Endpoint:
    """The app and what its handlers share: tokenizer, engine worker, session store, settings."""

    def __init__(self, worker: EngineWorker, tokenizer, settings: ServerSettings, context_limit: int,
                 store: SessionStore | None = None, board=None, fixed_sampling=None):
        self.worker = worker
        self.board = board  # training: the TaskBoard whose jobs external agents play (task_board.py)
        # training: the temperature / top_p every request must sample at (the trainer's log-probs use them)
        self.fixed_sampling = fixed_sampling
        self.in_flight = 0  # generation requests being answered (the worker batches when several are)
        self.tokenizer = tokenizer
        self.settings = settings
        self.context_limit = context_limit
        self.store = store or SessionStore(settings.reward_timeout_s, settings.max_sessions,
                                           settings.max_turns_per_session)
        self.app = self._build()

    # -- routes -----------------------------------------------------------------------------
    def _build(self) -> FastAPI:
        app = FastAPI(title="coevo policy endpoint", docs_url=None, redoc_url=None, openapi_url=None)

        @app.exception_handler(RequestError)
        async def refused(request: Request, exc: RequestError):
            return error_response(exc)

        @app.exception_handler(404)
        async def not_found(request: Request, exc):
            return error_response(RequestError(f"no route {request.method} {request.url.path[:200]}", None, 404,
                                               "not_found"))

        @app.exception_handler(405)
        async def wrong_method(request: Request, exc):
            return error_response(RequestError(f"{request.method} is not allowed on {request.url.path[:200]}",
                                               None, 405, "method_not_allowed"))

        if self.board is not None:
            from coevo.core.serve.task_board import add_task_routes

            add_task_routes(app, self.board)

        @app.get("/v1/models")
        async def models():
            return {"object": "list", "data": [{"id": self.settings.model_name, "object": "model",
                                                "created": 0, "owned_by": "coevo"}]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            body = await read_json(request, self.settings.max_request_bytes)
            parsed = parse_chat(body, self.settings, self.settings.model_name, self.tokenizer,
                                request.headers.get("x-session-id"), self.context_limit)
            return await self._answer(request, parsed, chat=True)

        @app.post("/v1/completions")
        async def completions(request: Request):
            body = await read_json(request, self.settings.max_request_bytes)
            parsed = parse_completion(body, self.settings, self.settings.model_name, self.tokenizer,
                                      request.headers.get("x-session-id"), self.context_limit)
            return await self._answer(request, parsed, chat=False)

        @app.post("/v1/sessions/{session_id}/reward")
        async def reward(session_id: str, request: Request):
            _check_session_id(session_id)
            body = await read_json(request, 65536)
            value, task_id, won, invalid = _reward_fields(body)
            session = self.store.reward(session_id, value, task_id, won, invalid)
            return {"session_id": session_id, "reward": value, "turns": len(session.turns)}

        @app.get("/v1/sessions/{session_id}")
        async def trace(session_id: str):
            _check_session_id(session_id)
            session = self.store.get(session_id)
            if session is None:
                raise RequestError(f"no session '{session_id}'", None, 404, "session_not_found")
            return {"session_id": session_id, "reward": session.reward, "task_id": session.task_id,
                    "turns": [vars(t) for t in session.turns]}

        @app.get("/v1/sessions")
        async def counters():
            return self.store.stats()

        return app

    # -- generation -------------------------------------------------------------------------
    async def _answer(self, request: Request, parsed: SamplingRequest, chat: bool):
        self._check_fixed_sampling(parsed)
        if parsed.session_id is not None:
            self.store.admit(parsed.session_id)
        seed = parsed.seed if parsed.seed is not None else self.worker.draw_seed()
        job = Job([parsed.prompt_ids] * parsed.n, parsed.sampling, seed,
                  batchable=parsed.seed is None and not parsed.stream)
        meta = {"id": ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex[:24], "created": int(time.time()),
                "model": self.settings.model_name}
        if parsed.stream:
            return StreamingResponse(self._stream(request, parsed, job, chat, meta), media_type="text/event-stream")
        self.in_flight += 1
        if self.in_flight > 1:
            self.worker.last_concurrent = time.monotonic()
        try:
            generations = await self._run(job)
        finally:
            self.in_flight -= 1
        completions = [complete(g, parsed.stop, self.tokenizer) for g in generations]
        if parsed.session_id is not None:
            if await request.is_disconnected():
                self.store.disconnected()
            else:
                self._record(parsed, job, completions)
        return self._full_response(parsed, job, completions, chat, meta)

    def _check_fixed_sampling(self, parsed: SamplingRequest) -> None:
        """Training: a request samples at the trainer's temperature and top_p (absent: those are used)."""
        fixed = self.fixed_sampling
        if fixed is None:
            return
        if parsed.temperature_given is None:
            parsed.sampling.temperature, parsed.sampling.top_p = fixed.temperature, fixed.top_p
        elif (parsed.sampling.temperature, parsed.sampling.top_p) != (fixed.temperature, fixed.top_p):
            raise RequestError(f"this endpoint trains the policy at temperature={fixed.temperature:g}, "
                               f"top_p={fixed.top_p:g} (agent.sampling.*); send those or leave them out",
                               "temperature")
        if parsed.session_id is None:
            raise RequestError("this endpoint trains on sessions: send the session id of the task being "
                               "played (header X-Session-Id or field 'user')", "user")

    async def _run(self, job: Job):
        try:
            future = self.worker.submit(job)
        except QueueFull:
            raise RequestError(f"the server is busy (server.max_queue={self.settings.max_queue} requests waiting)",
                               None, 429, "queue_full", "server_error") from None
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.settings.request_timeout_s)
        except asyncio.TimeoutError:
            if job.stream is not None:
                job.stream.cancelled.set()
            raise RequestError(f"no answer within server.request_timeout_s={self.settings.request_timeout_s:g}",
                               None, 504, "timeout", "server_error") from None

    def _record(self, parsed: SamplingRequest, job: Job, completions: list[Completion]) -> None:
        self.store.record(parsed.session_id, [
            TurnRecord(list(parsed.prompt_ids), c.token_ids, c.logprobs, job.version, job.seed, c.text,
                       c.finish_reason, 0, i, messages=parsed.messages, batch_rows=job.batch_rows)
            for i, c in enumerate(completions)])

    def _usage(self, parsed: SamplingRequest, completions: list[Completion]) -> dict:
        generated = sum(len(c.token_ids) for c in completions)
        return {"prompt_tokens": len(parsed.prompt_ids), "completion_tokens": generated,
                "total_tokens": len(parsed.prompt_ids) + generated}

    def _trace(self, parsed: SamplingRequest, job: Job, completions: list[Completion]) -> dict:
        return {"session_id": parsed.session_id, "policy_version": job.version, "seed": job.seed,
                "batch_rows": job.batch_rows,
                "prompt_token_ids": parsed.prompt_ids, "completion_token_ids": [c.token_ids for c in completions]}

    def _chat_logprobs(self, c: Completion) -> dict:
        tokens = token_strings(self.tokenizer, c.token_ids)
        return {"content": [{"token": s, "logprob": lp, "bytes": list(s.encode("utf-8")), "top_logprobs": []}
                            for s, lp in zip(tokens, c.logprobs)]}

    def _text_logprobs(self, c: Completion, start: int = 0) -> dict:
        tokens = token_strings(self.tokenizer, c.token_ids)
        offsets, at = [], start
        for s in tokens:
            offsets.append(at)
            at += len(s)
        return {"tokens": tokens, "token_logprobs": list(c.logprobs), "top_logprobs": None, "text_offset": offsets}

    def _full_response(self, parsed, job, completions, chat: bool, meta: dict) -> dict:
        choices = []
        for i, c in enumerate(completions):
            if chat:
                choices.append({"index": i, "message": {"role": "assistant", "content": c.text},
                                "logprobs": self._chat_logprobs(c) if parsed.logprobs else None,
                                "finish_reason": c.finish_reason})
            else:
                choices.append({"index": i, "text": c.text,
                                "logprobs": self._text_logprobs(c) if parsed.logprobs else None,
                                "finish_reason": c.finish_reason})
        return {**meta, "object": "chat.completion" if chat else "text_completion", "choices": choices,
                "usage": self._usage(parsed, completions), "system_fingerprint": f"coevo-v{job.version}",
                "coevo": self._trace(parsed, job, completions)}

    async def _stream(self, request: Request, parsed: SamplingRequest, job: Job, chat: bool,
                      meta: dict) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        arrived: asyncio.Queue = asyncio.Queue()
        job.stream = TokenStream(lambda tokens: loop.call_soon_threadsafe(arrived.put_nowait, tokens))
        kind = "chat.completion.chunk" if chat else "text_completion"
        eos = self.tokenizer.eos_token_id

        def chunk(index: int, text: str | None, finish: str | None = None, logprobs=None, role=False) -> str:
            if chat:
                delta = {"role": "assistant", "content": ""} if role else ({} if text is None else {"content": text})
                choice = {"index": index, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
            else:
                choice = {"index": index, "text": text or "", "logprobs": logprobs, "finish_reason": finish}
            return "data: " + json.dumps({**meta, "object": kind, "choices": [choice]}) + "\n\n"

        completed = False
        try:
            future = self.worker.submit(job)
        except QueueFull:
            error = RequestError(f"the server is busy (server.max_queue={self.settings.max_queue})", None, 429)
            yield "data: " + json.dumps(error.body()) + "\n\n"
            return
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(arrived.put_nowait, None))
        try:
            if chat:
                for i in range(parsed.n):
                    yield chunk(i, None, role=True)
            ids: list[list[int]] = [[] for _ in range(parsed.n)]
            ended = [False] * parsed.n
            sent = [""] * parsed.n
            deadline = loop.time() + self.settings.request_timeout_s
            while True:
                try:
                    tokens = await asyncio.wait_for(arrived.get(), POLL_S)
                except asyncio.TimeoutError:
                    if await request.is_disconnected():
                        return  # finally: cancelled, counted
                    if loop.time() > deadline:
                        timeout = RequestError(f"no answer within server.request_timeout_s="
                                               f"{self.settings.request_timeout_s:g}", None, 504, "timeout", "server_error")
                        yield "data: " + json.dumps(timeout.body()) + "\n\n"
                        return
                    continue
                if tokens is None:
                    break
                for i, token in enumerate(tokens[: parsed.n]):
                    if ended[i]:
                        continue
                    ids[i].append(token)
                    ended[i] = token == eos
                    text = visible_text(ids[i], parsed.stop, self.tokenizer)
                    if len(text) > len(sent[i]) and text.startswith(sent[i]):
                        yield chunk(i, text[len(sent[i]):])
                        sent[i] = text
            try:
                generations = future.result()
            except Cancelled:
                return
            except Exception as exc:  # noqa: BLE001 - the engine failed: the client is told, nothing recorded
                yield "data: " + json.dumps(RequestError(f"generation failed: {str(exc)[:200]}", None, 500,
                                                         kind="server_error").body()) + "\n\n"
                return
            completions = [complete(g, parsed.stop, self.tokenizer) for g in generations]
            for i, c in enumerate(completions):
                rest = c.text[len(sent[i]):] if c.text.startswith(sent[i]) else ""
                if chat:
                    logprobs = self._chat_logprobs(c) if parsed.logprobs else None
                else:
                    logprobs = self._text_logprobs(c) if parsed.logprobs else None
                if rest:
                    yield chunk(i, rest)
                yield chunk(i, None if chat else "", c.finish_reason, logprobs)
            if parsed.include_usage:
                yield "data: " + json.dumps({**meta, "object": kind, "choices": [],
                                             "usage": self._usage(parsed, completions),
                                             "coevo": self._trace(parsed, job, completions)}) + "\n\n"
            yield "data: [DONE]\n\n"
            # reached only once the last chunk was handed to the server: the turn was delivered whole
            completed = True
            if parsed.session_id is not None:
                self._record(parsed, job, completions)
        finally:
            if not completed:
                job.stream.cancelled.set()  # aborts a generation still running
                if parsed.session_id is not None:
                    self.store.disconnected()


def _check_session_id(session_id: str) -> None:
    if not SESSION_ID.match(session_id):
        raise RequestError("a session id is 1-128 characters of letters, digits and ._:@-", None, 400)


def _reward_fields(body) -> tuple[float, str | None, bool | None, int | None]:
    if not isinstance(body, dict):
        raise RequestError("the reward body must be a JSON object {\"reward\": <number>}")
    value = body.get("reward")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RequestError("'reward' must be a finite number", "reward")
    task_id = body.get("task_id")
    if task_id is not None and (not isinstance(task_id, str) or not 0 < len(task_id) <= 256):
        raise RequestError("'task_id' must be a string of 1-256 characters", "task_id")
    won = body.get("won")
    if won is not None and not isinstance(won, bool):
        raise RequestError("'won' must be true or false", "won")
    invalid = body.get("invalid")
    if invalid is not None and (isinstance(invalid, bool) or not isinstance(invalid, int) or invalid < 0):
        raise RequestError("'invalid' must be a whole number of invalid replies, 0 or more", "invalid")
    return float(value), task_id, won, invalid
