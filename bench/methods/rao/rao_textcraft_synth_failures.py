"""Where a textcraft_synth policy fails, turn by turn (issue 46: recipe lookups, counts, budget requests,
child reports), for the recursive agent and the flat one.

Plays the first ``--tasks`` tasks of ``env.band`` (medium: ``eval_in_distribution``) and ``env.ood_band``
(hard: ``eval_out_of_distribution``; ``-- env.ood_band=extreme`` for extreme) greedily, as RAO's report does (``evaluate_trees``), with a policy folder
(``--policy <run>/policy``, ``--flat-policy <run>/flat_policy``) or the config's warm start, and sorts
every agent turn into what it was and how it went:

- ``info ok`` / ``info error: <reason>`` (recipe lookups: an unknown item, a malformed list);
- ``craft ok`` / ``craft error: <reason>`` (counts: not a multiple of the yield, a wrong ingredient or
  count, missing or too little stock), ``finish`` (won or not), ``inventory``;
- ``launch`` (a sub-goal written; with ``in N steps``: a budget request) and ``refused: <reason>``
  (a malformed goal, a base item as a target, more steps than allowed);
- ``malformed`` (neither an action nor a launch), ``reply after a report`` (what the parent did next:
  a craft that used the child's result, another launch, or an error).

Item names and numbers in the reasons are replaced by ``ITEM`` and ``N``, so each reason is one row.

    python -m bench.methods.rao.rao_textcraft_synth_failures --policy runs/<run>/policy --flat-policy runs/<run>/flat_policy \\
        --tasks 10 -- warmstart.cache_dir=.cache/coevo/warmstart
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.cli import train
from coevo.core.cli.components import engine_component, env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import build_component, validate
from coevo.core.policy.builders import load_pretrained
from coevo.envs.textcraft_synth import TextCraftSynthEnv
from coevo.rao.evaluation import evaluate_trees
from coevo.rao.expert import flat_settings
from coevo.rao.tree import Tree

CONFIGS = str(Path(__file__).resolve().parents[3] / "configs")
ITEM = re.compile(r"\b[a-z]+\d+_i\d+(?:_[a-z]+)?\b")
NUMBER = re.compile(r"\b\d+\b")
SPLITS = ("eval_in_distribution", "eval_out_of_distribution")  # env.band (medium) and env.ood_band (hard)


class RecordingEnv(TextCraftSynthEnv):
    """``textcraft_synth`` that keeps the reason of every invalid step (``info["error"]``, which the agent's
    observation does not carry): the agent sees exactly what it saw in training."""

    def __init__(self, config=None):
        super().__init__(config)
        self.errors: list[str] = []

    def _start(self, task):
        self.errors = []
        return super()._start(task)

    def invalid(self, reason: str):
        self.errors.append(reason)
        return super().invalid(reason)


def _template(text: str) -> str:
    text = re.sub(r"^command \d+: ", "", text.strip())
    return NUMBER.sub("N", ITEM.sub("ITEM", text)).strip()[:90]


def _kind(reply: str) -> str:
    if "<delegate>" in reply:
        return "launch"
    body = re.search(r"<action>(.*?)</action>", reply, re.S)
    if body is None:
        return "malformed"
    first = body.group(1).strip().split(" ", 1)[0].lower()
    return first if first in ("info", "craft", "inventory", "finish") else "unknown command"


def turn_kinds(trees: list[Tree]) -> dict:
    """Every agent turn of ``trees`` counted by kind and outcome (see the module docstring)."""
    turns, launches, nodes = Counter(), Counter(), Counter()
    for tree in trees:
        for node in tree.nodes:
            nodes["root" if node.parent is None else "child"] += 1
            if node.parent is not None:
                nodes["child won" if node.episode.won else "child lost"] += 1
            after_report = False
            errors = list(getattr(node.env, "errors", []))
            for turn in node.episode.turns:
                kind = _kind(turn.response_text)
                obs = turn.observation or ""
                if kind == "launch":
                    launches["written"] += 1
                    goal = turn.response_text.split("<delegate>", 1)[-1].split("</delegate>", 1)[0]
                    launches["with a budget (in N steps)"] += bool(re.search(r" in \d+ steps?", goal))
                    launches["with a context"] += ":" in goal
                    for refusal in re.findall(r"Refused '[^']*': ([^\n]*)", obs):
                        launches[f"refused: {_template(refusal)}"] += 1
                    outcome = "launch"
                elif turn.invalid and turn.action is not None and errors:
                    outcome = f"{kind} error: {_template(errors.pop(0))}"
                elif turn.invalid:
                    outcome = kind if kind == "malformed" else f"{kind} (not parsed)"
                elif kind == "finish" or turn.action and turn.action.rstrip().endswith("finish"):
                    outcome = f"{kind} ok, " + ("won" if node.episode.won else "finished without the goal")
                else:
                    outcome = f"{kind} ok"
                turns[outcome] += 1
                if after_report:
                    turns[f"after a report: {outcome}"] += 1
                after_report = "Sub-agent" in obs
    return {"nodes": dict(nodes), "launches": dict(launches), "turns": dict(turns.most_common(25))}


def sorted_failures(tasks: int, policy: str = "", flat_policy: str = "", overrides: list[str] = (),
                    splits: tuple[str, ...] = SPLITS) -> dict:
    """Both agents played greedily on the first ``tasks`` tasks of each of ``splits``: success, nodes and every
    turn sorted by kind, keyed ``<agent>/<band>`` (policies: folders, or the config's warm start)."""
    cfg = compose_config("train", ["algo=rao", "env=textcraft_synth", *overrides], repository=CONFIGS)
    settings = validate(cfg, TrainSchema, "train")
    algo_cls, algo = build_component(registry.algorithms, cfg.algo, "algo")
    _, env_cfg, _ = env_factory(cfg.env)

    def make_env():
        return RecordingEnv(env_cfg)

    engine_cls, engine_cfg = engine_component(cfg.get("rollout"))
    if policy:
        model, tokenizer = load_pretrained(Path(policy))
    else:
        model, tokenizer = train.build_policy(settings, cfg, make_env, env_cfg, train.expert_source(algo_cls, algo))
    flat_model = load_pretrained(Path(flat_policy))[0] if flat_policy else model
    bands = dict(zip(SPLITS, (env_cfg.band, env_cfg.ood_band)))
    result = {}
    for agent, agent_policy, recursion in (("recursive", model, algo.recursion),
                                           ("flat", flat_model, flat_settings(algo.recursion))):
        engine = engine_cls(engine_cfg, agent_policy.eval(), tokenizer)
        for split in splits:
            stats, trees = evaluate_trees(engine, tokenizer, settings.agent, recursion, make_env, split,
                                          tasks, algo.report.batch_size)
            row = {"agent": agent, "band": bands[split], "success": stats["success"], "nodes": stats["tree/nodes"],
                   **turn_kinds(trees)}
            result[f"{agent}/{bands[split]}"] = row
            print(json.dumps(row), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=10, help="tasks per band")
    parser.add_argument("--policy", default="", help="the recursive agent's folder; default: the warm start")
    parser.add_argument("--flat-policy", default="", help="the flat agent's folder; default: --policy's")
    parser.add_argument("--out", default="", help="also write the result as JSON here")
    parser.add_argument("overrides", nargs="*", help="coevo-train overrides (after --)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    result = sorted_failures(args.tasks, args.policy, args.flat_policy, args.overrides)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
