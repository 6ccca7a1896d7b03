"""RAO on TextCraft-Synth as a user runs it (issue 46): ``make train ALGO=rao ARGS="env=textcraft_synth seed=<s>"``
from a fresh clone, one entry per seed, and where each run's final agents fail on extreme tasks.

The runs are played by ``bench/methods/headline_runs.sh`` (its ``ALGO:SEED:THREADS:OVERRIDES`` form writes the
overrides on the log's first line); this script reads each log and its run folder as the headline record does
(``bench.methods.headline_runs.entry_of``: command, commit, seed, torch threads, wall time, warm start, the report's
medium and hard rows for both agents), and with ``--extreme-tasks N`` plays the run's final policies
(``policy/``, ``flat_policy/``) greedily on the first N extreme tasks (``env.ood_band=extreme``, depth 10-12), every
turn sorted by what it was and how it went (``rao_textcraft_synth_failures.sorted_failures``)::

    bash bench/methods/headline_runs.sh CLONE rao:0::env=textcraft_synth rao:1::env=textcraft_synth rao:2::env=textcraft_synth
    .venv/bin/python -m bench.methods.rao.rao_textcraft_synth CLONE/hl-rao-env_textcraft_synth-s*.log --fresh-clone \\
        --extreme-tasks 10

Entries are named ``rao_textcraft_synth_s<seed>_t<threads>``; collecting a run again replaces its entry.
``docs/results_tables.py`` turns the record into the RAO README's table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from bench.methods.headline_runs import entry_name, entry_of, run_folder
from bench.methods.rao.rao_textcraft_synth_failures import SPLITS, sorted_failures
from bench.records import save_entry

RECORD = Path(__file__).with_suffix(".json")
QUESTION = ("what `make train ALGO=rao ARGS=\"env=textcraft_synth\"` gives from a fresh clone, per seed: recursive vs "
            "flat on medium (train) and hard (test), and where the final agents fail on extreme")


def extreme(run: Path, seed: int, tasks: int) -> dict:
    """The run's final recursive and flat agents on the first ``tasks`` extreme tasks, greedy, turns sorted."""
    overrides = [f"seed={seed}", "env.ood_band=extreme"]
    start = time.perf_counter()
    rows = sorted_failures(tasks, str(run / "policy"), str(run / "flat_policy"), overrides, splits=SPLITS[1:])
    return {"tasks": tasks, "seconds": round(time.perf_counter() - start, 1), "overrides": overrides,
            **{agent: rows[f"{agent}/extreme"] for agent in ("recursive", "flat")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path, help="headline_runs.sh logs of rao:<seed>::env=textcraft_synth")
    parser.add_argument("--fresh-clone", action="store_true", help="the logs' checkout was cloned for these runs")
    parser.add_argument("--extreme-tasks", type=int, default=0, help="extreme tasks each final agent plays (0: none)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    for log in args.logs:
        new = entry_of(log, args.fresh_clone)
        if new["env"] != "textcraft_synth" or new["algo"] != "rao":
            raise SystemExit(f"{log}: a run of algo={new['algo']} env={new['env']}, not rao on textcraft_synth")
        if args.extreme_tasks:
            new["extreme"] = extreme(run_folder(log), new["seed"], args.extreme_tasks)
        name = entry_name(new)
        save_entry(RECORD, name, new, new.pop("argv"), QUESTION)
        print(f"{log}: {name}, {new['wall_seconds']} s, rc {new['returncode']}")


if __name__ == "__main__":
    main()
