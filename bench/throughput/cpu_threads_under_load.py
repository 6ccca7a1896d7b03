"""`coevo-eval` on a busy CPU: OpenMP's waiting threads spinning (the old default) against sleeping.

The same evaluation (a tiny household policy, ``--tasks`` tasks × ``--samples`` sampled episodes)
runs as a whole ``python -m coevo.core.cli.eval`` process under four thread settings, while 0, 1
or 2 busy processes (``while True: pass``) share the machine. Within each load level the settings
alternate, ``--repeats`` times, so they see the same machine; the table gives the median seconds.

- ``spin, 2 threads``: torch's default threads with libgomp's default wait (spin ~300,000
  iterations before sleeping; ``GOMP_SPINCOUNT=300000`` keeps coevo from choosing a policy);
- ``spin, 1 thread``: the same with ``OMP_NUM_THREADS=1``;
- ``passive, 2 threads``: coevo's default now (``OMP_WAIT_POLICY=PASSIVE``, set by ``coevo.core``);
- ``passive, 1 thread``.

    python -m bench.throughput.cpu_threads_under_load [--tasks 10] [--samples 4] [--repeats 2] [--loads 0 1 2]
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
SETTINGS = {
    "spin, 2 threads": {"GOMP_SPINCOUNT": "300000"},
    "spin, 1 thread": {"GOMP_SPINCOUNT": "300000", "OMP_NUM_THREADS": "1"},
    "passive, 2 threads": {},
    "passive, 1 thread": {"OMP_NUM_THREADS": "1"},
}


def build_policy(folder: Path) -> None:
    """A tiny household policy (random weights, tokenizer trained on expert episodes), in a subprocess."""
    code = f"""
from coevo.core import registry
from coevo.core.agent.prompt import PromptSettings
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.policy.builders import TinyBuilder, TinyBuilderConfig
from coevo.core.policy.saving import save_policy_folder
env = registry.envs.get("household")(registry.envs.get("household").Config())
data = collect_expert_examples(env, PromptSettings(), 50, "train", 0)
model, tokenizer = TinyBuilder(TinyBuilderConfig()).build(lambda: corpus_texts(data.examples))
save_policy_folder(model, tokenizer, {str(folder)!r})
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def clean_environment() -> dict[str, str]:
    """This process's environment without any OpenMP setting (each setting adds its own)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_", "MKL_NUM"))}


def timed_eval(folder: Path, setting: dict[str, str], tasks: int, samples: int) -> float:
    command = [sys.executable, "-m", "coevo.core.cli.eval", f"checkpoint={folder}", "env=household",
               f"eval.num_tasks={tasks}", f"eval.samples_per_task={samples}", "eval.also_greedy=false"]
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, env={**clean_environment(), **setting},
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def busy_processes(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--loads", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", default=str(Path(__file__).with_name("cpu_threads_under_load.json")))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "policy"
        build_policy(folder)
        runs: dict[str, dict[str, list[float]]] = {}
        for load in args.loads:
            busy = busy_processes(load)
            try:
                times = {name: [] for name in SETTINGS}
                for _ in range(args.repeats):
                    for name, setting in SETTINGS.items():
                        times[name].append(round(timed_eval(folder, setting, args.tasks, args.samples), 2))
                runs[str(load)] = times
            finally:
                for process in busy:
                    process.kill()
            medians = {name: statistics.median(values) for name, values in times.items()}
            print(f"{load} busy: " + "  ".join(f"{name} {seconds:.1f} s" for name, seconds in medians.items()),
                  flush=True)
    table = {load: {name: statistics.median(v) for name, v in times.items()} for load, times in runs.items()}
    print("\n| busy processes | " + " | ".join(SETTINGS) + " |")
    print("| --- |" + " --- |" * len(SETTINGS))
    for load, row in table.items():
        print(f"| {load} | " + " | ".join(f"{row[name]:.1f} s" for name in SETTINGS) + " |")
    record = {
        "command": "python -m bench.throughput.cpu_threads_under_load " + " ".join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "loadavg_at_end": os.getloadavg()},
        "workload": f"coevo-eval, tiny household policy, {args.tasks} tasks x {args.samples} sampled",
        "median_seconds": table,
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
