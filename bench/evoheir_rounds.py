"""Held-out math accuracy after N EVOHEIR rounds vs commit-all at equal compute.

Runs ``algo=evoheir env=math`` on the tiny model for ``--rounds`` rounds (full: Screen + Recover +
HEIRCOMMIT), then the ablation ``algo.commit.enabled=false`` (commit every proposal; no
confirmation cost) for as many rounds as the same token budget buys (its cost per round is
measured by the first commit-all round run). Reports each run's held-out accuracy (greedy,
``eval.num_tasks`` eval_in_distribution tasks) at round 0 and at the end, commits, and compute.

    python bench/evoheir_rounds.py [--rounds 4] [--host r_zero] [--eval-tasks 100]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config

ROOT = Path(__file__).resolve().parents[1]


def run(name: str, overrides: list[str], run_root: str) -> dict:
    cfg = compose_config("train", [*overrides, f"run_dir={run_root}/{name}", "overwrite=true"], repository=str(ROOT / "configs"))
    start = time.perf_counter()
    result = train.run(cfg)
    summary = json.loads((Path(run_root) / name / "evoheir_summary.json").read_text())
    tokens = sum(v for k, v in summary["compute_tokens"].items() if k not in ("audit", "heldout"))
    return {"name": name, "overrides": overrides, "seconds": round(time.perf_counter() - start, 1),
            "rounds": len(summary["rounds"]), "commits": sum(r["commit"] for r in summary["rounds"]),
            "heldout_before": result["before"]["success"], "heldout_after": result["after"]["success"],
            "compute_units": summary["compute_units"], "tokens": tokens}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--host", default="r_zero")
    parser.add_argument("--eval-tasks", type=int, default=100)
    parser.add_argument("--run-root", default="runs/bench-evoheir-rounds")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "evoheir_rounds.json"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    base = ["algo=evoheir", "env=math", f"algo.host={args.host}", f"eval.num_tasks={args.eval_tasks}",
            f"eval.batch_size={args.eval_tasks}", "algo.heldout_tasks=0", "trainer.progress_bar=false"]
    full = run("evoheir", [*base, f"algo.rounds={args.rounds}"], args.run_root)
    probe = run("commit_all_1", [*base, "algo.rounds=1", "algo.commit.enabled=false"], args.run_root)
    equal = max(1, math.floor(full["tokens"] / probe["tokens"]))
    commit_all = run("commit_all", [*base, f"algo.rounds={equal}", "algo.commit.enabled=false"], args.run_root)
    result = {"command": "python " + " ".join(sys.argv), "runs": [full, probe, commit_all],
              "equal_compute_rounds_commit_all": equal}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    for r in (full, commit_all):
        print(f"{r['name']:12s} rounds {r['rounds']:2d} commits {r['commits']:2d} held-out "
              f"{r['heldout_before'] * 100:.1f}% → {r['heldout_after'] * 100:.1f}%  tokens {r['tokens']:,}  "
              f"{r['seconds']:.0f} s")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
