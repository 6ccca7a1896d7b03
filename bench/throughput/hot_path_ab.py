"""Wall time of the default training commands (``make train ALGO=...``) before and after a change.

"Before" and "after" are git worktrees of two revisions (e.g. HEAD, and HEAD with the change
reverted); each run puts its tree's ``packages/*/src`` first on ``PYTHONPATH`` and runs in that
tree (its ``configs/``), so nobody's uncommitted work takes part. Both share one warm-start cache
(this checkout's ``.cache/coevo/warmstart``). Each command runs the CLI exactly as ``make train``
does, with fewer steps and no evaluations (the training steps are what changed), in a fresh
process; before/after alternate (ABBA...) over ``--repeats``. Printed per command: median step
time (each run's first step excluded), the whole process's wall time (the least disturbed run: the
first run of a fresh checkout also builds the warm start), and after/before.

    python -m bench.throughput.hot_path_ab --before <git rev> [--after HEAD] [--repeats 2] [--only grpo,rsipo]
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
COMMANDS = {  # name: (make train equivalent, hydra overrides, steps)
    "grpo": ("make train ALGO=grpo", ["algo=grpo"], 3),
    "grpo-math": ('make train ALGO=grpo ARGS="env=math"', ["algo=grpo", "env=math"], 8),
    "rsipo": ("make train ALGO=rsipo", ["algo=rsipo"], 3),
}


def worktree(rev: str) -> Path:
    path = Path(tempfile.gettempdir()) / f"coevo-rev-{rev[:12]}"
    if not path.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev], check=True)
    return path


def run_once(tree: Path, overrides: list[str], steps: int, tmp: Path, tag: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in sorted(tree.glob("packages/*/src")))}
    out = tmp / f"{tag}.json"
    args = [sys.executable, str(Path(__file__).with_name("hot_path") / "timed_cli.py"), str(out), *overrides,
            f"trainer.max_steps={steps}", "eval.before=false", "eval.after=false", "trainer.progress_bar=false",
            f"run_dir={tmp / tag}", "overwrite=true", f"warmstart.cache_dir={ROOT / '.cache' / 'coevo' / 'warmstart'}"]
    start = time.perf_counter()
    with open(tmp / f"{tag}.log", "w") as log:
        done = subprocess.run(args, cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{tag} failed: see {tmp / (tag + '.log')}")
    return {"wall_seconds": wall, **json.loads(out.read_text())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="git revision of the 'before' code")
    parser.add_argument("--after", default="HEAD", help="git revision of the 'after' code")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--only", default=",".join(COMMANDS), help="comma-separated: " + ",".join(COMMANDS))
    parser.add_argument("--out", default=str(Path(__file__).with_name("hot_path_ab.json")))
    args = parser.parse_args()
    revs = {side: subprocess.run(["git", "-C", str(ROOT), "rev-parse", getattr(args, side)], check=True,
                                 capture_output=True, text=True).stdout.strip() for side in ("before", "after")}
    trees = {side: worktree(rev) for side, rev in revs.items()}
    tmp = Path(tempfile.mkdtemp(prefix="bench-hot-path-"))
    results, loads, started = {}, [os.getloadavg()[0]], time.time()
    for name in args.only.split(","):
        make_cmd, overrides, steps = COMMANDS[name]
        runs = {"before": [], "after": []}
        for repeat in range(args.repeats):
            for side in (("before", "after") if repeat % 2 == 0 else ("after", "before")):
                runs[side].append(run_once(trees[side], overrides, steps, tmp, f"{name}-{side}-{repeat}"))
                loads.append(os.getloadavg()[0])
                r = runs[side][-1]
                print(f"{name} {side:6} #{repeat}: steps {[round(s, 1) for s in r['step_seconds']]} s, "
                      f"wall {r['wall_seconds']:.0f} s", flush=True)
        summary = {}
        for side, rs in runs.items():
            steady = [s for r in rs for s in r["step_seconds"][1:]]
            summary[side] = {"median_step_seconds": statistics.median(steady),
                             "min_wall_seconds": min(r["wall_seconds"] for r in rs)}
        step_ratio = summary["after"]["median_step_seconds"] / summary["before"]["median_step_seconds"]
        wall_ratio = summary["after"]["min_wall_seconds"] / summary["before"]["min_wall_seconds"]
        results[name] = {"command": f"{make_cmd} (trainer.max_steps={steps}, evaluations off)", "runs": runs,
                         "summary": summary, "step_ratio_after_over_before": step_ratio,
                         "wall_ratio_after_over_before": wall_ratio}
        print(f"{name}: median step {summary['before']['median_step_seconds']:.1f} s -> "
              f"{summary['after']['median_step_seconds']:.1f} s (x{step_ratio:.2f}); wall "
              f"{summary['before']['min_wall_seconds']:.0f} s -> {summary['after']['min_wall_seconds']:.0f} s "
              f"(x{wall_ratio:.2f})", flush=True)
    record = {
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(started)),
        "machine": f"{platform.machine()}, {os.cpu_count()} logical CPUs", "load_average": loads,
        "before": revs["before"], "after": revs["after"], "results": results,
    }
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
