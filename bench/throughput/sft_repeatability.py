"""Does a warm start come out the same when it is built twice? Eager vs ``torch.compile``, per CPU thread count.

Each build is a fresh ``coevo-train`` process with its own empty warm-start cache (``warmstart.cache_dir``),
stopped after one RL step with no evaluation; its ``warmstart.json`` gives the final SFT loss, compared
to the bit between the builds of one setting. A setting repeats when every build ends at the same loss.
Measured 2026-12-06 on RAO's longctx warm start (40 episodes, 1 epoch, by hand with the same commands):
eager repeats at 1 and 2 threads, compiled repeats at 1 thread, and two compiled builds over 2 threads
ended at 0.706 and 0.557 (``packages/rao/README.md``, Measured)::

    python -m bench.throughput.sft_repeatability --builds 2 --threads 2 warmstart.episodes=20 warmstart.sft.epochs=1

The arguments after the options are train overrides (``algo=rao`` and its longctx preset by default).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.records import commit_of, settings_of

RECORD = Path(__file__).with_suffix(".json")
BASE = ["algo=rao", "seed=0", "trainer.max_steps=1", "trainer.progress_bar=false", "eval.before=false",
        "eval.after=false", "algo.report.num_tasks=0"]


def build(overrides: list[str], compile_sft: bool, threads: int, folder: Path) -> dict:
    """One warm-start build in a fresh process and cache: its final SFT loss and wall seconds."""
    command = [sys.executable, "-m", "coevo.core.cli.train", *BASE, *overrides,
               f"warmstart.sft.compile={str(compile_sft).lower()}", f"trainer.cpu_threads={threads}",
               f"warmstart.cache_dir={folder / 'cache'}", f"run_dir={folder / 'run'}"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"build failed (rc {done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    (stats,) = [json.loads(p.read_text()) for p in (folder / "cache").glob("*/warmstart.json")]
    return {"final_sft_loss": stats["final_sft_loss"], "key": stats["key"],
            "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=2, help="builds per setting (at least 2)")
    parser.add_argument("--threads", default="1,2", help="comma-separated CPU thread counts")
    args, overrides = parser.parse_known_args(argv)
    threads_list = [int(t) for t in args.threads.split(",") if t.strip().isdigit()]
    if args.builds < 2 or not threads_list or min(threads_list) < 1:
        parser.error("--builds needs at least 2 and --threads positive counts")
    settings = []
    with tempfile.TemporaryDirectory() as tmp:
        for threads in threads_list:
            for compile_sft in (False, True):
                builds = [build(overrides, compile_sft, threads, Path(tmp) / f"t{threads}-c{int(compile_sft)}-{i}")
                          for i in range(args.builds)]
                losses = [b["final_sft_loss"] for b in builds]
                settings.append({"threads": threads, "compile": compile_sft, "repeats": len(set(losses)) == 1,
                                 "final_sft_loss": losses, "seconds": [b["seconds"] for b in builds]})
                print(f"{threads} thread(s), {'compiled' if compile_sft else 'eager'}: final SFT loss "
                      f"{' / '.join(repr(x) for x in losses)} -> {'repeats' if settings[-1]['repeats'] else 'DIFFERS'}",
                      flush=True)
    command_line = list(argv or sys.argv[1:])
    record = {"command": " ".join(["python -m bench.throughput.sft_repeatability", *command_line]),
              "settings": settings_of(command_line), "commit": commit_of(), "date": datetime.date.today().isoformat(),
              "seed": 0, "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}", "builds": args.builds,
              "overrides": [*BASE, *overrides], "settings_measured": settings}
    RECORD.write_text(json.dumps(record, indent=2) + "\n")
    print(f"record: {RECORD}")


if __name__ == "__main__":
    main()
