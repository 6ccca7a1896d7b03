"""Transfer from household at ALFWorld scale to the real ALFWorld games, per task type, with the
measurements that say why an episode fails (issue 22 item 2).

Plays each model folder greedily (each task once; or ``--samples`` sampled episodes per task) on
household ``env.scale=alfworld`` held-out rooms and on the real games of ``--alfworld-split``
(valid_seen by default), with the agent settings ``coevo-train`` uses, and reports per environment
and task type:

- success and turns (ALFWorld's limit is 50);
- prompt tokens per turn (mean, max) against the agent's prompt limit (``agent.prompt.max_prompt_tokens``),
  and context overflows;
- admissible commands per turn (choice mode scores each one);
- found: the goal object's kind appeared in an observation; taken: the agent picked one up;
- looping: the share of turns whose command was already played in the same episode (same command
  again, e.g. going back and forth between two places);
- tokens per word of the observations (how well the tokenizer, trained on household text, covers
  the environment's wording).

    .venv/bin/python -m bench.methods.rsipo.household_transfer runs/<run>/policy .cache/coevo/warmstart/<key> \
        --num-tasks 60 --entry NAME   # an entry of bench/methods/rsipo/household_transfer.json

A model trained on other task types than household's default plays its own in household with
``--household-override 'env.task_types=[...]'`` (the real games always have all six).

Needs the alfworld extra (``make eval ENV=alfworld`` installs it) and ALFWORLD_DATA (defaults to
../shared/alfworld here).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

from bench.methods.method_runs import start_record
from bench.records import save_entry
from coevo.core.agent.types import Episode
from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import validate
from coevo.core.evaluation import evaluate
from coevo.core.policy.builders import load_pretrained
from coevo.envs.household.goals import parse_goal

ROOT = Path(__file__).resolve().parents[3]
SHARED_ALFWORLD = ROOT.parent / "shared" / "alfworld"


def goal_of(episode: Episode):
    """The household goal the episode's task sentence states (None if it does not parse)."""
    first = (episode.turns[0].messages or []) if episode.turns else []
    for message in first:
        for line in message["content"].splitlines():
            if "Your task is to:" in line:
                return parse_goal(line[line.index("Your task is to:"):])
    return None


def episode_facts(episode: Episode, tokenizer) -> dict:
    """What one episode shows: outcome, prompt sizes, candidates, whether the goal object was found
    and taken, how much it looped, and the observations' tokens per word."""
    goal = goal_of(episode)
    kind = goal.object_kind if goal else None
    seen = taken = False
    played: set[str] = set()
    repeats = 0
    words = tokens = 0
    for turn in episode.turns:
        text = turn.observation or ""
        if kind and kind in (w.strip(".,") for w in text.split()):
            seen = True
        if kind and turn.action and turn.action.startswith("take ") and turn.action.split()[1] == kind:
            taken = True
        repeats += turn.action in played
        played.add(turn.action)
        words += len(text.split())
        tokens += len(tokenizer(text, add_special_tokens=False)["input_ids"]) if text else 0
    turns = max(1, len(episode.turns))
    return {"won": episode.won, "turns": len(episode.turns), "overflow": episode.context_overflow,
            "prompt_tokens": [len(t.prompt_ids) for t in episode.turns],
            "candidates": [len(t.candidates) for t in episode.turns if t.candidates is not None],
            "parsed": goal is not None, "found": seen, "taken": taken, "looping": repeats / turns,
            "obs_words": words, "obs_tokens": tokens}


