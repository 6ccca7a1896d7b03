"""Does a skill in the context help the warm-started policy act? Success with vs without a skill, per
task type, sampled and greedy, on the held-out split: the static library skill of each task's type
(``--skill library``), or the hindsight skill of the expert's attempt at the task (``--skill
hindsight``: its commands with the search cut out, ``coevo.rsipo.hindsight``).

RSIPO's teacher is the same weights with a skill in the context; it can only be better than the
student where a skill raises success. This measures that for the warm start an algorithm builds
(``algo=rsipo``: acting plus skill-writing examples, plus acting-with-skill examples when
``algo.warmup.in_context_share`` > 0), before any RL:

    .venv/bin/python -m bench.methods.rsipo.skill_in_context --override algo=rsipo env=household --entry library

Each ``--variant NAME=OVERRIDES`` (space-separated Hydra overrides added to ``--override``) is one
warm start (built and cached as ``coevo-train`` builds it); one JSON line per variant, all of them
written as entry ``--entry`` of ``bench/methods/rsipo/skill_in_context.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from bench.methods.method_runs import algorithm_warm_start
from bench.records import save_entry
from coevo.core.cli.schema import TrainSchema
from coevo.core.evaluation import evaluate
from coevo.core.policy.builders import load_pretrained
from coevo.rsipo.hindsight import expert_direct_path, hindsight_skill
from coevo.rsipo.skills.library import static_skill
from coevo.rsipo.teacher import skill_context


def success_per_type(summary: dict) -> dict[str, float]:
    return {k.removeprefix("success/"): v for k, v in summary.items() if k.startswith("success/")}


def skill_of(make_env, kind: str):
    """``task -> skill text``: the library skill of its type, or the hindsight skill of the expert's
    attempt at it (the skill a writer that copies the winning attempt would give; cached per task)."""
    env = make_env()
    if kind == "library":
        return lambda task: static_skill(env.name, task.task_type)
    cache: dict[tuple[str, int], str] = {}

    def hindsight(task) -> str:
        key = (task.split, task.index)
        if key not in cache:
            cache[key] = hindsight_skill(expert_direct_path(env, task.split, task.index) or [])
        return cache[key]
    return hindsight


def with_and_without(model, tokenizer, make_env, settings: TrainSchema, prefix: str, samples: int,
                     kind: str = "library") -> dict:
    """Held-out success without and with a skill (``kind``) for each task, sampled and greedy."""
    e, text = settings.eval, skill_of(make_env, kind)
    skill = lambda task: skill_context(text(task), prefix)  # noqa: E731
    out = {}
    for mode, repeats in (("sample", samples), ("greedy", 1)):
        for label, context in (("without", None), ("with", skill)):
            summary, _ = evaluate(model, tokenizer, make_env, settings.agent, e.split, e.num_tasks, e.batch_size,
                                  mode=mode, samples_per_task=repeats, sample_seed=e.sample_seed, context=context)
            out[f"{mode}/{label}"] = {"success": summary["success"], "per_type": success_per_type(summary)}
    for mode in ("sample", "greedy"):
        without, with_ = out[f"{mode}/without"], out[f"{mode}/with"]
        out[f"{mode}/gain"] = {"success": with_["success"] - without["success"],
                               "per_type": {t: with_["per_type"][t] - without["per_type"].get(t, 0.0)
                                            for t in with_["per_type"]}}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--override", nargs="*", default=["algo=rsipo", "env=household"],
                        help="Hydra overrides of the train config shared by every variant")
    parser.add_argument("--variant", action="append", default=[],
                        help="NAME=OVERRIDES (space-separated); default: one variant 'default' with none")
    parser.add_argument("--samples", type=int, default=4, help="sampled episodes per task")
    parser.add_argument("--skill", choices=["library", "hindsight"], default="library",
                        help="the skill in the context: the library's of the task's type, or the hindsight skill "
                             "of the expert's attempt at the task (coevo.rsipo.hindsight)")
    parser.add_argument("--entry", default=None, help="the entry of bench/methods/rsipo/skill_in_context.json to write (replaced; the others are kept) (none: print only)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    variants = [v.split("=", 1) for v in args.variant] or [["default", ""]]
    record = {"command": "python -m bench.methods.rsipo.skill_in_context " + " ".join(
        ["--override", *args.override] + [f"--variant '{v}'" for v in args.variant]
        + ["--samples", str(args.samples), "--skill", args.skill]),
        "date": time.strftime("%Y-%m-%d %H:%M"), "variants": {}}
    for name, extra in variants:
        start = time.perf_counter()
        _, settings, algo_cfg, make_env, folder = algorithm_warm_start([*args.override, *extra.split()])
        model, tokenizer = load_pretrained(folder)
        model.eval()
        prefix = getattr(getattr(algo_cfg, "skill", None), "context_prefix", "Skill: ")
        row = {"overrides": extra, **with_and_without(model, tokenizer, make_env, settings, prefix, args.samples, args.skill),
               "seconds": round(time.perf_counter() - start, 1)}
        record["variants"][name] = row
        print(json.dumps({"variant": name, **{k: v for k, v in row.items() if k.endswith("gain") or k == "seconds"},
                          "sampled": (row["sample/without"]["success"], row["sample/with"]["success"]),
                          "greedy": (row["greedy/without"]["success"], row["greedy/with"]["success"])}), flush=True)
    if args.entry:
        save_entry(Path(__file__).with_suffix(".json"), args.entry, record, sys.argv[1:])


if __name__ == "__main__":
    main()
