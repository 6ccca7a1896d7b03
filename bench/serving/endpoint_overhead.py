"""Endpoint overhead: tokens/s of the same generation through coevo-serve's HTTP endpoint vs the engine called directly.

The policy is the tiny model built locally (``--hidden`` wide; no download). Workload: ``--requests``
chat prompts, ``--max-tokens`` tokens each, temperature 1, no seed (so concurrent requests may share
an engine call, as they do in training). Three ways, each timed ``--repeats`` times (best kept):

(interleaved: each repeat runs every way once)

- direct, one at a time: ``engine.generate([prompt], ...)`` per prompt (what 1 client gets at best);
- direct, batched: ``engine.generate`` on groups of ``--clients`` prompts (what 16 clients get at best);
- through the endpoint: the ``openai`` client, 1 client sending the prompts one after the other,
  then ``--clients`` clients at once, each its share; every client is a process of its own (as
  independent agents are: a client's own Python work does not queue behind the others' lock).

``--server process`` (the default) runs the endpoint as users do: ``coevo-serve`` in a process of
its own (``model.path`` = the same tiny model saved to a temporary folder, ``cpu_threads`` =
``--threads``), so the clients' HTTP work runs beside it, not under its interpreter lock;
``--server thread`` runs it in a background thread of this process, as the trainer does.

Tokens/s counts generated tokens; the ratio is direct tokens/s over endpoint tokens/s (time through
the endpoint per token, relative to the engine: the issue's goal is <= 1.15 at 16 clients).

    .venv/bin/python -m bench.serving.endpoint_overhead            # writes bench/serving/endpoint_overhead.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from bench.records import commit_of


def build(hidden: int, layers: int):
    import torch

    from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
    from coevo.core.policy.tokenizer import train_bpe_tokenizer
    from coevo.core.testing.fast_configs import boxes_corpus

    tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=400)
    torch.manual_seed(0)
    config = TinyModelConfig(hidden_size=hidden, num_layers=layers, num_heads=4, num_kv_heads=2,
                             intermediate_size=hidden * 2)
    return build_tiny_model(config, tokenizer).eval(), tokenizer


def messages(k: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Your task is to: open the box {k % 7}." + " look" * (k % 5)}]


def direct(engine, prompts, max_tokens: int, batch: int) -> tuple[float, int]:
    from coevo.core.rollout.engine import SamplingSettings

    settings = SamplingSettings(temperature=1.0, top_p=1.0, max_new_tokens=max_tokens)
    start, tokens = time.perf_counter(), 0
    for i in range(0, len(prompts), batch):
        tokens += sum(len(g.token_ids) for g in engine.generate(prompts[i:i + batch], settings))
    return time.perf_counter() - start, tokens


_CLIENTS: dict[str, object] = {}  # a client process's openai client per base URL (made once)


def client_share(url: str, c: int, n: int, clients: int, max_tokens: int, start_at: float) -> tuple[int, list[int], float]:
    """Client ``c``'s share of the ``n`` requests, sent one after another from ``start_at`` (wall clock):
    (completion tokens, each reply's engine-call rows, the wall-clock time it finished)."""
    import openai

    api = _CLIENTS.get(url) or _CLIENTS.setdefault(url, openai.OpenAI(base_url=url, api_key="unused",
                                                                      max_retries=0, timeout=600))
    time.sleep(max(0.0, start_at - time.time()))
    tokens, rows = 0, []
    for k in range(c, n, clients):
        reply = api.chat.completions.create(model="coevo-policy", messages=messages(k), max_tokens=max_tokens)
        tokens += reply.usage.completion_tokens
        rows.append(reply.model_extra["coevo"]["batch_rows"])  # how many requests shared its engine call
    return tokens, rows, time.time()


def through_endpoint(pool: ProcessPoolExecutor, url: str, n: int, max_tokens: int, clients: int,
                     batch_rows: list[int] | None = None, lead_s: float = 1.0) -> tuple[float, int]:
    """(seconds, generated tokens) of ``n`` requests from ``clients`` client processes of ``pool`` at once
    (each agent its own process, as independent agents are; the replies' engine-call rows go to ``batch_rows``)."""
    start_at = time.time() + lead_s  # every client process is waiting by then (timing starts there)
    shares = [pool.submit(client_share, url, c, n, clients, max_tokens, start_at) for c in range(clients)]
    results = [share.result() for share in shares]
    if batch_rows is not None:
        batch_rows.extend(r for _, rows, _ in results for r in rows)
    return max(end for _, _, end in results) - start_at, sum(tokens for tokens, _, _ in results)


@contextmanager
def served_in_process(model, tokenizer, threads: int, batch_wait_ms: float) -> Iterator[str]:
    """``coevo-serve`` in its own process on ``model`` (saved to a temporary folder); yields its base URL."""
    import openai

    with tempfile.TemporaryDirectory(prefix="endpoint-overhead-") as folder:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        with socket.socket() as probe:  # a free port (released just before the server binds it)
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [sys.executable, "-m", "coevo.core.cli.serve", f"model.path={folder}", f"server.port={port}",
                   "server.seed=1", f"server.batch_wait_ms={batch_wait_ms}", f"cpu_threads={threads}", "device=cpu"]
        server = subprocess.Popen(command, env={**os.environ, "OMP_NUM_THREADS": str(threads)},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}/v1"
        try:
            api = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=2)
            deadline = time.monotonic() + 120
            while True:
                try:
                    api.models.list()
                    break
                except openai.APIConnectionError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit(f"coevo-serve did not start: {(server.stderr.read() or '')[-2000:]}") from None
                    time.sleep(0.2)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


