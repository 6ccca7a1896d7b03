"""HEIRCOMMIT's audit on EVOHEIR's own updates: every acceptance rule on the same proposals.

Runs ``algo=evoheir`` with the audit on (each round's proposal also played on ``--audit-items``
fresh greedy items: its "true" gain) for each seed, side by side, then reads every run's
``rounds.jsonl`` and applies each rule to the same proposals:

- commit-all; random acceptance at HEIRCOMMIT's rate (expected values);
- HEIRCOMMIT empirical (τ = 0; the run's own decisions);
- HEIRCOMMIT certified with the paper's sub-Gaussian bar and with the exact sign test, read offline
  from each round's paired gain and its wins and losses on the confirmation pool (at round t of
  its run, δ_t = δ/(t(t+1))). The run follows the empirical decisions; a certified run would
  propose other updates after its first different decision, so this audits the rules, not the runs.

    .venv/bin/python -m bench.methods.evoheir.evoheir_native_audit --seeds 0 1 --rounds 30 --confirm 1024 --audit-items 1024 \
        --entry m1024
    .venv/bin/python -m bench.methods.evoheir.evoheir_native_audit --read RUN_DIR ... --entry NAME   # existing runs

Harmful: audited gain < 0; useful: > 0. Target (issue 21): harmful share ≤ ⅓ of commit-all's with
≥ 50% of the useful updates kept.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from omegaconf import OmegaConf

from bench.records import save_entry
from coevo.evoheir.audit import summarize_audit
from coevo.evoheir.threshold import BOUNDS, threshold

FIXED_BOUNDS = tuple(b for b in BOUNDS if b != "sequential")  # bars fixed before play: read offline from v, wins, losses

ROOT = Path(__file__).resolve().parents[3]


def launch(seeds: list[int], rounds: int, confirm: int, audit_items: int, folder: Path, extra: list[str]) -> list[Path]:
    """One ``coevo-train`` run per seed, all at once (one torch thread each)."""
    runs, procs = [], []
    for seed in seeds:
        run_dir = folder / f"seed{seed}"
        command = [sys.executable, "-m", "coevo.core.cli.train", "algo=evoheir", f"seed={seed}",
                   "trainer.cpu_threads=1", f"run_dir={run_dir}", "overwrite=true", f"algo.rounds={rounds}",
                   f"trainer.max_steps={rounds}", "algo.audit=true", f"algo.audit_settings.pool_size={audit_items}",
                   f"algo.commit.pool_size={confirm}", "eval.before=false", "eval.after=false", *extra]
        with open(folder / f"seed{seed}.log", "w") as log:  # the child keeps its own handle
            procs.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT))
        runs.append(run_dir)
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit(f"a run failed (exit {proc.returncode}); see its log in {folder}")
    return runs


def run_folders(args: argparse.Namespace) -> list[Path]:
    """The run folders to summarise: ``--read``'s, or one fresh run per seed under ``--folder``."""
    if args.read:
        return [Path(p) for p in args.read]
    folder = ROOT / args.folder
    folder.mkdir(parents=True, exist_ok=True)
    return launch(args.seeds, args.rounds, args.confirm, args.audit_items, folder, args.overrides)


def proposals(run_dir: Path) -> list[dict]:
    """The audited rounds of one run, with the certified decisions read offline."""
    cfg = OmegaConf.load(run_dir / "config.yaml").algo.commit
    rows = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines() if line.strip()]
    out = []
    for r in rows:
        if r.get("true_gain") is None:  # the root itself: nothing was proposed
            continue
        t, v, discordant = r["round"], r["v"], r["wins"] + r["losses"]
        bar = {bound: threshold("certified", t, cfg.pool_size, cfg.sigma, cfg.delta, bound, discordant)
               for bound in FIXED_BOUNDS}
        out.append({"run": run_dir.name, "round": t, "v": v, "true_gain": r["true_gain"], "wins": r["wins"],
                    "losses": r["losses"], "empirical": bool(r["commit"]),
                    **{f"certified_{bound}": v > tau for bound, tau in bar.items()}})
    return out


RULES = ("empirical", *(f"certified_{bound}" for bound in FIXED_BOUNDS))


def audit_table(rows: list[dict]) -> dict:
    """Per rule: ``summarize_audit``'s HEIRCOMMIT row (plus its share as a ratio of commit-all's) and
    random acceptance at that rule's rate; commit-all and the proposal counts once."""
    table = {}
    for rule in RULES:
        summary = summarize_audit([{"commit": r[rule], "true_gain": r["true_gain"]} for r in rows])
        table.setdefault("commit_all", summary["commit_all"])
        table.setdefault("proposals", summary["proposals"])
        share, base = summary["heircommit"]["harmful_share"], summary["commit_all"]["harmful_share"]
        table[rule] = {**summary["heircommit"],
                       "share_ratio_to_commit_all": share / base if base and share == share else None}
        table[f"random_at_rate_of_{rule}"] = summary["random_at_rate"]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--confirm", type=int, default=1024, help="confirmation items per round (m)")
    parser.add_argument("--audit-items", type=int, default=1024)
    parser.add_argument("--folder", default="runs/bench-evoheir-native-audit")
    parser.add_argument("--read", nargs="*", default=None, help="summarise these run folders instead of launching")
    parser.add_argument("--entry", default=None, help="the entry of bench/methods/evoheir/evoheir_native_audit.json to write (replaced; the others are kept) (none: print only)")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for every run")
    args = parser.parse_args()
    start = time.perf_counter()
    runs = run_folders(args)
    rows = [row for run in runs for row in proposals(run)]
    table = audit_table(rows)
    for rule in ("commit_all", *RULES):
        s = table[rule]
        print(f"{rule:22s} accepted {s['accepted']:5.1f}  harmful share {s['harmful_share']:.3f}  "
              f"coverage {s['coverage']:.3f}  useful retention {s['useful_retention']:.3f}")
    print(f"proposals {table['proposals']}")
    if args.entry:
        record = {"command": "python -m bench.methods.evoheir.evoheir_native_audit " + " ".join(sys.argv[1:]),
                  "date": time.strftime("%Y-%m-%d %H:%M"), "machine": platform.platform(),
                  "seconds": round(time.perf_counter() - start, 1), "runs": [str(r) for r in runs],
                  "audit": table, "rounds": rows}
        save_entry(Path(__file__).with_suffix(".json"), args.entry, record, sys.argv[1:])


if __name__ == "__main__":
    main()
