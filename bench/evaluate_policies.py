"""Re-evaluate saved policies on the household held-out split, sampled and greedy, one JSON line each.

Used to put runs that were evaluated greedily only (before ``eval.mode=sample`` became the default)
on the same footing as new ones: the same ``coevo.core.evaluation.evaluate`` call and settings
as ``coevo-train``'s default evaluation (``configs/train.yaml``: 60 ``eval_in_distribution``
tasks, ``--samples`` sampled episodes per task from sampling seed 0, and each task once greedily).

    .venv/bin/python bench/evaluate_policies.py --samples 4 runs/<run>/policy .cache/coevo/warmstart/<key> ...
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from hydra import compose, initialize_config_dir

from coevo.core.cli.components import env_factory
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import validate
from coevo.core.evaluation import evaluate
from coevo.core.policy.builders import load_pretrained

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=4, help="sampled episodes per task")
    parser.add_argument("folders", nargs="+", help="model folders (a run's policy/ or a warm-start cache folder)")
    parser.add_argument("--override", nargs="*", default=[], help="Hydra overrides of the train config (env, agent)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("train", overrides=args.override)
    settings = validate(cfg, TrainSchema, "train")
    e = settings.eval
    _, _, make_env = env_factory(cfg.env)
    for folder in args.folders:
        model, tokenizer = load_pretrained(folder)
        model.eval()
        greedy, _ = evaluate(model, tokenizer, make_env, settings.agent, e.split, e.num_tasks, e.batch_size)
        sampled, _ = evaluate(model, tokenizer, make_env, settings.agent, e.split, e.num_tasks, e.batch_size,
                              mode="sample", samples_per_task=args.samples, sample_seed=e.sample_seed)
        print(json.dumps({"folder": folder, "greedy": greedy["success"], "sampled": sampled["success"],
                          "sampled_per_type": {k: v for k, v in sampled.items() if k.startswith("success/")}}),
              flush=True)


if __name__ == "__main__":
    main()
