"""The headline rows of the README: what ``make train ALGO=…`` gives, one entry per run, read from its run folder.

Each run is a ``make train ALGO=<algo> ARGS="seed=<s> …"`` whose output went to a log file that starts with a
line ``== <algo> seed <s> start <ISO time> load …`` and ends with ``== rc <rc> wall <seconds> s end …``
(``bench/methods/headline_runs.sh`` writes such logs). This script reads each log, finds the run folder the run
printed, and stores in the record everything a table needs: the command, the commit of the checkout it ran in,
seed, torch threads, machine, date, wall time, whether the checkout was a fresh clone, the warm start (built or
cached, its cache key and final SFT loss: runs with one key in one checkout share a build), and the held-out
evaluations before and after training (every number of ``eval_before.json`` / ``eval_after.json``)::

    bash bench/methods/headline_runs.sh CHECKOUT grpo:0 grpo:1 …     # plays the runs, one after another
    python -m bench.methods.headline_runs CHECKOUT/hl-*.log --fresh-clone

Each run is one entry of ``bench/methods/headline_runs.json``, named ``<algo>_s<seed>_t<threads>``: collecting
a run again replaces its entry. ``commit`` is the checkout's HEAD when the logs are collected: collect before
moving it. ``docs/results_tables.py`` turns the record into the README's and the docs' headline tables.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
from pathlib import Path

import yaml

from bench.records import commit_of, save_entry

RECORD = Path(__file__).with_suffix(".json")
QUESTION = "what `make train ALGO=…` gives with its defaults, per seed and torch threads"
START = re.compile(r"^== (?P<algo>\w+) seed (?P<seed>\d+)(?: threads (?P<threads>\d+))? start (?P<date>\S+) "
                   r"load (?P<load>[\d. ]+?)(?: overrides (?P<overrides>.+))?$")
END = re.compile(r"^== rc (?P<rc>-?\d+) wall (?P<wall>\d+) s end (?P<end>\S+) load (?P<load>[\d. ]+)$")
RUN_FOLDER = re.compile(r"TensorBoard logs: (?P<folder>\S+)/tb\b")
WARM_START = re.compile(r"warm start: .*\((?P<state>building…|cached)\)")
# the warm start's model folder (its cache key) and final SFT loss, printed whether built or cached
WARM_START_MODEL = re.compile(r"model folder \S*?(?P<key>[0-9a-f]{16}) \(.*?SFT loss (?P<loss>[\d.]+), built", re.S)


def _numeric(data: dict) -> dict[str, float]:
    return {k: v for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _numbers(path: Path) -> dict[str, float]:
    """Every numeric value of an evaluation summary (``eval_before.json`` / ``eval_after.json``)."""
    return _numeric(json.loads(path.read_text())) if path.exists() else {}


def _report_rows(run: Path, config: dict) -> list[dict] | None:
    """RAO's report (``algo.report.json``): per size, its label and each agent's numbers (recursive, flat,
    the warm start's "before"); ``None`` for an algorithm without one."""
    name = ((config.get("algo") or {}).get("report") or {}).get("json")
    path = run / name if name else None
    if path is None or not path.exists():
        return None
    return [{"short": row.get("short"), "value": row.get("value"), "label": row.get("label"), "split": row.get("split"),
             **{agent: _numeric(row[agent]) for agent in ("before", "recursive", "flat") if isinstance(row.get(agent), dict)}}
            for row in json.loads(path.read_text())]


def _torch_threads(setting: object) -> int:
    """What ``trainer.cpu_threads`` resolved to: ``auto`` is the usable cores of one process."""
    return len(os.sched_getaffinity(0)) if setting in (None, "auto") else int(setting)


def _commit(checkout: Path) -> str:
    return commit_of(checkout) or "unknown"


def run_folder(log: Path, text: str | None = None, note: str = "") -> Path:
    """The run folder the log's run printed (``TensorBoard logs: <folder>/tb``, perhaps wrapped), under the log's
    checkout; ``text``: the log's text when already read, ``note``: added to the error."""
    text = log.read_text(errors="replace") if text is None else text
    folder = RUN_FOLDER.search(text.replace("\n", " "))
    if folder is None:
        raise SystemExit(f"{log}: the run printed no run folder{note}; nothing to collect")
    return log.resolve().parent / folder["folder"]


def entry_of(log: Path, fresh_clone: bool) -> dict:
    """One run's entry, from its log and the run folder the log names."""
    lines = log.read_text(errors="replace").splitlines()
    start, end = START.match(lines[0]), next((END.match(x) for x in reversed(lines) if END.match(x)), None)
    if start is None or end is None:
        raise SystemExit(f"{log}: not a finished headline log (first line '== <algo> seed …', last '== rc …')")
    checkout = log.resolve().parent
    text = "\n".join(lines)
    run = run_folder(log, text, f" (rc {end['rc']})")
    config = yaml.safe_load((run / "config.yaml").read_text())
    warm = WARM_START.search(text)
    model = WARM_START_MODEL.search(text)
    overrides = start["overrides"].split() if start["overrides"] else []
    argv = [*overrides, f"seed={start['seed']}", *([f"trainer.cpu_threads={start['threads']}"] if start["threads"] else [])]
    entry = {
        "algo": start["algo"], "seed": int(start["seed"]), "overrides": overrides,
        "command": f"make train ALGO={start['algo']} ARGS=\"{' '.join(argv)}\"",
        "argv": argv,
        "torch_threads": _torch_threads(config.get("trainer", {}).get("cpu_threads")),
        "commit": _commit(checkout), "fresh_clone": fresh_clone,
        "warm_start": {"building…": "built", "cached": "cached"}.get(warm["state"]) if warm else None,
        "warm_start_key": model["key"] if model else None,  # runs that share a key share one warm-start build
        "warm_start_sft_loss": float(model["loss"]) if model else None,
        # the first make target of a fresh clone sets up .venv (with pip, or with uv through .ci/pip.sh)
        "venv_built": re.search(r"\bpip(?:\.sh)? install\b", text) is not None,
        "date": start["date"], "wall_seconds": int(end["wall"]), "returncode": int(end["rc"]),
        "load_average_at_start": [float(x) for x in start["load"].split()],  # 1, 5, 15 minutes
        "load_average_at_end": [float(x) for x in end["load"].split()],
        "machine": {"system": platform.system(), "machine": platform.machine(), "cores": os.cpu_count()},
        "env": config.get("env", {}).get("name"),
        "before": _numbers(run / "eval_before.json"), "after": _numbers(run / "eval_after.json"),
        "report": _report_rows(run, config),
    }
    summary = run / "evoheir_summary.json"  # EVOHEIR's own held-out line (greedy), round 0 and after the last round
    if summary.exists():
        rounds = json.loads(summary.read_text())
        entry["before"]["rounds/heldout"] = rounds["heldout_round0"]
        entry["after"]["rounds/heldout"] = rounds["rounds"][-1]["heldout"] if rounds["rounds"] else rounds["heldout_round0"]
    return entry


def entry_name(entry: dict) -> str:
    """``<algo>_s<seed>_t<threads>``, the overrides (if any) after the algorithm: ``rao_textcraft_synth_s0_t2``
    for ``env=textcraft_synth`` (each override's value, non-alphanumerics as ``_``)."""
    values = [re.sub(r"\W+", "_", o.split("=", 1)[-1]).strip("_") for o in entry["overrides"]]
    return "_".join([entry["algo"], *values, f"s{entry['seed']}", f"t{entry['torch_threads']}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--fresh-clone", action="store_true", help="the logs' checkout was cloned for these runs")
    parser.add_argument("--record", type=Path, default=RECORD)
    args = parser.parse_args()
    for log in args.logs:
        new = entry_of(log, args.fresh_clone)
        name = entry_name(new)
        save_entry(args.record, name, new, new.pop("argv"), QUESTION)
        print(f"{log}: {name}, {new['wall_seconds']} s, rc {new['returncode']}")


if __name__ == "__main__":
    main()
