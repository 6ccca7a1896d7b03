"""Shared by the method comparisons under bench/: start a results record, train one configuration
in this process and read back what a comparison tables (held-out success before/after, per task type, rollouts spent,
wall time), and summarise runs per method as mean and standard deviation over seeds."""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config

ROOT = Path(__file__).resolve().parents[1]


def start_record(script: str, **lists) -> dict:
    """A results record: the exact command, the machine (one torch thread: set here), empty lists."""
    torch.set_num_threads(1)
    return {"command": " ".join([".venv/bin/python", script, *sys.argv[1:]]),
            "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s)",
            **{name: list(value) for name, value in lists.items()}}


def run_method(method: str, seed: int, steps: int, overrides: list[str], run_dir: Path) -> dict:
    """Train ``overrides`` for ``steps`` optimizer steps with ``seed`` into ``run_dir``; its numbers."""
    cfg = compose_config("train", [*overrides, f"seed={seed}", f"trainer.max_steps={steps}", f"run_dir={run_dir}",
                                   "overwrite=true", "trainer.progress_bar=false", "trainer.checkpoint_every=1000"],
                         repository=str(ROOT / "configs"))
    start = time.perf_counter()
    result = train.run(cfg)
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    rollouts = rows[-1].get("train/budget/rollouts_total") or sum(
        r.get("train/budget/rollouts", 0) or 0 for r in rows) or steps * cfg.algo.tasks_per_step * cfg.algo.group_size
    return {"method": method, "seed": seed, "steps": steps, "seconds": round(time.perf_counter() - start, 1),
            "before": result["before"]["success"], "after": result["after"]["success"],
            "before_greedy": result["before"].get("greedy/success"), "after_greedy": result["after"].get("greedy/success"),
            "after_per_type": {k: v for k, v in result["after"].items() if k.startswith("success/")},
            "rollouts": rollouts, "run_dir": str(run_dir)}


def summarise(runs: list[dict], methods) -> dict:
    """Per method: runs, mean rollouts and seconds, mean ± sd of the held-out success after training."""
    table = {}
    for method in methods:
        mine = [r for r in runs if r["method"] == method]
        if not mine:
            continue
        table[method] = {"n": len(mine), "rollouts": statistics.mean(r["rollouts"] for r in mine),
                         "seconds": statistics.mean(r["seconds"] for r in mine)}
        for key in ("after", "after_greedy"):
            values = [r[key] for r in mine if r.get(key) is not None]
            if values:
                table[method][f"{key}_mean"] = statistics.mean(values)
                table[method][f"{key}_std"] = statistics.stdev(values) if len(values) > 1 else 0.0
    return table
