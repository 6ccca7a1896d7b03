"""RSIPO against its baselines on the household env with the tiny model (CPU), several seeds.

What it measures: held-out success after training (``eval.split``, ``eval.num_tasks`` tasks;
sampled, ``eval.samples_per_task`` episodes per task, and greedy, each task once), per method and
seed, with mean and standard deviation over seeds, for GRPO, GRPO+OPSD, RSIPO and the two RSIPO ablations (ω ≡ 1; no skill evolution), in two
comparisons:
- equal steps: every method trains ``--steps`` optimizer steps;
- equal rollout budget: methods without replay train ``round(steps * 1.5)`` steps, since RSIPO
  (and its ablations) spend G/2 extra replay episodes per task per step (their ``budget/rollouts``
  totals are recorded and compared).
Every run starts from the same cached warm-started model. Results: ``bench/methods/rsipo/rsipo_vs_baselines.json``
(with the exact command). Launch:

    .venv/bin/python -m bench.methods.rsipo.rsipo_vs_baselines --steps 20 --seeds 0 1 2 [--budget] [--methods ...] [key=value ...]

``key=value`` overrides apply to every run; ``--rsipo-overrides`` only to the coevo-rsipo methods
(keys such as ``algo.warmup.steps`` that GRPO's config does not have).
``--same-warm-start`` starts every method from RSIPO's warm start (built with the overrides and
``--rsipo-overrides``, then loaded as a model folder): without it GRPO and GRPO+OPSD start from the
plain warm start and RSIPO from its own (with skill-writing examples), so gains are compared from
different weights.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.methods.method_runs import ROOT, from_warm_start_of, run_method, start_record, summarise
from bench.records import save_entry

METHODS = {
    "grpo": ["algo=grpo"],
    "grpo_opsd": ["algo=grpo_opsd"],
    "rsipo": ["algo=rsipo"],
    "rsipo_static_trust": ["algo=rsipo", "algo.dynamic_trust=false"],
    "rsipo_no_skill_evolution": ["algo=rsipo", "algo.skill_evolution=false"],
}
REPLAYS = {"rsipo", "rsipo_static_trust", "rsipo_no_skill_evolution"}


def run_one(method: str, seed: int, steps: int, extra: list[str], out: Path, rsipo_extra: list[str]) -> dict:
    if method != "grpo":
        extra = [*extra, *rsipo_extra]
    return run_method(method, seed, steps, [*METHODS[method], *extra], out / f"{method}-s{seed}-{steps}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--budget", action="store_true", help="also the equal-rollout-budget comparison")
    parser.add_argument("--out", default="runs/bench_rsipo")
    parser.add_argument("--entry", default="default",
                        help="the entry of bench/methods/rsipo/rsipo_vs_baselines.json to write (replaced; the others "
                             "are kept; one per process when a comparison is split over several)")
    parser.add_argument("--rsipo-overrides", nargs="*", default=[], help="overrides for the coevo-rsipo methods only")
    parser.add_argument("--same-warm-start", action="store_true",
                        help="every method starts from RSIPO's warm start (loaded as a model folder)")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for every run")
    args = parser.parse_args()
    if args.same_warm_start:
        shared = from_warm_start_of(["algo=rsipo", *args.overrides, *args.rsipo_overrides])
        args.overrides = [*args.overrides, *shared]  # (warm-start keys in --rsipo-overrides no longer act)
    out = ROOT / args.out
    results_path = Path(__file__).with_suffix(".json")
    record = start_record("bench.methods.rsipo.rsipo_vs_baselines", equal_steps=[], equal_budget=[])
    for seed in args.seeds:
        for method in args.methods:
            record["equal_steps"].append(run_one(method, seed, args.steps, args.overrides, out, args.rsipo_overrides))
            record["equal_steps_summary"] = summarise(record["equal_steps"], METHODS)
            save_entry(results_path, args.entry, record, sys.argv[1:])
    if args.budget:
        longer = round(args.steps * 1.5)
        for seed in args.seeds:
            for method in args.methods:
                if method in REPLAYS:
                    continue
                record["equal_budget"].append(run_one(method, seed, longer, args.overrides, out, args.rsipo_overrides))
                record["equal_budget_summary"] = summarise(
                    record["equal_budget"] + [r for r in record["equal_steps"] if r["method"] in REPLAYS], METHODS)
                save_entry(results_path, args.entry, record, sys.argv[1:])
    print(json.dumps({k: v for k, v in record.items() if k.endswith("summary")}, indent=2))


if __name__ == "__main__":
    main()
