"""Endpoint overhead: tokens/s of the same generation through coevo-serve's HTTP endpoint vs the engine called directly.

The policy is the tiny model built locally (``--hidden`` wide; no download). Workload: ``--requests``
chat prompts, ``--max-tokens`` tokens each, temperature 1, no seed (so concurrent requests may share
an engine call, as they do in training). Three ways, each timed ``--repeats`` times (best kept):

(interleaved: each repeat runs every way once)

- direct, one at a time: ``engine.generate([prompt], ...)`` per prompt (what 1 client gets at best);
- direct, batched: ``engine.generate`` on groups of ``--clients`` prompts (what 16 clients get at best);
- through the endpoint: the ``openai`` client, 1 client sending the prompts one after the other,
  then ``--clients`` clients at once (threads), each its share.

Tokens/s counts generated tokens; the ratio is direct tokens/s over endpoint tokens/s (time through
the endpoint per token, relative to the engine: the issue's goal is <= 1.15 at 16 clients).

    .venv/bin/python -m bench.serving.endpoint_overhead            # writes bench/serving/endpoint_overhead.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import threading
import time
from datetime import date
from pathlib import Path

import torch

from bench.records import commit_of


def build(hidden: int, layers: int):
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


def through_endpoint(url: str, n: int, max_tokens: int, clients: int) -> tuple[float, int]:
    import openai

    counts = [0] * clients
    barrier = threading.Barrier(clients + 1)

    def client(c: int) -> None:
        api = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=600)
        barrier.wait()
        for k in range(c, n, clients):
            reply = api.chat.completions.create(model="coevo-policy", messages=messages(k), max_tokens=max_tokens)
            counts[c] += reply.usage.completion_tokens

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start, sum(counts)


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
    parser.add_argument("--out", default=str(Path(__file__).with_name("endpoint_overhead.json")))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from coevo.core.policy.conversation import render_prompt
    from coevo.core.rollout.hf_engine import HFEngine
    from coevo.core.serve.background import BackgroundServer
    from coevo.core.serve.settings import ServerSettings

    model, tokenizer = build(args.hidden, args.layers)
    engine = HFEngine(None, model, tokenizer)
    prompts = [render_prompt(tokenizer, messages(k)) for k in range(args.requests)]
    torch.manual_seed(1)
    direct(engine, prompts[:4], 8, 4)  # warm-up
    runs: dict[str, list] = {f"{way}_{c}": [] for way in ("direct", "endpoint") for c in (1, args.clients)}
    loads = [os.getloadavg()[0]]
    with BackgroundServer(engine, tokenizer, ServerSettings(port=0, seed=1, batch_wait_ms=args.batch_wait_ms)) as server:
        through_endpoint(server.url, 4, 8, 1)  # warm-up
        for _ in range(args.repeats):  # interleaved, so that a change of load hits every way alike
            for c in (1, args.clients):
                runs[f"direct_{c}"].append(direct(engine, prompts, args.max_tokens, c))
                runs[f"endpoint_{c}"].append(through_endpoint(server.url, args.requests, args.max_tokens, c))
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
                     "batch_wait_ms": args.batch_wait_ms},
        "load_average_1min": [round(x, 2) for x in loads],  # the machine's load before and after each repeat
        "results": results,
        "ratio_direct_over_endpoint_time_per_token": ratio,
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps({"results": {k: v["tokens_per_s"] for k, v in results.items()}, "ratio": ratio}, indent=2))


if __name__ == "__main__":
    main()
