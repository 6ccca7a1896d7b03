"""Synchronous vs asynchronous rollouts side by side: GRPO on household with the tiny model, one Ray worker.

The same model (the default cached warm start), tasks, seeds and sample count in one process, one
after the other: ``sync`` (the trainer plays, then updates; ``--sync-threads`` torch threads) and
``async`` with ``rollout.async.max_staleness`` 1 and 2 (one rollout worker beside the trainer, each
with ``--async-threads`` threads). Per run: training wall time, steps/s, trained agent tokens/s, the
staleness of every step's batch (histogram), the share of samples dropped as too stale, and held-out
success after training (``eval.*`` defaults: sampled and greedy). ``speedup`` = async steps/s over
sync steps/s, per seed, and ``steady_speedup`` the same after each run's first step (which also
starts the worker). Each run also keeps its mean seconds a step of playing (sync: the trainer's
rollout; async: a worker's play), of the update, and (async) of waiting for the batch and pushing
the weights; ``ceiling`` = (sync rollout + sync update) / max(async play / workers, async update),
per seed: the speedup a perfect overlap would reach with the phases as fast as the async run
measured them (each on its own thread, where the sync run gives both phases two). Launch (from
the repository root, with ``coevo-core[async]``):

    .venv/bin/python -m bench.throughput.async_rollouts eval.num_tasks=30 --steps 8 --seeds 0 1 2   # key=value overrides first

Results: ``bench/throughput/async_rollouts.json`` (command, commit, date, machine, threads, seeds).
On 2 cores the worker and the trainer share the machine: the overlap can only hide the part of a
step where one side leaves a core idle.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import lightning as L

from bench.records import commit_of, save_entry
from coevo.core import registry

ROOT = Path(__file__).resolve().parents[2]
STEP_ENDS: list[float] = []  # the wall clock at the end of every optimizer step of the current run


@registry.callbacks.register("bench_step_clock")
class StepClock(L.Callback):
    """Notes when each optimizer step ends (``trainer.callbacks=[bench_step_clock]``), for the steady rate."""

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        STEP_ENDS.append(time.perf_counter())


def steady_rate(ends: list[float]) -> float | None:
    """Steps/s after the first step (which also starts the worker and plays the first batch alone)."""
    return (len(ends) - 1) / (ends[-1] - ends[0]) if len(ends) > 1 and ends[-1] > ends[0] else None


def run(mode: str, staleness: int, seed: int, args, work: Path) -> dict:
    from coevo.core.cli import train
    from coevo.core.cli.config_sources import compose_config

    run_dir = work / f"{mode}{staleness}-s{seed}"
    threads = args.sync_threads if mode == "sync" else args.async_threads
    overrides = [f"seed={seed}", f"trainer.max_steps={args.steps}", f"run_dir={run_dir}", "eval.before=false",
                 "trainer.progress_bar=false", f"trainer.cpu_threads={threads}", "trainer.callbacks=[bench_step_clock]",
                 *args.overrides]
    if mode == "async":
        overrides += ["rollout.async.enabled=true", f"rollout.async.max_staleness={staleness}",
                      f"rollout.async.threads={args.worker_threads}", f"rollout.async.workers={args.workers}"]
    STEP_ENDS.clear()
    result = train.run(compose_config("train", overrides, repository=str(ROOT / "configs")))
    steady = steady_rate(STEP_ENDS)
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    tokens = sum(r.get("train/agent_tokens", 0.0) for r in rows)
    samples = sum(r.get("train/budget/rollouts", 0.0) for r in rows)
    dropped = sum(r.get("rollout/dropped_stale", 0.0) for r in rows)
    after = result["after"] or {}

    def mean_of(key: str) -> float | None:
        values = [r[key] for r in rows if key in r]
        return round(statistics.mean(values), 3) if values else None

    play = "rollout/play_seconds" if mode == "async" else "train/rollout_seconds"
    phases = {"play": mean_of(play), "update": mean_of("train/update_seconds")}
    if mode == "async":
        phases |= {"wait": mean_of("train/rollout_seconds"), "push": mean_of("rollout/push_seconds")}
    workers = {"workers": args.workers} if mode == "async" else {}
    return {"phase_seconds": phases, **workers, "mode": mode, "max_staleness": staleness if mode == "async" else None, "seed": seed,
            "torch_threads": threads, "steps": result["steps"], "train_seconds": round(result["train_seconds"], 2),
            "steps_per_s": round(result["steps"] / result["train_seconds"], 4),
            "steady_steps_per_s": round(steady, 4) if steady else None,
            "agent_tokens_per_s": round(tokens / result["train_seconds"], 1),
            "staleness_histogram": dict(sorted(Counter(int(r.get("rollout/staleness_max", 0)) for r in rows).items())),
            "dropped_share": dropped / max(samples + dropped, 1.0),
            "heldout_after": after.get("success"), "heldout_after_greedy": after.get("greedy/success")}


def ceiling(sync: dict, asynchronous: dict) -> float | None:
    """(sync play + sync update) / max(async play / workers, async update): a perfect overlap's speedup
    (``workers`` workers each play every ``workers``-th batch)."""
    s, a = sync.get("phase_seconds", {}), asynchronous["phase_seconds"]
    if None in (s.get("play"), s.get("update"), a["play"], a["update"]):
        return None
    return (s["play"] + s["update"]) / max(a["play"] / asynchronous.get("workers", 1), a["update"])


def summarise(runs: list[dict]) -> dict:
    """Per way of running: the seeds' means, and for async the per-seed ratios to sync, averaged:
    ``speedup`` (whole run), ``steady_speedup`` (after each run's first step) and ``ceiling``."""
    summary = {}
    for key in sorted({(r["mode"], r["max_staleness"]) for r in runs}, key=str):
        mine = [r for r in runs if (r["mode"], r["max_staleness"]) == key]
        name = "sync" if key[0] == "sync" else f"async_s{key[1]}"
        summary[name] = {field: round(statistics.mean(r[field] for r in mine), 4)
                         for field in ("steps_per_s", "steady_steps_per_s", "agent_tokens_per_s", "heldout_after",
                                       "heldout_after_greedy", "dropped_share")
                         if all(r.get(field) is not None for r in mine)}
    for name, values in summary.items():
        if name == "sync":
            continue
        pairs = [(s, a) for a in runs for s in runs if s["mode"] == "sync" and a["mode"] == "async"
                 and f"async_s{a['max_staleness']}" == name and a["seed"] == s["seed"]]
        for label, ratio in (("speedup", lambda s, a: a["steps_per_s"] / s["steps_per_s"]),
                             ("steady_speedup", lambda s, a: a["steady_steps_per_s"] / s["steady_steps_per_s"]
                              if a.get("steady_steps_per_s") and s.get("steady_steps_per_s") else None),
                             ("ceiling", lambda s, a: ceiling(s, a) if "phase_seconds" in a else None)):
            ratios = [ratio(s, a) for s, a in pairs]
            if label == "speedup" or (ratios and None not in ratios):
                values[label] = round(statistics.mean(ratios), 3) if ratios else None
    return summary


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--staleness", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sync-threads", type=int, default=2, help="torch threads of the synchronous run")
    parser.add_argument("--async-threads", type=int, default=1, help="torch threads of the asynchronous trainer")
    parser.add_argument("--worker-threads", type=int, default=None, help="torch threads of each worker (default: "
                        "--async-threads)")
    parser.add_argument("--workers", type=int, default=1, help="rollout workers (rollout.async.workers)")
    parser.add_argument("--entry", default="household", help="the entry of bench/throughput/async_rollouts.json to write (replaced; the others are kept)")
    parser.add_argument("overrides", nargs="*", help="extra key=value overrides for every run")
    args = parser.parse_args(argv)
    args.worker_threads = args.worker_threads or args.async_threads
    os.chdir(ROOT)  # the default warm-start cache
    # the code measured: the commit when the runs start (uncommitted changes are flagged)
    commit = commit_of(ROOT)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                           cwd=ROOT).stdout.strip()
    runs = []
    with tempfile.TemporaryDirectory() as work:
        for seed in args.seeds:
            for mode, staleness in [("sync", 0), *(("async", s) for s in args.staleness)]:
                runs.append(run(mode, staleness, seed, args, Path(work)))
                print(json.dumps(runs[-1]), flush=True)
    record = {"command": " ".join([".venv/bin/python -m bench.throughput.async_rollouts", *(argv or sys.argv[1:])]),
              "commit": commit + (" (with uncommitted changes)" if dirty else ""), "date": datetime.date.today().isoformat(),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "seeds": args.seeds, "steps": args.steps,
              "sync_threads": args.sync_threads, "async_threads": args.async_threads, "worker_threads": args.worker_threads,
              "workers": args.workers,
              "summary": summarise(runs), "runs": runs}
    save_entry(Path(__file__).with_suffix(".json"), args.entry, record, argv or sys.argv[1:])
    print(json.dumps(record["summary"], indent=2))
    return record


if __name__ == "__main__":
    main()
