"""Warm-start SFT steps, eager vs ``torch.compile`` (``warmstart.sft.compile``), side by side.

Builds a run's warm-start data and fresh model exactly as ``make train`` would (the algorithm's own
expert source, the tokenizer trained on it, the preset's batch size and optimizer), then trains two
copies of the same initial weights on the same batches: one eager, one compiled with
``model.compile(dynamic=True)``. Each repeat times ``--steps`` steps of the eager copy, then the same
number of the compiled one, so load from other jobs hits both alike. The compiled copy's first steps
(compiling, one recompile for larger batches) are timed apart. It prints ms/step, the ratio, and
how far the two copies' losses drift (float rounding only: the same math). Example (2026-12-04,
bench/notebook.md):

    python -m bench.throughput.sft_compile --out bench/throughput/sft_compile.json            # algo=rao, its longctx preset
    python -m bench.throughput.sft_compile --out /tmp/household.json algo=rsipo             # any train config's warm start
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.algos.optim import build_optimizer
from coevo.core.algos.sft import sft_loss
from coevo.core.cli import train
from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import build_component, validate
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.warmstart import sft_loader, sft_optim, sft_samples

CONFIGS = str(Path(__file__).resolve().parents[2] / "configs")


class Learner:
    """One copy of the model with its own optimizer; ``step`` trains on a batch, returns (loss, seconds)."""

    def __init__(self, model: torch.nn.Module, settings):
        self.model = model
        self.clip = settings.grad_clip
        built = build_optimizer(model.parameters(), settings)
        self.optimizer, self.scheduler = built["optimizer"], built["lr_scheduler"]["scheduler"]

    def step(self, batch: dict[str, torch.Tensor]) -> tuple[float, float]:
        start = time.perf_counter()
        loss = sft_loss(self.model, batch)
        loss.backward()
        if self.clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        return float(loss.detach()), time.perf_counter() - start


def warm_start_batches(overrides: list[str], count: int) -> tuple[torch.nn.Module, list[dict], dict]:
    """The fresh model of the config's warm start and its first ``count`` shuffled SFT batches."""
    cfg = compose_config("train", overrides, repository=CONFIGS)
    settings = validate(cfg, TrainSchema, "train")
    algo_cls, algo_cfg = build_component(registry.algorithms, cfg.algo, "algo")
    builder_cls, model_cfg = build_component(registry.models, cfg.model, "model")
    _, _, make_env = env_factory(cfg.env)
    ws = settings.warmstart
    torch.manual_seed(ws.seed)
    collect = train.expert_source(algo_cls, algo_cfg) or collect_expert_examples
    start = time.perf_counter()
    data = collect(make_env(), settings.agent.prompt, ws.episodes, "train", ws.first_index)
    model, tokenizer = builder_cls(model_cfg).build(lambda: corpus_texts(data.examples))
    samples = sft_samples(data.examples, tokenizer)
    loader = sft_loader(samples, ws, tokenizer.pad_token_id)
    batches = []
    for batch in loader:
        batches.append(batch)
        if len(batches) == count:
            break
    lengths = [len(s.input_ids) for s in samples]
    info = {"examples": len(samples), "mean_tokens": round(statistics.mean(lengths), 1), "max_tokens": max(lengths),
            "batch_size": ws.sft.batch_size, "parameters": sum(p.numel() for p in model.parameters()),
            "data_seconds": round(time.perf_counter() - start, 1), "optim": sft_optim(ws.sft, len(loader))}
    return model, batches, info


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=60, help="timed steps per engine per repeat")
    parser.add_argument("--warmup", type=int, default=6, help="untimed first steps of each copy (compiling)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="torch threads (make train's default on 2 cores)")
    parser.add_argument("--out", default=None, help="write the result as JSON here")
    parser.add_argument("overrides", nargs="*", help="train config overrides (default: algo=rao)")
    args = parser.parse_args(argv)
    overrides = args.overrides or ["algo=rao"]
    # an empty inductor cache, as on a fresh machine (else a second run finds the kernels compiled)
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-"))
    torch.set_num_threads(args.threads)
    model, batches, info = warm_start_batches(overrides, args.warmup + args.steps * args.repeats)
    optim = info.pop("optim")
    eager = Learner(model, optim)
    compiled_model = copy.deepcopy(model)
    compiled_model.compile(dynamic=True)
    compiled = Learner(compiled_model, optim)

    warm = batches[: args.warmup]
    warm_eager = [eager.step(b) for b in warm]
    warm_compiled = [compiled.step(b) for b in warm]  # compiling happens in these
    losses = {"eager": [loss for loss, _ in warm_eager], "compiled": [loss for loss, _ in warm_compiled]}
    times = {"eager": [], "compiled": []}
    for r in range(args.repeats):
        chunk = batches[args.warmup + r * args.steps : args.warmup + (r + 1) * args.steps]
        for name, learner in (("eager", eager), ("compiled", compiled)):
            results = [learner.step(b) for b in chunk]
            times[name].append(1000 * sum(t for _, t in results) / len(results))
            losses[name] += [loss for loss, _ in results]
        print(f"repeat {r}: eager {times['eager'][-1]:.0f} ms/step, compiled {times['compiled'][-1]:.0f} ms/step",
              flush=True)
    eager_ms, compiled_ms = min(times["eager"]), min(times["compiled"])
    # the compiled copy's warm-up beyond what its steps cost once compiled
    compile_seconds = sum(t for _, t in warm_compiled) - args.warmup * compiled_ms / 1000
    drift = [abs(a - b) for a, b in zip(losses["eager"], losses["compiled"])]
    result = {
        "command": "python -m bench.throughput.sft_compile " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.date.today().isoformat(), "torch": torch.__version__, "threads": args.threads,
        "machine": platform.machine(), "overrides": overrides, **info,
        "eager_ms_per_step": round(eager_ms, 1), "compiled_ms_per_step": round(compiled_ms, 1),
        "speedup": round(eager_ms / compiled_ms, 3),
        "compile_seconds": round(compile_seconds, 1), "warmup_steps": args.warmup,
        "break_even_steps": round(compile_seconds * 1000 / max(eager_ms - compiled_ms, 1e-9)),
        "ms_per_step_each_repeat": times, "max_loss_drift": max(drift),
        "loss_drift_first_steps": drift[: args.warmup],  # from the same weights: rounding only, before it compounds
        "final_losses": {"eager": losses["eager"][-1], "compiled": losses["compiled"][-1]},
    }
    print(f"SFT step: eager {eager_ms:.0f} ms, compiled {compiled_ms:.0f} ms ({result['speedup']:.2f}x faster); "
          f"compiling {compile_seconds:.0f} s pays off after {result['break_even_steps']} steps; "
          f"largest loss difference over {len(drift)} steps: {max(drift):.2e}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n")
    return result


if __name__ == "__main__":
    main()
