"""Time to the first training step of each paper preset (``configs/experiment/``), SmolLM2-135M
standing in for the paper's model on this CPU.

What a researcher waits for before the first optimizer step of ``experiment=<preset>``: config,
environment, model load, the algorithm's set-up, and whatever else the run computes first. Each
preset runs in its own process, as ``coevo-train`` would, with its small CPU sizes
(``tests/presets/small_runs.py``) and the held-out evaluations off (they are work the run uses,
timed elsewhere); the process stops when the first training batch starts.

    .venv/bin/python -m bench.throughput.preset_startup                      # every preset
    .venv/bin/python -m bench.throughput.preset_startup --preset rsipo_alfworld_qwen2.5_3b --label before

Needs ``coevo-core[smollm2]`` (the model), ``coevo-envs[alfworld]`` and the shared data folders.
Appends one record (command, commit, date, threads, seconds per preset) to
``bench/throughput/preset_startup.json``.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.records import commit_of

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).with_name("preset_startup.json")


def small_runs():
    """``tests/presets/small_runs.py``: the presets' small CPU sizes (one definition for suite and bench)."""
    spec = importlib.util.spec_from_file_location("small_runs", ROOT / "tests" / "presets" / "small_runs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FirstStep(Exception):
    """Raised when the first training batch starts: the measurement is over."""


def child(preset: str, model_path: str, work: str, threads: int) -> None:
    """One preset in this process: prints ``{"seconds": ...}``, the time from process start to the first step."""
    import lightning as L
    import torch

    from coevo.core.cli import train
    from coevo.core.cli.config_sources import compose_config

    torch.set_num_threads(threads)
    started = float(os.environ["PRESET_STARTUP_T0"])

    class StopAtFirstStep(L.Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            raise FirstStep(time.time() - started)

    make_trainer = train.make_trainer
    train.make_trainer = lambda settings, run_dir, tokenizer, extra=(), model=None: make_trainer(
        settings, run_dir, tokenizer, [*extra, StopAtFirstStep()], model)
    runs = small_runs()
    overrides = runs.overrides(preset, model_path, Path(work) / "run", Path(work) / "cache")
    cfg = compose_config("train", [*overrides, "eval.before=false", "eval.after=false",
                                   f"trainer.cpu_threads={threads}"], repository=str(ROOT / "configs"))
    try:
        train.run(cfg)
    except FirstStep as reached:
        print(json.dumps({"seconds": round(reached.args[0], 1)}))
        return
    raise SystemExit("the run ended without a training step")


def measure(preset: str, model_path: str, threads: int, timeout: float) -> float | str:
    """Seconds to the first step of ``preset`` in a fresh process (or why it failed)."""
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "PRESET_STARTUP_T0": str(time.time())}
        command = [sys.executable, "-m", "bench.throughput.preset_startup", "--child", preset, "--model-path", model_path, "--work", work,
                   "--threads", str(threads)]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return f"more than {timeout:.0f} s"
    for line in reversed(done.stdout.splitlines()):
        if line.startswith('{"seconds"'):
            return json.loads(line)["seconds"]
    return f"failed (exit {done.returncode}): {' '.join(done.stderr.strip().splitlines()[-2:])[:300]}"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", action="append", help="a preset of configs/experiment/ (repeatable; default all)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before a preset counts as too slow")
    parser.add_argument("--label", default="", help="a name for this record (before / after …)")
    parser.add_argument("--model-path", default="", help="a model folder (default: SmolLM2-135M, converted once)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.model_path, args.work, args.threads)
        return {}
    model_path = args.model_path
    if not model_path:
        from coevo.core.policy.smollm2 import FOLDER, smollm2_folder

        model_path = str(smollm2_folder(ROOT / ".cache" / "coevo" / "models" / FOLDER))
    presets = args.preset or small_runs().PRESETS
    seconds = {}
    for preset in presets:
        seconds[preset] = measure(preset, model_path, args.threads, args.timeout)
        print(f"{preset}: {seconds[preset]} s to the first training step", flush=True)
    record = {"label": args.label, "command": " ".join(["python -m bench.throughput.preset_startup", *(argv or sys.argv[1:])]),
              "commit": commit_of(), "date": datetime.date.today().isoformat(), "torch_threads": args.threads,
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", "model": "SmolLM2-135M-Instruct (float32)",
              "seconds_to_first_step": seconds}
    records = json.loads(args.out.read_text()) if args.out.is_file() else []
    args.out.write_text(json.dumps([*records, record], indent=2) + "\n")
    return record


if __name__ == "__main__":
    main()
