"""EVOHEIR vs commit-all vs the single-stream host at equal compute: held-out math accuracy per
round and harmful commits, over several seeds.

For each seed, three runs on the tiny model:

- ``evoheir``: ``algo=evoheir algo.host=grpo``, ``--rounds`` full rounds (explore K branches,
  screen, recover, HEIRCOMMIT, archive);
- ``commit_all``: the ablation ``algo.commit.enabled=false`` (every proposal committed; no
  confirmation cost), as many whole rounds as EVOHEIR's token budget buys (forward tokens without
  the audit and the held-out evaluation; its cost per round measured by a one-round probe first);
- ``single_stream``: the host alone, ``algo=grpo algo.kl_coef=0`` (the grpo host's update: on-policy,
  no KL) with the same learning rate, tasks and group size, for EVOHEIR's compute in host steps
  (``compute_units / 100`` × rounds × explore steps: a unit is one branch's exploration). With
  ``--host r_zero`` it stays GRPO on the generated problems (the r_zero host has no single-stream run).

Every EVOHEIR round's held-out accuracy is greedy on ``--eval-tasks`` ``eval_in_distribution``
problems (``algo.heldout_tasks``), round 0 the warm start's; the single stream's is the same greedy
evaluation before and after training. With ``--audit-items`` > 0 each
proposal's true gain is measured on that many further items (``algo.audit=true``): a commit with a
negative true gain is a harmful commit. Extra Hydra overrides (the problem tier, the warm start,
the host's budget) apply to every run. The paper's claim to check: EVOHEIR ends at least as high
as commit-all with fewer harmful commits.

    python -m bench.methods.evoheir.evoheir_rounds [--rounds 4] [--host grpo] [--seeds 0 1 2] [--eval-tasks 100] \
        [--audit-items 64] [key=value ...]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch

from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config

ROOT = Path(__file__).resolve().parents[3]
RUNS = ("evoheir", "commit_all", "single_stream")
SHARED_ALGO_KEYS = ("algo.optim.", "algo.tasks_per_step=", "algo.group_size=")  # what the host and GRPO share


def run(name: str, overrides: list[str], run_root: str) -> dict:
    """Train one configuration into ``run_root/name``; its rounds, commits, held-out curve and cost."""
    cfg = compose_config("train", [*overrides, f"run_dir={run_root}/{name}", "overwrite=true"],
                         repository=str(ROOT / "configs"))
    start = time.perf_counter()
    train.run(cfg)
    summary = json.loads((Path(run_root) / name / "evoheir_summary.json").read_text())
    rounds = summary["rounds"]
    tokens = sum(v for k, v in summary["compute_tokens"].items() if k not in ("audit", "heldout"))
    audited = [r for r in rounds if r.get("true_gain") is not None]
    return {"name": name, "overrides": overrides, "seconds": round(time.perf_counter() - start, 1),
            "rounds": len(rounds), "commits": sum(r["commit"] for r in rounds),
            "harmful_commits": sum(r["commit"] and r["true_gain"] < 0 for r in audited) if audited else None,
            "useful_commits": sum(r["commit"] and r["true_gain"] > 0 for r in audited) if audited else None,
            "heldout": [summary["heldout_round0"], *[r["heldout"] for r in rounds]],
            "compute_units": summary["compute_units"], "tokens": tokens, "algo": summary["config"]}


def single_stream(name: str, overrides: list[str], seed: int, steps: int, eval_tasks: int, run_root: str) -> dict:
    """GRPO alone (``algo.kl_coef=0``: the grpo host's update) for ``steps`` steps; greedy held-out before and after."""
    shared = [o for o in overrides if not o.startswith("algo") or o.startswith(SHARED_ALGO_KEYS)]
    cfg = compose_config("train", ["algo=grpo", "env=math", f"seed={seed}", *shared, "algo.kl_coef=0", f"trainer.max_steps={steps}",
                                   "eval.mode=greedy", "eval.samples_per_task=1", "trainer.cpu_threads=1", f"eval.num_tasks={eval_tasks}",
                                   f"eval.batch_size={eval_tasks}", "trainer.progress_bar=false",
                                   "trainer.checkpoint_every=1000", f"run_dir={run_root}/{name}", "overwrite=true"],
                         repository=str(ROOT / "configs"))
    start = time.perf_counter()
    result = train.run(cfg)
    return {"name": name, "steps": steps, "seconds": round(time.perf_counter() - start, 1), "rounds": 0, "commits": 0,
            "harmful_commits": None, "heldout": [result["before"]["success"], result["after"]["success"]]}


def summarise(runs: list[dict]) -> dict:
    """Per run name: final held-out mean ± sd over seeds, its change from round 0, commits, harmful commits."""
    table = {}
    for name in RUNS:
        mine = [r for r in runs if r["name"].split("-")[0] == name]
        if not mine:
            continue
        final = [r["heldout"][-1] for r in mine]
        change = [r["heldout"][-1] - r["heldout"][0] for r in mine]
        harmful = [r["harmful_commits"] for r in mine if r["harmful_commits"] is not None]
        table[name] = {"seeds": len(mine), "rounds": statistics.mean(r["rounds"] for r in mine),
                       "final_mean": statistics.mean(final), "final_sd": statistics.stdev(final) if len(final) > 1 else 0.0,
                       "change_mean": statistics.mean(change),
                       "change_sd": statistics.stdev(change) if len(change) > 1 else 0.0,
                       "commits": statistics.mean(r["commits"] for r in mine),
                       "harmful_commits": statistics.mean(harmful) if harmful else None}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--host", default="grpo", choices=["grpo", "r_zero"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--eval-tasks", type=int, default=100, help="held-out problems per round (greedy)")
    parser.add_argument("--audit-items", type=int, default=64, help="true-gain items per proposal (0: no audit)")
    parser.add_argument("--run-root", default="runs/bench-evoheir-rounds")
    parser.add_argument("--out", default=str(Path(__file__).with_name("evoheir_rounds.json")))
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for every run")
    args = parser.parse_args()
    torch.set_num_threads(1)
    audit = ["algo.audit=true", f"algo.audit_settings.pool_size={args.audit_items}"] if args.audit_items else []
    result = {"command": ".venv/bin/python " + " ".join(sys.argv), "runs": []}
    for seed in args.seeds:
        base = ["algo=evoheir", "env=math", f"algo.host={args.host}", f"seed={seed}", "eval.before=false",
                "eval.after=false", f"algo.heldout_tasks={args.eval_tasks}", "trainer.progress_bar=false",
                "trainer.cpu_threads=1", "trainer.checkpoint_every=1000", *audit, *args.overrides]
        full = run(f"evoheir-s{seed}", [*base, f"algo.rounds={args.rounds}"], args.run_root)
        result["runs"].append(full)
        ablation = [*base, "algo.commit.enabled=false"]
        probe = run(f"probe_commit_all-s{seed}", [*ablation, "algo.rounds=1"], args.run_root)
        equal = max(1, math.floor(full["tokens"] / probe["tokens"]))
        result["runs"].append(run(f"commit_all-s{seed}", [*ablation, f"algo.rounds={equal}"], args.run_root)
                              | {"probe_tokens": probe["tokens"], "probe_seconds": probe["seconds"]})
        algo = full["algo"]  # EVOHEIR's settings as the run used them (its defaults included)
        steps = max(1, round(full["compute_units"] / 100 * args.rounds * algo["explore_steps"]))
        host = [f"algo.optim.lr={algo['optim']['lr']}", f"algo.tasks_per_step={algo['tasks_per_step']}",
                f"algo.group_size={algo['group_size']}"]
        result["runs"].append(single_stream(f"single_stream-s{seed}", [*args.overrides, *host], seed, steps,
                                            args.eval_tasks, args.run_root))
        result["summary"] = summarise(result["runs"])
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1))
    for r in result["runs"]:
        curve = " → ".join(f"{h * 100:.0f}" for h in r["heldout"])
        print(f"{r['name']:22s} rounds {r['rounds']:2d} commits {r['commits']:2d} harmful {r['harmful_commits']} "
              f"held-out % {curve}  tokens {r.get('tokens', '-')}  {r['seconds']:.0f} s")
    print(json.dumps(result["summary"], indent=1))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
