"""GPU check: a few GRPO steps of a ~0.5B Qwen2-shaped model on one GPU, with throughput, memory and MFU.

What it does differently from ``make train``: no warm start and no download — a Qwen2 with 24
layers, hidden 1024, 16 query / 2 key-value heads (head_dim 64), MLP 5504 and a BPE tokenizer
trained on the env's text (~0.47B parameters) is built from a config with random weights (core's
``tiny`` builder at full size). A random policy never finishes an episode, so every turn generates
``--max-new-tokens`` tokens and every group has equal returns: ``algo.skip_zero_advantage=false``
keeps the (zero-advantage) update's forward and backward so that training throughput is measured.
The run goes through the real CLI path (``coevo.core.cli.train.run``): ``trainer=fsdp`` on one
GPU (bf16 mixed precision, decoder-layer wrap, optional activation checkpointing), ``rollout=hf``
or, with ``--vllm``, ``rollout=vllm`` (weights pushed after every step, log-prob self-check).

Prints and writes (``--out``, default ``bench/scaling/gpu_check.json``): rollout tokens/s (generated
agent tokens / rollout seconds), training tokens/s (prompt + response tokens of the trained
sequences / update seconds), peak GPU memory (torch's allocator and the whole device), and MFU =
achieved FLOP/s / ``--peak-tflops`` (989 = H200 bf16 dense) with 6·N FLOPs per trained token and
2·N per generated token (N = parameters; attention FLOPs not counted). Step 1 (CUDA and kernel
warm-up) is left out of the averages when there are more steps.

Launch (≤ 8 minutes on one H200, no network):
    bash bench/scaling/gpu_check.sh                    # rollout=hf
    bash bench/scaling/gpu_check.sh --vllm             # rollout=vllm (needs the vllm package)
    python -m bench.scaling.gpu_check --dry-run        # any machine: compose + validate the config, count parameters
    python -m bench.scaling.gpu_check --cpu --hidden 64 --layers 2 --heads 2 --kv-heads 1 --intermediate 128 \
        --vocab 300 --steps 2 --tasks 2 --group 2 --max-new-tokens 8    # the same path on the CPU, in seconds
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
H200_BF16_TFLOPS = 989.0  # dense bf16 peak of an H200 SXM (spec sheet)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--steps", type=int, default=4, help="GRPO optimizer steps (default 4)")
    p.add_argument("--tasks", type=int, default=16, help="tasks per step (default 16)")
    p.add_argument("--group", type=int, default=8, help="episodes per task (default 8)")
    p.add_argument("--max-new-tokens", type=int, default=128, help="tokens generated per turn (default 128)")
    p.add_argument("--max-turns", type=int, default=2, help="turns per episode (default 2)")
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--layers", type=int, default=24)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--intermediate", type=int, default=5504)
    p.add_argument("--vocab", type=int, default=8192, help="BPE vocabulary size asked for (default 8192)")
    p.add_argument("--strategy", choices=("fsdp", "ddp", "auto"), default="fsdp",
                   help="fsdp (default; trainer=fsdp), ddp or auto (plain one-process Lightning)")
    p.add_argument("--activation-checkpointing", action="store_true", help="FSDP: recompute decoder layers")
    p.add_argument("--vllm", action="store_true", help="rollouts with rollout=vllm (+ weight sync and self-check)")
    p.add_argument("--vllm-memory", type=float, default=0.3, help="vLLM's share of GPU memory (default 0.3)")
    p.add_argument("--peak-tflops", type=float, default=H200_BF16_TFLOPS, help="the GPU's dense bf16 peak")
    p.add_argument("--run-dir", default=None, help="run folder (default: a temporary folder)")
    p.add_argument("--out", default=str(Path(__file__).with_name("gpu_check.json")))
    p.add_argument("--dry-run", action="store_true", help="compose and validate the config, count parameters, stop")
    p.add_argument("--cpu", action="store_true", help="smoke test on the CPU (one process, fp32; MFU meaningless)")
    args = p.parse_args(argv)
    if args.hidden % args.heads or args.heads % args.kv_heads:
        p.error("--hidden must be a multiple of --heads, and --heads a multiple of --kv-heads")
    return args


def ensure_coevo() -> None:
    """Register core's components when no ``coevo.plugins`` entry point announced them (coevo-core
    imported without its distribution's metadata, e.g. ``PYTHONPATH=packages/core/src`` on a bare GPU
    machine: ``bench/scaling/gpu_check.sh`` sets that where coevo is not installed)."""
    from coevo.core import registry

    if "coevo-core" not in registry.discover():
        import coevo.core.builtin

        coevo.core.builtin.register()


def overrides(args: argparse.Namespace, run_dir: str) -> list[str]:
    out = [
        "env=boxes", "env.num_boxes=4", f"env.max_steps={args.max_turns}",
        "agent.mode=generate", f"agent.sampling.max_new_tokens={args.max_new_tokens}", "agent.sampling.temperature=1.0",
        "agent.prompt.max_prompt_tokens=1024",
        "model=tiny", f"model.hidden_size={args.hidden}", f"model.num_layers={args.layers}",
        f"model.num_heads={args.heads}", f"model.num_kv_heads={args.kv_heads}",
        f"model.intermediate_size={args.intermediate}", f"model.vocab_size={args.vocab}",
        "algo=grpo", "algo.name=grpo_gpu_check", f"algo.tasks_per_step={args.tasks}", f"algo.group_size={args.group}",
        "algo.skip_zero_advantage=false", "algo.micro_batch_tokens=32768", "algo.optim.lr=1.0e-6",
        "algo.kl_coef=0.0",  # the frozen reference copy is not moved to the GPU (ReferencePolicy is no nn.Module)
        "warmstart.enabled=false", "eval.before=false", "eval.after=false",
        f"trainer.max_steps={args.steps}", "trainer.checkpoint_every=100000", "trainer.progress_bar=false",
        "trainer.cpu_threads=null", f"run_dir={run_dir}", "overwrite=true",
    ]
    if args.cpu:
        out += ["trainer.accelerator=cpu", "trainer.devices=1", "trainer.strategy=auto", "trainer.cpu_threads=1"]
    elif args.strategy == "fsdp":
        out += ["trainer=fsdp", "trainer.devices=1",
                f"trainer.fsdp.activation_checkpointing={str(args.activation_checkpointing).lower()}"]
    else:
        out += ["trainer.accelerator=gpu", "trainer.devices=1", f"trainer.strategy={args.strategy}",
                "trainer.precision=bf16-mixed"]
    if args.vllm:
        out += ["rollout=vllm", "rollout.dtype=bfloat16", f"rollout.gpu_memory_utilization={args.vllm_memory}",
                "rollout.max_model_len=4096", "rollout.sync_check.max_abs_diff=0.5"]
    return out


def compose_config(args: argparse.Namespace, run_dir: str):
    from coevo.core.cli.config_sources import compose_config

    return compose_config("train", overrides(args, run_dir), repository=str(ROOT / "configs"))


def model_parameters(args: argparse.Namespace, vocab: int) -> int:
    """Parameters of the Qwen2 shape (built on the meta device: no memory)."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(vocab_size=vocab, hidden_size=args.hidden, num_hidden_layers=args.layers,
                         num_attention_heads=args.heads, num_key_value_heads=args.kv_heads,
                         intermediate_size=args.intermediate, tie_word_embeddings=True)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())


