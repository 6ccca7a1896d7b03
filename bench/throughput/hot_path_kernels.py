"""The hot kernels of a training step, before and after a change, on the same recorded samples.

Records one GRPO step's samples with this checkout's code (a math step: generated turns; a
default household step: choice turns with their candidates), then times, alternating between a
git worktree of ``--before`` and this checkout (fresh processes, one torch thread): GRPO's
forward + backward over the math samples and over the household samples, and the ``hf`` engine's
candidate scoring of the household turns. Far less noisy than whole training commands on a
shared machine, since both versions see exactly the same tensors.

    python -m bench.throughput.hot_path_kernels --before <git rev> [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from bench.throughput.hot_path_ab import worktree

ROOT = Path(__file__).resolve().parents[2]


def record(tmp: Path) -> dict:
    """Samples of one math step and one household step (default configs), and their model folders."""
    from bench.peer.model_folder import warm_start_folder
    from coevo.core.agent.loop import AgentLoop
    from coevo.core.algos.grpo import episode_samples
    from coevo.core.cli.components import env_factory
    from coevo.core.cli.config_sources import compose_config
    from coevo.core.cli.schema import TrainSchema
    from coevo.core.config import validate
    from coevo.core.policy.builders import load_pretrained
    from coevo.core.rollout.hf_engine import HFEngine

    torch.set_num_threads(1)
    out = {}
    for name, overrides, loss in (("math", ["env=math"], "tokens"), ("household", [], "softmax")):
        cfg = compose_config("train", overrides)
        settings = validate(cfg, TrainSchema, "train")
        folder = warm_start_folder(cfg)  # the (cached) warm start of this config
        model, tokenizer = load_pretrained(folder)
        _, _, make = env_factory(cfg.env)
        env = make()
        tasks = [env.task("train", i) for i in range(4) for _ in range(8)]
        loop = AgentLoop(HFEngine(None, model, tokenizer), tokenizer, settings.agent)
        torch.manual_seed(0)
        episodes = loop.run(tasks, [make() for _ in tasks], [i // 8 for i in range(32)],
                            generator=torch.Generator().manual_seed(0))
        samples = episode_samples(episodes, torch.linspace(-1, 1, len(episodes)), loss)
        path = tmp / f"{name}.pkl"
        path.write_bytes(pickle.dumps(samples))
        out[name] = {"model": str(folder), "samples": str(path), "count": len(samples)}
        print(f"recorded {len(samples)} {name} samples", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True)
    parser.add_argument("--repeats", type=int, default=3, help="alternating process pairs per kernel")
    parser.add_argument("--inner", type=int, default=3, help="timed repetitions inside each process")
    parser.add_argument("--out", default=str(Path(__file__).with_name("hot_path_kernels.json")))
    args = parser.parse_args()
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.before], check=True, capture_output=True,
                         text=True).stdout.strip()
    trees = {"before": worktree(rev), "after": ROOT}
    tmp = Path(tempfile.mkdtemp(prefix="bench-kernels-"))
    started = time.time()
    data = record(tmp)
    kernels = {"update, math (generated turns)": ("math", "update_tokens"),
               "update, household (choice turns)": ("household", "update_choices"),
               "scoring, household candidates": ("household", "score")}
    results, loads = {}, [os.getloadavg()[0]]
    for label, (env, kind) in kernels.items():
        times = {"before": [], "after": []}
        for repeat in range(args.repeats):
            for side in (("before", "after") if repeat % 2 == 0 else ("after", "before")):
                out = tmp / f"{kind}-{side}-{repeat}.json"
                pythonpath = os.pathsep.join(str(p) for p in sorted(trees[side].glob("packages/*/src")))
                subprocess.run([sys.executable, str(Path(__file__).with_name("hot_path") / "kernel_timing.py"), data[env]["model"],
                                data[env]["samples"], kind, str(args.inner), str(out)], check=True,
                               env={**os.environ, "PYTHONPATH": pythonpath, "OMP_NUM_THREADS": "1"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[side] += json.loads(out.read_text())
                loads.append(os.getloadavg()[0])
        before, after = statistics.median(times["before"]), statistics.median(times["after"])
        results[label] = {"before_seconds": before, "after_seconds": after, "ratio": after / before, "times": times,
                          "samples": data[env]["count"]}
        print(f"{label:36} before {before:7.2f} s   after {after:7.2f} s   x{after / before:.2f}", flush=True)
    record_ = {"command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
               "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(started)),
               "before": rev, "after": "this checkout", "load_average": loads, "results": results}
    Path(args.out).write_text(json.dumps(record_, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
