"""Per-rank training state and step time of ``trainer=fsdp_cpu`` at world sizes 1, 2 and 4.

Each world size is one whole ``python -m coevo.core.cli.train`` job (GRPO on ``boxes``, a small
Qwen2 built from a config, no warm start, every sample trained): FSDP FULL_SHARD over that many gloo
processes on this machine's CPU. Every optimizer step logs the bytes of parameters, gradients and
AdamW state the rank holds (``train/held_*_bytes``, ``coevo.core.policy.held_state``); the full
model's are its parameter count x (4 + 4 + 8) bytes in float32. The goal: per-rank bytes
<= 1.1 x full / N. The step time is the median over the steps after the first of the logged
rollout + update seconds (on 2 cores, 4 processes share them: sharding saves memory here, not time).

    python -m bench.scaling.fsdp_scaling [--worlds 1 2 4] [--steps 4] [--hidden 128] [--layers 4]

Writes ``bench/scaling/fsdp_scaling.json`` (keys ``world_size``, ``per_rank_bytes``, ``full_bytes``,
``step_seconds``, ``command`` per row).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BYTES_PER_PARAMETER = 4 + 4 + 8  # float32 weight, gradient, AdamW's two moments


def run_world(world: int, args, folder: Path) -> dict:
    run_dir = folder / f"world{world}"
    cmd = [sys.executable, "-m", "coevo.core.cli.train", "algo=grpo", "env=boxes", "trainer=fsdp_cpu",
           f"trainer.devices={world}", f"trainer.max_steps={args.steps}", "trainer.checkpoint_every=1000",
           "trainer.progress_bar=false", "warmstart.enabled=false", "eval.before=false", "eval.after=false",
           f"model.hidden_size={args.hidden}", f"model.num_layers={args.layers}", "model.num_heads=4",
           "model.num_kv_heads=2", f"model.intermediate_size={2 * args.hidden}", "model.vocab_size=300",
           "algo.tasks_per_step=4", "algo.group_size=4", "algo.skip_zero_advantage=false", f"run_dir={run_dir}"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "COEVO_CONFIG_DIR": str(ROOT / "configs")}
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"world {world}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    held = {key: max(r[f"train/held_{key}_bytes"] for r in rows) for key in ("parameters", "gradients", "optimizer")}
    exported = _exported_parameters(run_dir / "policy")
    steps = [r["train/rollout_seconds"] + r["train/update_seconds"] for r in rows[1:]] or [0.0]
    return {
        "world_size": world,
        "per_rank_bytes": int(sum(held.values())),
        "per_rank": {k: int(v) for k, v in held.items()},
        "full_bytes": exported * BYTES_PER_PARAMETER,
        "parameters": exported,
        "step_seconds": round(statistics.median(steps), 3),
        "job_seconds": round(time.perf_counter() - start, 1),
        "command": " ".join(cmd[1:]),
    }


def _exported_parameters(folder: Path) -> int:
    """Parameters of the exported policy, the LM head left out when it is a copy of the (tied) embedding."""
    import torch
    from safetensors.torch import load_file

    tensors = load_file(str(folder / "model.safetensors"))
    head, embedding = tensors.get("lm_head.weight"), tensors.get("model.embed_tokens.weight")
    tied = head is not None and embedding is not None and torch.equal(head, embedding)
    return sum(t.numel() for k, t in tensors.items() if not (tied and k == "lm_head.weight"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--out", default=str(Path(__file__).with_name("fsdp_scaling.json")))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="coevo-fsdp-scaling-") as tmp:
        for world in args.worlds:
            row = run_world(world, args, Path(tmp))
            ideal = row["full_bytes"] / world
            row["ratio_to_full_over_n"] = round(row["per_rank_bytes"] / ideal, 3)
            rows.append(row)
            print(f"world {world}: {row['per_rank_bytes']:,} bytes per rank (full {row['full_bytes']:,}, "
                  f"x{row['ratio_to_full_over_n']} of full/N), step {row['step_seconds']} s", flush=True)
    result = {
        "command": "python -m bench.scaling.fsdp_scaling " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_at_end": os.getloadavg()},
        "goal": "per_rank_bytes <= 1.1 x full_bytes / world_size",
        "met": all(r["ratio_to_full_over_n"] <= 1.1 for r in rows),
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"goal met: {result['met']}  ({args.out})")


if __name__ == "__main__":
    main()