def register_measured_grpo() -> None:
    """``algo.name=grpo_gpu_check``: core's GRPO, also logging the tokens of the trained sequences."""
    from coevo.core import registry
    from coevo.core.algos.grpo import GRPO

    if "grpo_gpu_check" in registry.algorithms.names():
        return

    @registry.algorithms.register("grpo_gpu_check")
    class MeasuredGRPO(GRPO):
        def update(self, samples):
            stats = super().update(samples)
            stats["train_tokens"] = float(sum(len(getattr(s, "input_ids", ())) for s in samples))
            return stats


def summarize_run(rows: list[dict], params: int, peak_tflops: float) -> dict:
    timed = rows[1:] if len(rows) > 1 else rows
    gen = sum(r.get("train/agent_tokens", 0.0) for r in timed)
    gen_s = sum(r.get("train/rollout_seconds", 0.0) for r in timed)
    trained = sum(r.get("train/train_tokens", 0.0) for r in timed)
    train_s = sum(r.get("train/update_seconds", 0.0) for r in timed)
    rollout_tps = gen / gen_s if gen_s else 0.0
    train_tps = trained / train_s if train_s else 0.0
    sync = [r["train/sync/logprob_abs_diff"] for r in rows if "train/sync/logprob_abs_diff" in r]
    return {
        "steps_timed": len(timed),
        "rollout_tokens_per_s": rollout_tps,
        "train_tokens_per_s": train_tps,
        "rollout_mfu": 2 * params * rollout_tps / (peak_tflops * 1e12),
        "train_mfu": 6 * params * train_tps / (peak_tflops * 1e12),
        "step_seconds": (gen_s + train_s) / max(1, len(timed)),
        "sync_logprob_abs_diff_max": max(sync) if sync else None,
    }


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    ensure_coevo()
    register_measured_grpo()
    from coevo.core import registry
    from coevo.core.cli.schema import TrainSchema
    from coevo.core.config import build_component, validate

    run_dir = args.run_dir or str(Path(tempfile.gettempdir()) / f"coevo-gpu-check-{os.getpid()}")
    cfg = compose_config(args, run_dir)
    validate(cfg, TrainSchema, "train")
    for group, kind in (("algo", registry.algorithms), ("env", registry.envs), ("model", registry.models)):
        build_component(kind, cfg[group], group)
    params = model_parameters(args, args.vocab)
    plan = {"model": {"hidden": args.hidden, "layers": args.layers, "heads": args.heads, "kv_heads": args.kv_heads,
                      "intermediate": args.intermediate, "vocab_asked": args.vocab, "parameters_at_vocab": params},
            "steps": args.steps, "tasks": args.tasks, "group": args.group, "max_new_tokens": args.max_new_tokens,
            "strategy": args.strategy, "rollout": "vllm" if args.vllm else "hf", "run_dir": run_dir}
    print(f"gpu check: {params / 1e9:.2f}B-parameter Qwen2 shape, {args.steps} GRPO steps x {args.tasks} tasks x "
          f"{args.group} episodes, strategy={args.strategy}, rollout={plan['rollout']}")
    if args.dry_run:
        result = {"dry_run": True, "plan": plan, "overrides": overrides(args, run_dir)}
        _write(args.out, result)
        return result

    import torch

    gpu = torch.cuda.is_available() and not args.cpu
    if not gpu and not args.cpu:
        raise SystemExit("gpu check: no CUDA GPU visible; run it on a GPU machine (or --dry-run / --cpu here)")
    from coevo.core.cli.train import run

    if gpu:
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    run(cfg)
    wall = time.perf_counter() - start
    rows = [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
    exported = json.loads((Path(run_dir) / "policy" / "config.json").read_text())
    params = model_parameters(args, exported["vocab_size"])  # the tokenizer's actual vocabulary
    plan["model"]["vocab"] = exported["vocab_size"]
    plan["model"]["parameters"] = params
    free, total = torch.cuda.mem_get_info() if gpu else (0, 0)
    result = {
        "plan": plan, "gpu": torch.cuda.get_device_name() if gpu else "none (--cpu)", "torch": torch.__version__,
        "wall_seconds": wall,
        "peak_memory_allocated_gib": torch.cuda.max_memory_allocated() / 2**30 if gpu else 0.0,
        "device_memory_used_gib": (total - free) / 2**30,
        **summarize_run(rows, params, args.peak_tflops), "peak_tflops": args.peak_tflops, "steps": rows,
    }
    print(f"rollout: {result['rollout_tokens_per_s']:,.0f} tok/s (MFU {result['rollout_mfu'] * 100:.2f}%)   "
          f"training: {result['train_tokens_per_s']:,.0f} tok/s (MFU {result['train_mfu'] * 100:.1f}%)")
    print(f"peak memory: {result['peak_memory_allocated_gib']:.1f} GiB allocated by torch, "
          f"{result['device_memory_used_gib']:.1f} GiB used on the device; step {result['step_seconds']:.1f} s; "
          f"wall {wall:.0f} s; sync |Δ logprob| max {result['sync_logprob_abs_diff_max']}")
    _write(args.out, result)
    return result


def _write(path: str, result: dict) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=float))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