def per_type(episodes: list[Episode], tokenizer, prompt_limit: int) -> dict:
    """The facts of ``episodes`` averaged per task type and over all of them."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for episode in episodes:
        facts = episode_facts(episode, tokenizer)
        groups[episode.task.task_type].append(facts)
        groups["ALL"].append(facts)
    table = {}
    for name, rows in groups.items():
        prompts = [n for r in rows for n in r["prompt_tokens"]] or [0]
        candidates = [n for r in rows for n in r["candidates"]] or [0]
        table[name] = {
            "tasks": len(rows),
            "success": statistics.fmean(r["won"] for r in rows),
            "turns": statistics.fmean(r["turns"] for r in rows),
            "context_overflow": statistics.fmean(r["overflow"] for r in rows),
            "prompt_tokens_mean": statistics.fmean(prompts),
            "prompt_tokens_max": max(prompts),
            "prompt_over_limit": sum(n > prompt_limit for n in prompts) / len(prompts),
            "candidates_mean": statistics.fmean(candidates),
            "candidates_max": max(candidates),
            "goal_parsed": statistics.fmean(r["parsed"] for r in rows),
            "goal_object_found": statistics.fmean(r["found"] for r in rows),
            "goal_object_taken": statistics.fmean(r["taken"] for r in rows),
            "looping": statistics.fmean(r["looping"] for r in rows),
            "tokens_per_word": sum(r["obs_tokens"] for r in rows) / max(1, sum(r["obs_words"] for r in rows)),
        }
    return table


def show(label: str, table: dict) -> None:
    print(f"\n{label}")
    print(f"{'task type':32} {'n':>3} {'succ':>5} {'turns':>5} {'prompt':>7} {'max':>5} {'cands':>5} "
          f"{'found':>5} {'taken':>5} {'loop':>5} {'tok/w':>5}")
    for name, row in table.items():
        print(f"{name:32} {row['tasks']:>3} {row['success']:>5.2f} {row['turns']:>5.1f} "
              f"{row['prompt_tokens_mean']:>7.0f} {row['prompt_tokens_max']:>5} {row['candidates_mean']:>5.1f} "
              f"{row['goal_object_found']:>5.2f} {row['goal_object_taken']:>5.2f} {row['looping']:>5.2f} "
              f"{row['tokens_per_word']:>5.2f}", flush=True)


def play(model, tokenizer, overrides: list[str], split: str, num_tasks: int, samples: int,
         transcripts: int) -> tuple[dict, list]:
    """Greedy (``samples`` 0) or ``samples`` sampled episodes per task, as ``coevo-train`` evaluates."""
    cfg = compose_config("train", overrides, repository=str(ROOT / "configs"))
    settings = validate(cfg, TrainSchema, "train")
    _, _, make_env = env_factory(cfg.env)
    mode = "sample" if samples else "greedy"
    _, episodes = evaluate(model, tokenizer, make_env, settings.agent, split, num_tasks, settings.eval.batch_size,
                           mode=mode, samples_per_task=max(1, samples), sample_seed=settings.eval.sample_seed)
    table = per_type(episodes, tokenizer, settings.agent.prompt.max_prompt_tokens)
    shown = []
    for episode in episodes[:transcripts]:
        goal = goal_of(episode)
        shown.append({"task_type": episode.task.task_type, "won": episode.won, "goal": goal.sentence if goal else None,
                      "steps": [[t.action, (t.observation or "")[:160]] for t in episode.turns[:20]]})
    return table, shown


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="+", help="model folders (a run's policy/ or a warm-start cache folder)")
    parser.add_argument("--num-tasks", type=int, default=60, help="tasks per environment (the first n cover every type)")
    parser.add_argument("--household-tasks", type=int, default=None,
                        help="household rooms to play (default: --num-tasks; 0 skips household)")
    parser.add_argument("--alfworld-split", default="eval_in_distribution", help="eval_in_distribution (valid_seen) or eval_out_of_distribution (valid_unseen)")
    parser.add_argument("--samples", type=int, default=0, help="sampled episodes per task (0: greedy, each task once)")
    parser.add_argument("--transcripts", type=int, default=6, help="episodes per environment kept (first 20 steps)")
    parser.add_argument("--household-override", action="append", default=[], metavar="KEY=VALUE",
                        help="a config override for the household rooms, repeatable (e.g. the training run's "
                             "env.task_types=[...]); the default plays household's default task types")
    parser.add_argument("--entry", default=None, help="the entry of bench/methods/rsipo/household_transfer.json to write (replaced; the others are kept) (none: print only)")
    args = parser.parse_args()
    if args.num_tasks < 1 or (args.household_tasks is not None and args.household_tasks < 0) or args.samples < 0:
        parser.error("--num-tasks must be >= 1, --household-tasks >= 0 and --samples >= 0")
    os.environ.setdefault("ALFWORLD_DATA", str(SHARED_ALFWORLD))
    record = start_record("bench.methods.rsipo.household_transfer", models=[])
    for folder in args.folders:
        model, tokenizer = load_pretrained(folder)
        model.eval()
        entry = {"folder": folder, "household_overrides": args.household_override}
        household_tasks = args.num_tasks if args.household_tasks is None else args.household_tasks
        for label, overrides, split, num_tasks in (
            ("household alfworld scale", ["env=household", "env.scale=alfworld", *args.household_override],
             "eval_in_distribution", household_tasks),
            ("real alfworld", ["env=alfworld"], args.alfworld_split, args.num_tasks),
        ):
            if num_tasks == 0:
                continue
            start = time.time()
            table, shown = play(model, tokenizer, overrides, split, num_tasks, args.samples, args.transcripts)
            seconds = time.time() - start
            entry[label] = {"split": split, "samples_per_task": args.samples, "per_type": table,
                            "seconds": round(seconds, 1), "transcripts": shown}
            how = f"{args.samples} sampled per task" if args.samples else "greedy"
            show(f"{folder} on {label} ({split}, {how}, {seconds:.0f} s)", table)
        record["models"].append(entry)
        if args.entry:
            save_entry(Path(__file__).with_suffix(".json"), args.entry, record, sys.argv[1:])


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()
