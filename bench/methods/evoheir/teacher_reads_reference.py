"""Can a policy read the reference Recovery's repair teacher is shown? Greedy success with and without it.

EVOHEIR's Recovery distils a repair teacher (the recipient reading the question *and* a reference
solution that reaches the label) into the recipient on the questions it failed. That teaches
something only if the teacher uses the reference. This plays ``--problems`` fresh generator
problems of the run's environment greedily with each policy twice: as the question alone, and as
the repair teacher reads it (``pre_round_warmup.with_expert_reference``: the question, then the expert's
reply as the reference, the form the pre-round warm-up teaches). A teacher that reads scores near 100% with the reference.

    .venv/bin/python -m bench.methods.evoheir.teacher_reads_reference <run folder> [<run folder> ...]
        [--problems 200] [--entry NAME]

Each policy is a run folder (its ``policy/`` and ``config.yaml``: the env and agent settings it was
trained with). Results: entries of ``bench/methods/evoheir/teacher_reads_reference.json``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

from bench.records import commit_of, save_entry
from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.eval import model_folder, with_run_settings
from coevo.core.cli.schema import EvalSchema
from coevo.core.config import validate
from coevo.core.evaluation import evaluate
from coevo.core.policy.builders import load_pretrained
from coevo.evoheir.math_env import Problem
from coevo.evoheir.pre_round_warmup import with_expert_reference
from coevo.evoheir.proposed_env import PROPOSED, ProposedMathEnv

ROOT = Path(__file__).resolve().parents[3]
FIRST_ITEM = 9_000_000  # a train-split region no pool of a run uses
QUESTION = "Does the policy answer a problem better when Recovery's repair teacher shows it a reference solution?"


def success(model, tokenizer, env_config, agent, problems: list[Problem]) -> float:
    summary, _ = evaluate(model, tokenizer, lambda: ProposedMathEnv(env_config, problems), agent, PROPOSED,
                          len(problems))
    return summary["success"]


def probe(run: str, problems: int) -> dict:
    overrides = [f"checkpoint={run}"]
    cfg = with_run_settings(compose_config("eval", overrides, repository=str(ROOT / "configs")), overrides)
    settings = validate(cfg, EvalSchema, "eval")
    _, _, make_env = env_factory(cfg.env)
    env = make_env()
    model, tokenizer = load_pretrained(model_folder(run))
    model.eval()
    plain = [env.problem(env.task("train", FIRST_ITEM + i)) for i in range(problems)]
    shown = with_expert_reference(env, plain)
    return {"run": run, "problems": problems,
            "greedy_success_question_alone": success(model, tokenizer, env.config, settings.agent, plain),
            "greedy_success_with_reference": success(model, tokenizer, env.config, settings.agent, shown),
            "example_prompt": shown[0].text}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run folders (policy/ and config.yaml)")
    parser.add_argument("--problems", type=int, default=200)
    parser.add_argument("--entry", default="probe")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()
    policies = [probe(run, args.problems) for run in args.runs]
    for row in policies:
        print(f"{row['run']}: {row['greedy_success_question_alone'] * 100:.1f}% alone, "
              f"{row['greedy_success_with_reference'] * 100:.1f}% with the reference")
    record = {"command": " ".join([".venv/bin/python -m bench.methods.evoheir.teacher_reads_reference", *argv]),
              "commit": commit_of(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.processor() or platform.machine()}, 1 torch thread", "seeds": "greedy",
              "seconds": round(time.perf_counter() - start, 1), "policies": policies}
    save_entry(Path(__file__).with_suffix(".json"), args.entry, record, argv, QUESTION)


if __name__ == "__main__":
    main()
