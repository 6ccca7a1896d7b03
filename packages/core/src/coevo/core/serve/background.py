"""The endpoint in a background thread of this process (uvicorn on a socket bound up front).

``coevo-serve`` runs it in the foreground; the trainer (``agent.driver=openai_client``) and the
tests start it beside their own work. Binding the socket before uvicorn starts makes ``port=0``
(any free port) usable: the port is known before the first request.
"""

from __future__ import annotations

import socket
import threading
import time

import uvicorn

from coevo.core.serve.app import Endpoint
from coevo.core.serve.sessions import SessionStore
from coevo.core.serve.settings import ServerSettings
from coevo.core.serve.worker import EngineWorker

SWEEP_S = 1.0  # how often sessions past their reward timeout are dropped


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: a response written in two parts (headers, body) is not held
    # back by Nagle's algorithm until the client's delayed ACK (~40 ms a request on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(f"server.host={host} server.port={port}: cannot listen there ({exc.strerror}); "
                      f"choose another server.port (0: any free port)") from None
    sock.listen(128)
    return sock


def context_limit(model, settings: ServerSettings) -> int:
    """``server.max_context_tokens``, else the model's ``max_position_embeddings``."""
    if settings.max_context_tokens is not None:
        return settings.max_context_tokens
    config = getattr(model, "config", None)
    return int(getattr(config, "max_position_embeddings", None) or 2048)


class BackgroundServer:
    """The endpoint over ``engine`` serving from a thread; ``url`` is its ``/v1`` base URL."""

    def __init__(self, engine, tokenizer, settings: ServerSettings, version: int = 0, board=None,
                 fixed_sampling=None):
        self.settings = settings
        self.worker = EngineWorker(engine, settings.max_queue, settings.seed, version, settings.max_batch_rows,
                                   settings.batch_wait_ms / 1000)
        store = SessionStore(settings.reward_timeout_s, settings.max_sessions, settings.max_turns_per_session)
        self.endpoint = Endpoint(self.worker, tokenizer, settings, context_limit(engine.model, settings), store,
                                 board, fixed_sampling)
        self.store = store
        self._socket = bind(settings.host, settings.port)
        self.port = self._socket.getsockname()[1]
        config = uvicorn.Config(self.endpoint.app, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=2, limit_concurrency=max(64, settings.max_queue * 2))
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="coevo-endpoint", daemon=True)
        self._sweeping = threading.Event()
        self._sweeper = threading.Thread(target=self._sweep, name="coevo-session-sweep", daemon=True)

    @property
    def url(self) -> str:
        host = self.settings.host if self.settings.host not in ("0.0.0.0", "::") else "127.0.0.1"
        return f"http://{host}:{self.port}/v1"

    def start(self, wait_s: float = 30.0) -> BackgroundServer:
        self._thread.start()
        self._sweeper.start()
        deadline = time.monotonic() + wait_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the endpoint did not start on {self.url}")
            time.sleep(0.01)
        return self

    def _sweep(self) -> None:
        while not self._sweeping.wait(SWEEP_S):
            self.store.expire()

    def stop(self) -> None:
        self._sweeping.set()
        self._server.should_exit = True
        self._thread.join(10)
        self.worker.close()
        self._socket.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
