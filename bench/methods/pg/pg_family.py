"""The policy-optimisation family side by side on household with the tiny model (CPU), several seeds.

GRPO, GiGPO (step-level credit from anchor states), DAPO (clip-higher, token-level loss, no KL,
dynamic sampling), GSPO (sequence-level ratios) and CISPO (clipped importance weights, stop-gradient),
each chosen through the registries (``algo.advantage``, ``algo.loss``) on top of ``algo=grpo``.
Every run starts from the same cached warm-started model and plays ``--steps`` rollout batches, each
split into ``--updates-per-batch`` mini-batches, one optimizer step each (default 2: the second
mini-batch is off-policy, so the ratios move and the clipping rules differ; at 1 every update is
on-policy, the ratio is 1, and GRPO, GSPO and CISPO give one gradient: on household, whose samples
are one choice each, their losses' gradients and held-out results were identical step by step);
DAPO's dynamic sampling plays more episodes per step: the ``rollouts`` column counts them (GRPO's
``budget/rollouts``). Measured: held-out sampled success (``eval.*``, 60 tasks x 4 by default) and
greedy, wall time and training time (rollouts and updates). The evaluation before training is the
same for every run (one warm start, a fixed evaluation seed): it is played once and reused
(``--before-from`` reuses an earlier process's). Results: ``bench/methods/pg/pg_family.json`` (with the exact command). Launch:

    .venv/bin/python -m bench.methods.pg.pg_family --steps 12 --updates-per-batch 2 --seeds 0 1 2 [--methods grpo ...] [key=value ...]

GiGPO's published claim to check at this scale: it beats GRPO on the multi-turn household tasks.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.methods.method_runs import ROOT, reuse_before_of, run_method, start_record, summarise
from bench.records import save_entry

METHODS = {
    "grpo": ["algo=grpo"],
    "gigpo": ["algo=grpo", "algo.advantage=gigpo"],
    "dapo": ["algo=grpo", "algo.loss=dapo", "algo.clip_high=0.28", "algo.kl_coef=0",
             "algo.dynamic_sampling.enabled=true"],
    "gspo": ["algo=grpo", "algo.loss=gspo", "algo.clip_low=3e-4", "algo.clip_high=4e-4",
             "algo.loss_aggregation=seq_mean_token_mean"],
    "cispo": ["algo=grpo", "algo.loss=cispo", "algo.clip_low=0.999", "algo.clip_high=0.28"],
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12, help="rollout batches (8 tasks x 4 episodes each)")
    parser.add_argument("--updates-per-batch", type=int, default=2,
                        help="optimizer steps per rollout batch (algo.updates_per_batch); at 1 every update is on-policy "
                             "(ratio 1) and GRPO, GSPO and CISPO give the same gradient")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--out", default="runs/bench_pg_family")
    parser.add_argument("--entry", default="default", help="the entry of bench/methods/pg/pg_family.json to write (replaced; the others are kept)")
    parser.add_argument("--before-from", type=Path, nargs="*", default=[],
                        help="run folders whose evaluation before training to reuse where the settings match")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for every run")
    args = parser.parse_args()
    out = ROOT / args.out
    results_path = Path(__file__).with_suffix(".json")
    record = start_record("bench.methods.pg.pg_family", runs=[])
    for folder in args.before_from:
        reuse_before_of(folder)
    updates = args.updates_per_batch
    for seed in args.seeds:
        for method in args.methods:
            run_dir = out / f"{method}-s{seed}-{args.steps}x{updates}"
            overrides = [*METHODS[method], f"algo.updates_per_batch={updates}", *args.overrides]
            record["runs"].append(run_method(method, seed, args.steps * updates, overrides, run_dir))
            record["summary"] = summarise(record["runs"], METHODS)
            save_entry(results_path, args.entry, record, sys.argv[1:])
    print(json.dumps(record["summary"], indent=2))


if __name__ == "__main__":
    main()
