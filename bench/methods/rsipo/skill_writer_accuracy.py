"""How well does a warm-started policy write hindsight skills? (issue 22 item 1)

For each held-out task the writing prompt is built as RSIPO's warm start builds it
(``coevo.rsipo.warmup.writing_conversation``, ``kind="hindsight"``: the expert's full attempt as a
success, its first half as a failure), the policy writes a skill greedily and sampled at each
``--temperatures``, and the script prints the share written exactly as the expert attempt's hindsight
skill (``coevo.rsipo.hindsight``), and the share that at least names the object taken and where it was
taken from (the one fact the skill carries that a fresh attempt lacks). The prompts are the expert's
attempts, not the policy's own, so this is an upper bound on the writer's accuracy during RL.

    .venv/bin/python -m bench.methods.rsipo.skill_writer_accuracy --policy .cache/coevo/warmstart/<key> --entry NAME

Results: entry ``NAME`` of ``bench/methods/rsipo/skill_writer_accuracy.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import torch

from bench.records import save_entry
from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.conversation import render_prompt
from coevo.envs.household.env import HouseholdEnv
from coevo.rsipo.config import SkillSettings
from coevo.rsipo.skills.template import template_for
from coevo.rsipo.warmup import writing_conversation

SKILL_TAGS = re.compile(r"</?skill>")
TAKE = re.compile(r"take \w+ \d+ from \w+ \d+")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", required=True, help="a warm-started policy folder")
    parser.add_argument("--tasks", type=int, default=60, help="held-out tasks (eval_in_distribution)")
    parser.add_argument("--temperatures", type=float, nargs="*", default=[1.0, 0.5])
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--entry", default=None, help="the entry of bench/methods/rsipo/skill_writer_accuracy.json to write (replaced; the others are kept) (none: print only)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model, tokenizer = load_pretrained(args.policy)
    model.eval()
    env, template = HouseholdEnv(HouseholdEnv.Config()), template_for("household")
    modes = {"greedy": {"do_sample": False}, **{f"T={t}": {"do_sample": True, "temperature": t} for t in args.temperatures}}
    exact, takes = dict.fromkeys(modes, 0), dict.fromkeys(modes, 0)
    for index in range(args.tasks):
        conversation = writing_conversation(env, template, SkillSettings(), "eval_in_distribution", index, "hindsight")
        target = SKILL_TAGS.sub("", conversation[-1]["content"]).strip()
        prompt = torch.tensor([render_prompt(tokenizer, conversation[:-1])])
        for name, sampling in modes.items():
            with torch.no_grad():
                out = model.generate(prompt, max_new_tokens=args.max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                                     **sampling)
            written = SKILL_TAGS.sub("", tokenizer.decode(out[0, prompt.shape[1]:], skip_special_tokens=True)).strip()
            exact[name] += written == target
            takes[name] += set(TAKE.findall(target)) <= set(TAKE.findall(written))
    record = {"command": "python -m bench.methods.rsipo.skill_writer_accuracy --policy " + args.policy, "date": time.strftime("%Y-%m-%d %H:%M"),
              "tasks": args.tasks, "exact": {k: v / args.tasks for k, v in exact.items()},
              "names_every_take": {k: v / args.tasks for k, v in takes.items()}}
    print(json.dumps(record))
    if args.entry:
        save_entry(Path(__file__).with_suffix(".json"), args.entry, record, sys.argv[1:])


if __name__ == "__main__":
    main()