@contextmanager
def served_in_thread(engine, tokenizer, batch_wait_ms: float) -> Iterator[str]:
    """The endpoint in a background thread of this process (as the trainer runs it); yields its base URL."""
    from coevo.core.serve.background import BackgroundServer
    from coevo.core.serve.settings import ServerSettings

    with BackgroundServer(engine, tokenizer, ServerSettings(port=0, seed=1, batch_wait_ms=batch_wait_ms)) as server:
        yield server.url


def best(runs: list[tuple[float, int]]) -> dict:
    rates = [tokens / seconds for seconds, tokens in runs]
    return {"tokens_per_s": round(max(rates), 1), "runs_tokens_per_s": [round(r, 1) for r in rates],
            "tokens": [tokens for _, tokens in runs]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-wait-ms", type=float, default=10.0)  # server.batch_wait_ms
    parser.add_argument("--server", choices=("process", "thread"), default="process",
                        help="coevo-serve in its own process (as users run it) or a thread of this one")
    parser.add_argument("--out", default=str(Path(__file__).with_name("endpoint_overhead.json")))
    args = parser.parse_args()
    import torch  # here, not at the top: the client processes never load it

    torch.set_num_threads(args.threads)

    from coevo.core.policy.conversation import render_prompt
    from coevo.core.rollout.hf_engine import HFEngine

    model, tokenizer = build(args.hidden, args.layers)
    engine = HFEngine(None, model, tokenizer)
    prompts = [render_prompt(tokenizer, messages(k)) for k in range(args.requests)]
    torch.manual_seed(1)
    direct(engine, prompts[:4], 8, 4)  # warm-up
    runs: dict[str, list] = {f"{way}_{c}": [] for way in ("direct", "endpoint") for c in (1, args.clients)}
    loads = [os.getloadavg()[0]]
    server = (served_in_process(model, tokenizer, args.threads, args.batch_wait_ms) if args.server == "process"
              else served_in_thread(engine, tokenizer, args.batch_wait_ms))
    rows: dict[int, list[int]] = {1: [], args.clients: []}
    pool = ProcessPoolExecutor(args.clients, mp_context=multiprocessing.get_context("spawn"))
    with server as url, pool:
        through_endpoint(pool, url, args.clients, 8, args.clients, lead_s=30.0)  # warm-up: every client process started
        for _ in range(args.repeats):  # interleaved, so that a change of load hits every way alike
            for c in (1, args.clients):
                runs[f"direct_{c}"].append(direct(engine, prompts, args.max_tokens, c))
                runs[f"endpoint_{c}"].append(through_endpoint(pool, url, args.requests, args.max_tokens, c, rows[c]))
            loads.append(os.getloadavg()[0])
    results = {way: best(r) for way, r in runs.items()}
    ratio = {f"{c}_clients": round(results[f"direct_{c}"]["tokens_per_s"] / results[f"endpoint_{c}"]["tokens_per_s"], 3)
             for c in (1, args.clients)}
    commit = commit_of()
    record = {
        "command": "python -m bench.serving.endpoint_overhead " + " ".join(sys.argv[1:]),
        "commit": commit, "date": date.today().isoformat(), "seeds": {"model": 0, "sampling": 1, "server": 1},
        "threads": args.threads, "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "torch": torch.__version__,
        "workload": {"requests": args.requests, "max_tokens": args.max_tokens, "clients": args.clients,
                     "model": f"tiny {args.hidden}x{args.layers}", "repeats": args.repeats, "temperature": 1.0,
                     "batch_wait_ms": args.batch_wait_ms, "server": args.server},
        "load_average_1min": [round(x, 2) for x in loads],  # the machine's load before and after each repeat
        "results": results,
        "ratio_direct_over_endpoint_time_per_token": ratio,
        "endpoint_batch_rows_mean": {f"{c}_clients": round(sum(r) / len(r), 2) for c, r in rows.items() if r},
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps({"results": {k: v["tokens_per_s"] for k, v in results.items()}, "ratio": ratio}, indent=2))


if __name__ == "__main__":
    main()
