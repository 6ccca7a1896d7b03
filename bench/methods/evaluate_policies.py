"""Re-evaluate saved policies on the household held-out split, sampled and greedy, one JSON line each.

Used to put runs that were evaluated greedily only (before ``eval.mode=sample`` became the default)
on the same footing as new ones: the same ``coevo.core.evaluation.evaluate`` call and settings
as ``coevo-train``'s default evaluation (``train.yaml``: 60 ``eval_in_distribution``
tasks, ``--samples`` sampled episodes per task from sampling seed 0, and each task once greedily).

    .venv/bin/python -m bench.methods.evaluate_policies --samples 4 runs/<run>/policy .cache/coevo/warmstart/<key> ...
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import validate
from coevo.core.evaluation import evaluate, with_greedy
from coevo.core.policy.builders import load_pretrained

ROOT = Path(__file__).resolve().parents[2]


def sampled_and_greedy(model, tokenizer, make_env, settings: TrainSchema, samples: int) -> dict:
    """``coevo-train``'s default evaluation of one model: sampled, plus greedy under ``greedy/…``."""
    e = settings.eval

    def play(mode: str, samples_per_task: int) -> dict:
        return evaluate(model, tokenizer, make_env, settings.agent, e.split, e.num_tasks, e.batch_size,
                        mode=mode, samples_per_task=samples_per_task, sample_seed=e.sample_seed)[0]

    return with_greedy(play, "sample", samples, also_greedy=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=4, help="sampled episodes per task")
    parser.add_argument("folders", nargs="+", help="model folders (a run's policy/ or a warm-start cache folder)")
    parser.add_argument("--override", nargs="*", default=[], help="Hydra overrides of the train config (env, agent)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = compose_config("train", args.override, repository=str(ROOT / "configs"))
    settings = validate(cfg, TrainSchema, "train")
    _, _, make_env = env_factory(cfg.env)
    for folder in args.folders:
        model, tokenizer = load_pretrained(folder)
        model.eval()
        summary = sampled_and_greedy(model, tokenizer, make_env, settings, args.samples)
        print(json.dumps({"folder": folder, "greedy": summary["greedy/success"], "sampled": summary["success"],
                          "sampled_per_type": {k: v for k, v in summary.items() if k.startswith("success/")}}),
              flush=True)


if __name__ == "__main__":
    main()
