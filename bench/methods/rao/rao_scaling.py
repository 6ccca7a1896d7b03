"""RAO scaling: recursive vs flat agent (same warm-started model, same RL steps), batched vs sequential.

Three measurements, each from real ``coevo-train algo=rao`` runs (the flat agent is trained in
lockstep on the same tasks with delegation disabled, ``algo.flat_baseline=train``):

1. ``longctx``: greedy held-out success at inputs 1×, 2×, 4×, 8× the agent's context window
   (the rows of the run's report; 1× = the longest document a flat agent can hold whole).
2. ``algebra``: trained at depth d, evaluated at depth d (``eval_in_distribution``) and 2d
   (``eval_out_of_distribution``) without further training.
3. Wall-clock per tree of a longctx policy at every size, with every ready agent of every tree in
   one engine call per round (``recursion.schedule=batched``) against one agent at a time
   (``sequential``), on the same tasks, greedy; best of ``--repeats``. The policy is the run's
   warm-started model (``--timing-policy warmstart``: it delegates at every size, as its oracle
   does) or the trained one (``trained``).

Each run also reports the environment steps each agent took until its sampled training success
(moving average over 3 steps) first reached ``--target`` (``null``: never).

    python -m bench.methods.rao.rao_scaling [--steps 20] [--tasks 20] [--depth 3] [--repeats 2]

Writes ``bench/methods/rao/rao_scaling.json`` (the command, date, machine and every number).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.cli import train
from coevo.core.cli.components import engine_component, env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import build_component, validate
from coevo.core.policy.builders import load_pretrained
from coevo.rao.evaluation import evaluate_trees, scaled_env_factory

CONFIGS = str(Path(__file__).resolve().parents[3] / "configs")


def compose_run(run_dir: Path, overrides: list[str]):
    return compose_config("train", ["algo=rao", f"run_dir={run_dir}", "overwrite=true", *overrides], repository=CONFIGS)


def steps_to_target(metrics: list[dict], prefix: str, target: float) -> dict:
    """Env steps (running total) at the first optimizer step whose 3-step mean success >= target."""
    values = [m.get(f"train/{prefix}success") for m in metrics]
    for i in range(len(values)):
        window = [v for v in values[max(0, i - 2) : i + 1] if v is not None]
        if window and sum(window) / len(window) >= target:
            return {"step": metrics[i]["step"], "env_steps": metrics[i].get(f"train/{prefix}env_steps_total")}
    return {"step": None, "env_steps": None}


def train_and_report(run_dir: Path, overrides: list[str], target: float) -> dict:
    cfg = compose_run(run_dir, overrides)
    start = time.perf_counter()
    train.run(cfg)
    rows = json.loads((run_dir / "rao_report.json").read_text())
    metrics = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    return {"overrides": overrides, "seconds": round(time.perf_counter() - start, 1),
            "rows": [{"label": r["label"], "value": r.get("value"), "split": r["split"],
                      "recursive": r["recursive"], "flat": r.get("flat")} for r in rows],
            "to_target": {"target": target, "recursive": steps_to_target(metrics, "", target),
                          "flat": steps_to_target(metrics, "flat/", target)},
            "final_train_success": {"recursive": metrics[-1].get("train/success") if metrics else None,
                                    "flat": metrics[-1].get("train/flat/success") if metrics else None}}


def schedules(run_dir: Path, overrides: list[str], tasks: int, repeats: int, policy: str) -> list[dict]:
    """Batched vs sequential wall-clock per tree of the run's warm-started or trained policy, per size."""
    cfg = compose_run(run_dir, overrides)
    settings = validate(cfg, TrainSchema, "train")
    algo_cls, algo = build_component(registry.algorithms, cfg.algo, "algo")
    _, env_cfg, make_env = env_factory(cfg.env)
    engine_cls, engine_cfg = engine_component(cfg.get("rollout"))
    if policy == "trained":
        model, tokenizer = load_pretrained(run_dir / "policy")
    else:  # the cached warm start of the same config
        model, tokenizer = train.build_policy(settings, cfg, make_env, env_cfg, train.expert_source(algo_cls, algo))
    engine = engine_cls(engine_cfg, model, tokenizer)
    out = []
    for value in algo.report.sizes:
        sized = scaled_env_factory(make_env, algo.sizes.knob, value)
        row = {"size": value}
        trees = {}
        for schedule in ("batched", "sequential"):
            recursion = dataclasses.replace(algo.recursion, schedule=schedule)
            best = None
            for _ in range(repeats):
                stats, played = evaluate_trees(engine, tokenizer, settings.agent, recursion, sized,
                                               "eval_in_distribution", tasks, tasks)
                best = stats if best is None or stats["seconds_per_tree"] < best["seconds_per_tree"] else best
            trees[schedule] = [[t.response_text for n in tree.nodes for t in n.episode.turns] for tree in played]
            row[schedule] = {"seconds_per_tree": best["seconds_per_tree"], "success": best["success"],
                             "nodes": best["tree/nodes"], "agent_turns": best["agent_turns"]}
        row["speedup"] = row["sequential"]["seconds_per_tree"] / row["batched"]["seconds_per_tree"]
        row["identical_trees"] = trees["batched"] == trees["sequential"]
        out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20, help="RL steps of each run (both agents)")
    parser.add_argument("--tasks", type=int, default=20, help="held-out tasks per row")
    parser.add_argument("--depth", type=int, default=3, help="algebra training depth d (evaluated at d and 2d)")
    parser.add_argument("--repeats", type=int, default=2, help="timing repeats (best of)")
    parser.add_argument("--timing-policy", choices=["warmstart", "trained"], default="warmstart")
    parser.add_argument("--timing-tasks", type=int, default=10, help="tasks per size in the timing")
    parser.add_argument("--target", type=float, default=0.5, help="training success whose env steps are reported")
    parser.add_argument("--runs", default="runs/bench-rao", help="folder of the training runs")
    parser.add_argument("--skip", nargs="*", default=[], choices=["longctx", "algebra", "schedules"])
    parser.add_argument("--out", default=str(Path(__file__).with_name("rao_scaling.json")))
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = Path(args.runs)
    common = [f"trainer.max_steps={args.steps}", f"algo.report.num_tasks={args.tasks}", "trainer.progress_bar=false"]
    result = {
        "command": "python " + " ".join(sys.argv),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, 1 torch thread, torch {torch.__version__}",
    }
    longctx = []
    if "longctx" not in args.skip:
        result["longctx"] = train_and_report(runs / "longctx", common + longctx, args.target)
    if "algebra" not in args.skip:
        result["algebra"] = train_and_report(runs / "algebra", common + ["env=algebra", f"env.depth={args.depth}"],
                                             args.target)
    if "schedules" not in args.skip:
        result["schedules"] = {"policy": args.timing_policy, "tasks": args.timing_tasks,
                               "sizes": schedules(runs / "longctx", common + longctx, args.timing_tasks, args.repeats,
                                                  args.timing_policy)}
    Path(args.out).write_text(json.dumps(result, indent=1, default=float))
    print(json.dumps(result, indent=1, default=float))
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
