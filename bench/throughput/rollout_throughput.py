"""Agent-loop throughput vs raw ``model.generate`` on the same model, batch and lengths.

The agent loop (free-generation mode) plays a batch of household episodes; every engine call is
recorded (prompt ids, sampling settings, RNG seed). The same calls are then replayed with plain
``model.generate`` (left-padded batch, same max_new_tokens, same seed), so both sides generate
the same tokens. Printed: tokens/s of each and the loop's overhead ratio (goal: <= 1.10).

    python -m bench.throughput.rollout_throughput [--episodes 32] [--repeats 3] [--model-dir DIR]

Without ``--model-dir`` a tiny model is built with a tokenizer trained on expert episodes.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.agent.prompt import PromptSettings
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.policy.builders import TinyBuilder, TinyBuilderConfig, load_pretrained
from coevo.core.rollout.engine import SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine


class RecordingEngine(HFEngine):
    """The hf engine, remembering each generate call so that it can be replayed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls: list[tuple[list[list[int]], SamplingSettings, int]] = []

    def generate(self, prompts, settings):
        seed = len(self.calls)
        torch.manual_seed(seed)
        self.calls.append((prompts, settings, seed))
        return super().generate(prompts, settings)


def raw_generate(model, tokenizer, calls) -> tuple[float, int]:
    """Seconds and generated tokens of plain model.generate over the recorded calls."""
    seconds, tokens = 0.0, 0
    for prompts, settings, seed in calls:
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), tokenizer.pad_token_id)
        mask = torch.zeros_like(ids)
        for i, p in enumerate(prompts):
            ids[i, width - len(p):] = torch.tensor(p)
            mask[i, width - len(p):] = 1
        torch.manual_seed(seed)
        start = time.perf_counter()
        out = model.generate(input_ids=ids, attention_mask=mask, do_sample=True, temperature=settings.temperature,
                             top_p=settings.top_p, top_k=0, max_new_tokens=settings.max_new_tokens,
                             eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
        seconds += time.perf_counter() - start
        new = out[:, width:]
        for row in new.tolist():
            n = next((k + 1 for k, t in enumerate(row) if t == tokenizer.eos_token_id), len(row))
            tokens += n
    return seconds, tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=32, help="episodes played in parallel (the batch)")
    parser.add_argument("--max-steps", type=int, default=8, help="turns per episode")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model-dir", default=None, help="a local HF model folder (default: build tiny)")
    parser.add_argument("--out", default=str(Path(__file__).with_name("rollout_throughput.json")))
    args = parser.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))

    env_cls = registry.envs.get("household")
    env_cfg = env_cls.Config(max_steps=args.max_steps)
    prompt = PromptSettings(history_turns=1)
    if args.model_dir:
        model, tokenizer = load_pretrained(args.model_dir)
    else:
        data = collect_expert_examples(env_cls(env_cfg), prompt, 100)
        model, tokenizer = TinyBuilder(TinyBuilderConfig()).build(lambda: corpus_texts(data.examples))
    model.eval()
    settings = AgentSettings(mode="generate", prompt=prompt, sampling=SamplingSettings(max_new_tokens=24))
    tasks = [env_cls(env_cfg).task("train", i) for i in range(args.episodes)]

    rows = []
    for repeat in range(args.repeats):
        engine = RecordingEngine(None, model, tokenizer)
        loop = AgentLoop(engine, tokenizer, settings)
        envs = [env_cls(env_cfg) for _ in tasks]
        start = time.perf_counter()
        episodes = loop.run(tasks, envs)
        loop_seconds = time.perf_counter() - start
        loop_tokens = sum(len(t.response_ids) for ep in episodes for t in ep.turns)
        raw_seconds, raw_tokens = raw_generate(model, tokenizer, engine.calls)
        rows.append({"repeat": repeat, "loop_seconds": loop_seconds, "loop_tokens": loop_tokens,
                     "raw_seconds": raw_seconds, "raw_tokens": raw_tokens,
                     "loop_tok_s": loop_tokens / loop_seconds, "raw_tok_s": raw_tokens / raw_seconds})
        r = rows[-1]
        print(f"repeat {repeat}: loop {r['loop_tok_s']:.0f} tok/s ({loop_tokens} tok), raw generate "
              f"{r['raw_tok_s']:.0f} tok/s ({raw_tokens} tok), overhead x{r['raw_tok_s'] / r['loop_tok_s']:.3f}")
    best_loop = max(r["loop_tok_s"] for r in rows)
    best_raw = max(r["raw_tok_s"] for r in rows)
    ratio = best_raw / best_loop
    verdict = "OK" if ratio <= 1.10 else "ABOVE GOAL"
    print(f"best of {args.repeats}: agent loop {best_loop:.0f} tok/s vs raw generate {best_raw:.0f} tok/s "
          f"-> loop costs x{ratio:.3f} of raw generation (goal <= 1.10: {verdict})")
    result = {
        "command": "python " + " ".join(sys.argv),
        "machine": f"{platform.machine()} {torch.get_num_threads()} threads, torch {torch.__version__}",
        "parameters": sum(p.numel() for p in model.parameters()),
        "episodes": args.episodes, "max_steps": args.max_steps, "rows": rows,
        "best_loop_tok_s": best_loop, "best_raw_tok_s": best_raw, "overhead_ratio": ratio,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
