"""Does an external agent train through the endpoint as coevo's own loop trains? GRPO curves of both paths.

The same GRPO run, over seeds, two ways (``--paths``): coevo's own agent loop in generate mode
(``loop``), and the plain ``openai``-client agent of ``examples/openai_agent_household.py`` playing every
training episode through the endpoint (``endpoint``, ``agent=openai_client``). Same warm-started tiny
model, tasks, seeds and sample count; the held-out success before and after (sampled and greedy) comes
from coevo's evaluation of each run's policy. Each run is a fresh ``coevo-train`` process on one torch
thread; ``--parallel`` runs that many at once (the record says how many)::

    python -m bench.serving.external_agent_household --seeds 0 1 2 --parallel 2 --entry tiny-generate-30steps trainer.max_steps=30

Two paths agree within noise when the difference of their mean held-out gains is under two standard
errors (each run's binomial error over its held-out episodes, and the spread over seeds). ``--collect``
reads the run folders of an earlier call instead of training. Arguments after the options are train
overrides for both paths.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.records import commit_of, save_entry

RECORD = Path(__file__).with_suffix(".json")
QUESTION = ("Does a plain openai-client agent, trained by GRPO through coevo's endpoint, improve as the same "
            "run through coevo's own agent loop does (held-out success before and after, over seeds)?")
COMMON = ["algo=grpo", "trainer.cpu_threads=1", "trainer.progress_bar=false"]
PATHS = {  # agent=openai_client starts from agent=generate: the same warm start, prompt layout and sampling
    "loop": ["agent=generate"],
    "endpoint": ["agent=openai_client", f"external.command='{sys.executable} examples/openai_agent_household.py'"],
}


def command_of(path: str, seed: int, run_dir: Path, overrides: list[str]) -> list[str]:
    return [sys.executable, "-m", "coevo.core.cli.train", *COMMON, *PATHS[path], *overrides, f"seed={seed}",
            f"run_dir={run_dir}"]


def train(command: list[str], run_dir: Path, warm: threading.Event, first: bool) -> float:
    """Run one training command (its output in ``<run_dir>.log``); its wall seconds. The first run builds
    the shared warm start (or finds it cached): the others start once it has evaluated its warm start."""
    if not first:
        warm.wait()
    start = time.perf_counter()
    with open(f"{run_dir}.log", "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "COLUMNS": "120"})
        while process.poll() is None:
            if first and (run_dir / "eval_before.json").is_file():
                warm.set()
            time.sleep(1)
    warm.set()
    if process.returncode != 0:
        raise SystemExit(f"run failed (rc {process.returncode}), see {run_dir}.log: {' '.join(command)}")
    return round(time.perf_counter() - start, 1)


def run_of(run_dir: Path) -> dict:
    """One run's curve and held-out numbers, read from its folder."""
    steps = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    steps = [s for s in steps if "train/success" in s]
    before, after = (json.loads((run_dir / f"eval_{when}.json").read_text()) for when in ("before", "after"))
    return {
        "train_success_per_step": [round(s["train/success"], 4) for s in steps],
        "train_invalid_rate_per_step": [round(s["train/invalid_rate"], 4) for s in steps
                                        if "train/invalid_rate" in s],
        "heldout_before": {"sampled": round(before["success"], 4), "greedy": round(before["greedy/success"], 4)},
        "heldout_after": {"sampled": round(after["success"], 4), "greedy": round(after["greedy/success"], 4)},
        "invalid_rate_before_after": [round(before["invalid_rate"], 4), round(after["invalid_rate"], 4)],
    }


def binomial_se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 0.0) / n)


def gain_summary(runs: list[dict], episodes: int) -> dict:
    """Mean held-out gain (after - before, sampled) over seeds and its standard error: the larger of the
    spread over seeds and the runs' own binomial error (before and after are independent samples)."""
    gains = [r["heldout_after"]["sampled"] - r["heldout_before"]["sampled"] for r in runs]
    noise = [binomial_se(r["heldout_before"]["sampled"], episodes) ** 2
             + binomial_se(r["heldout_after"]["sampled"], episodes) ** 2 for r in runs]
    within = math.sqrt(sum(noise)) / len(runs)
    spread = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else 0.0
    greedy = [r["heldout_after"]["greedy"] - r["heldout_before"]["greedy"] for r in runs]
    return {"gains": [round(g, 4) for g in gains], "mean_gain": round(statistics.mean(gains), 4),
            "standard_error": round(max(within, spread), 4), "greedy_gains": [round(g, 4) for g in greedy],
            "mean_greedy_gain": round(statistics.mean(greedy), 4)}


def agreement(loop: dict, endpoint: dict) -> dict:
    """The endpoint's mean gain minus the loop's, its standard error, and whether it is within two."""
    difference = endpoint["mean_gain"] - loop["mean_gain"]
    error = math.hypot(loop["standard_error"], endpoint["standard_error"])
    return {"endpoint_minus_loop": round(difference, 4), "standard_error": round(error, 4),
            "within_two_standard_errors": abs(difference) <= 2 * error}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS))
    parser.add_argument("--parallel", type=int, default=2, help="runs at once (each on one torch thread)")
    parser.add_argument("--runs", default="runs/bench-external-agent", help="folder of the run folders")
    parser.add_argument("--heldout-episodes", type=int, default=240, help="held-out sampled episodes per eval")
    parser.add_argument("--collect", action="store_true", help="read the run folders of an earlier call")
    parser.add_argument("--entry", default="tiny-generate")
    argv = sys.argv[1:] if argv is None else argv
    args, overrides = parser.parse_known_args(argv)
    if args.parallel < 1 or args.heldout_episodes < 1:
        parser.error("--parallel and --heldout-episodes must be at least 1")
    root = Path(args.runs)
    root.mkdir(parents=True, exist_ok=True)
    jobs = [(path, seed, root / f"{path}-s{seed}") for seed in args.seeds for path in args.paths]
    commands = {f"{p}-s{s}": command_of(p, s, d, overrides) for p, s, d in jobs}
    seconds: dict[str, float] = {}
    if not args.collect:
        warm = threading.Event()
        with ThreadPoolExecutor(args.parallel) as pool:
            done = pool.map(lambda i: train(commands[f"{jobs[i][0]}-s{jobs[i][1]}"], jobs[i][2], warm, i == 0),
                            range(len(jobs)))
            seconds.update({f"{p}-s{s}": t for (p, s, _), t in zip(jobs, done)})
    runs = {name: {**run_of(root / name), "seconds": seconds.get(name)} for name in commands}
    summary = {path: gain_summary([runs[f"{path}-s{s}"] for s in args.seeds], args.heldout_episodes)
               for path in args.paths}
    record = {
        "command": " ".join(["python -m bench.serving.external_agent_household", *argv]),
        "train_commands": {name: " ".join(c) for name, c in commands.items()},
        "commit": commit_of(), "date": datetime.date.today().isoformat(), "seeds": args.seeds, "threads": 1,
        "parallel": args.parallel, "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "runs": runs, "summary": summary,
    }
    if set(summary) == set(PATHS):
        record["agreement"] = agreement(summary["loop"], summary["endpoint"])
    save_entry(RECORD, args.entry, record, argv, QUESTION)
    print(json.dumps({"summary": summary, "agreement": record.get("agreement")}, indent=1))


if __name__ == "__main__":
    main()
