"""HEIRCOMMIT update audit: harmful-commit share of commit-all vs random-at-rate vs HEIRCOMMIT.

Differs from the paper's audit (64 native updates per host, Qwen3 on math): the update source is
GRPO on the ``boxes`` env with the tiny model (a weak 20-episode warm start, 28.5% sampled: the
default warm start wins every box; lr 1e-3, so updates are large and noisy: some help, some hurt).
``+callbacks=heircommit`` judges a proposal every ``--every`` steps on ``--pool`` fresh items x 2
samples and, for the audit, measures its true gain on ``--audit-items`` further held-out items x 2
samples. Commit-all accepts every audited proposal; random-at-rate accepts each with HEIRCOMMIT's
acceptance rate (expected values). Goal after the paper: HEIRCOMMIT's harmful share <= 1/3 of
commit-all's.

    python -m bench.methods.evoheir.evoheir_audit [--decisions 30] [--every 2] [--mode empirical] [--pool 16] \
        [--audit-items 64] [key=value ...]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from bench.records import save_entry
from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config
from coevo.evoheir.audit import summarize_audit
from coevo.evoheir.heircommit import HeirCommit

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--mode", default="empirical")
    parser.add_argument("--pool", type=int, default=16)
    parser.add_argument("--audit-items", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--run-dir", default="runs/bench-evoheir-audit")
    parser.add_argument("--entry", default="default", help="the entry of bench/methods/evoheir/evoheir_audit.json to write (replaced; the others are kept)")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides (e.g. the warm start's size)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    overrides = [
        "env=boxes", "+callbacks=heircommit", f"trainer.max_steps={args.decisions * args.every}",
        f"callbacks.heircommit.every_n_steps={args.every}", f"callbacks.heircommit.mode={args.mode}",
        f"callbacks.heircommit.pool_size={args.pool}", "callbacks.heircommit.samples=2",
        f"callbacks.heircommit.audit_pool_size={args.audit_items}", "callbacks.heircommit.audit_samples=2",
        "algo.tasks_per_step=4", "algo.group_size=4", f"algo.optim.lr={args.lr}",
        # a weak warm start (28.5% sampled): the default one wins every box, so no update could help or hurt
        "warmstart.episodes=20", "warmstart.sft.epochs=2",
        "eval.before=false", "eval.after=false", "trainer.progress_bar=false", "trainer.checkpoint_every=1000",
        f"run_dir={args.run_dir}", "overwrite=true", *args.overrides,
    ]
    made = []
    original = train.configured_callbacks
    train.configured_callbacks = lambda nodes: made.extend(original(nodes)) or made
    cfg = compose_config("train", overrides, repository=str(ROOT / "configs"))
    start = time.perf_counter()
    train.run(cfg)
    seconds = time.perf_counter() - start
    (callback,) = [c for c in made if isinstance(c, HeirCommit)]
    rows = callback.confirmation.audit
    summary = summarize_audit(rows)
    all_share, heir_share = summary["commit_all"]["harmful_share"], summary["heircommit"]["harmful_share"]
    result = {
        "command": "python -m bench.methods.evoheir.evoheir_audit " + " ".join(sys.argv[1:]),
        "machine": f"{platform.machine()} {platform.processor() or ''}, {torch.get_num_threads()} torch thread(s)",
        "overrides": overrides, "seconds": round(seconds, 1), "summary": summary, "decisions": rows,
        "goal_met": heir_share <= all_share / 3 if summary["heircommit"]["accepted"] else None,
    }
    save_entry(Path(__file__).with_suffix(".json"), args.entry, json.loads(json.dumps(result, default=float)), sys.argv[1:])
    for rule in ("commit_all", "random_at_rate", "heircommit"):
        s = summary[rule]
        print(f"{rule:15s} accepted {s['accepted']:5.1f}  harmful commits {s['harmful_commits']:5.1f}  "
              f"harmful share {s['harmful_share']:.3f}  coverage {s['coverage']:.3f}  "
              f"useful retention {s['useful_retention']:.3f}")
    print(f"proposals {summary['proposals']}; {seconds:.0f} s; written entry {args.entry} of {Path(__file__).with_suffix('.json').name}")


if __name__ == "__main__":
    main()
