"""The variance of HEIRCOMMIT's paired gain v: common random numbers against independent seeds.

Two fixed policies, a root and a proposal (model folders, or run folders whose ``policy/`` is
used), are compared the way the judge compares them: ``--pools`` times, a pool of ``--items``
fresh train-split items (never reused), each played ``--samples`` times by each policy, and
v = mean over items of (proposal success - root success). With ``independent`` seeds the two
policies sample from different random streams (the judge before issue 21); with ``common`` seeds
(common random numbers) both replay each item with the same seed, so where the two policies agree
they draw the same answers and only their differences move v. Both estimate the same expected gain;
the table gives the mean and variance of v under each and the variance ratio. The paired
differences stay independent across items and bounded in [-1, 1], so the certified threshold
(sub-Gaussian, sigma 1) holds either way.

    .venv/bin/python -m bench.methods.evoheir.judge_variance --root <folder> --proposal <folder> [--pools 40]
        [--items 16] [--samples 2] [key=value ...]   # env/agent overrides, e.g. env=math

Results: ``bench/methods/evoheir/judge_variance.json`` (with the exact command).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.agent.loop import AgentLoop
from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.eval import model_folder, with_run_settings
from coevo.core.cli.schema import EvalSchema
from coevo.core.config import validate
from coevo.core.policy.builders import load_pretrained
from coevo.evoheir.paired import derived_seed, paired_gain, play_items, success_per_item

ROOT = Path(__file__).resolve().parents[3]
FIRST_ITEM = 8_000_000  # a train-split region no pool of a run uses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--proposal", required=True)
    parser.add_argument("--pools", type=int, default=40)
    parser.add_argument("--items", type=int, default=16)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(Path(__file__).with_name("judge_variance.json")))
    parser.add_argument("overrides", nargs="*", help="env/agent overrides (the defaults: the proposal's or the root's "
                                                     "run folder's own)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    run = next((f for f in (args.proposal, args.root) if (Path(f) / "config.yaml").is_file()), args.root)
    cfg = compose_config("eval", [f"checkpoint={run}", *args.overrides], repository=str(ROOT / "configs"))
    cfg = with_run_settings(cfg, [f"checkpoint={run}", *args.overrides])  # a run folder's env and agent settings
    settings = validate(cfg, EvalSchema, "eval")
    _, _, make_env = env_factory(cfg.env)
    loops = {}
    for role, where in (("root", args.root), ("proposal", args.proposal)):
        model, tokenizer = load_pretrained(model_folder(where), key=role)
        model.eval()
        engine = registry.rollout_engines.get("hf")(None, model, tokenizer)
        loops[role] = AgentLoop(engine, tokenizer, settings.agent)
    probe = make_env()
    envs = [probe] + [make_env() for _ in range(args.items * args.samples - 1)]
    gains = {"independent": [], "common": []}
    start = time.perf_counter()
    for r in range(args.pools):
        tasks = [probe.task("train", FIRST_ITEM + r * args.items + i) for i in range(args.items)]
        seed_new, seed_old = derived_seed(args.seed, r, 0), derived_seed(args.seed, r, 1)
        new = success_per_item(play_items(loops["proposal"], envs, tasks, args.samples, seed_new), args.samples)
        old = {"independent": success_per_item(play_items(loops["root"], envs, tasks, args.samples, seed_old),
                                               args.samples),
               "common": success_per_item(play_items(loops["root"], envs, tasks, args.samples, seed_new),
                                          args.samples)}
        for scheme in gains:
            gains[scheme].append(paired_gain(new, old[scheme]).gain)
    table = {scheme: {"mean_v": statistics.mean(v), "var_v": statistics.variance(v)} for scheme, v in gains.items()}
    ratio = table["common"]["var_v"] / table["independent"]["var_v"] if table["independent"]["var_v"] > 0 else None
    record = {"command": " ".join([".venv/bin/python -m bench.methods.evoheir.judge_variance", *sys.argv[1:]]),
              "machine": f"{platform.processor() or platform.machine()}, 1 torch thread",
              "pools": args.pools, "items": args.items, "samples": args.samples,
              "seconds": round(time.perf_counter() - start, 1), "schemes": table,
              "variance_ratio_common_over_independent": ratio, "gains": gains}
    Path(args.out).write_text(json.dumps(record, indent=1))
    print(json.dumps({k: v for k, v in record.items() if k != "gains"}, indent=1))


if __name__ == "__main__":
    main()
