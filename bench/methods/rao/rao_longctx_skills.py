"""The two skills a longctx recursion tree depends on, measured on a policy before or after RL.

A longctx count tree is right only if every leaf counts the matching records of its chunk and
every parent adds its children's reported counts. This plays held-out tasks greedily with the
recursive agent at each size (the report's code path, ``evaluate_trees``) and scores every node:

- leaves: answer == the true count of their chunk range, with the (truth, answer) pairs seen most;
- parents: answer == the true count, and answer == the sum of their children's answers (adds),
  and how often the children's answers were right.

The policy is the warm start of the run's config (built or read from the cache), or ``--policy
<folder>`` (e.g. ``<run_dir>/policy``). Any ``coevo-train`` override follows ``--``:

    python -m bench.methods.rao.rao_longctx_skills --tasks 20 --sizes 1 2 4 8 -- warmstart.cache_dir=.cache/coevo/warmstart
"""

from __future__ import annotations

import argparse
import json
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
from coevo.rao.evaluation import evaluate_trees, scaled_env_factory
from coevo.rao.tree import Tree

CONFIGS = str(Path(__file__).resolve().parents[3] / "configs")


def node_skills(trees: list[Tree]) -> dict:
    """Leaf and parent scores of longctx count trees (see the module docstring)."""
    leaves, parents, pairs = Counter(), Counter(), Counter()
    for tree in trees:
        for node in tree.nodes:
            env = node.env
            truth, given = env.question.truth(env.document), env.answer_given
            if not node.children:
                leaves["n"] += 1
                leaves["right"] += given == truth
                pairs[f"{truth}->{given}"] += 1
                continue
            answers = [tree.nodes[c].env.answer_given for c in node.children]
            parents["n"] += 1
            parents["right"] += given == truth
            if all(a is not None and a.isdigit() for a in answers):
                parents["adds"] += given == str(sum(int(a) for a in answers))
            parents["children_right"] += all(tree.nodes[c].won for c in node.children)
    return {"leaves": dict(leaves), "parents": dict(parents), "leaf_truth_to_answer": dict(pairs.most_common(8))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=20, help="held-out tasks per size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8], help="num_chunks of each row")
    parser.add_argument("--policy", default="", help="a policy folder; default: the config's warm start")
    parser.add_argument("overrides", nargs="*", help="coevo-train overrides (after --)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = compose_config("train", ["algo=rao", *args.overrides], repository=CONFIGS)
    settings = validate(cfg, TrainSchema, "train")
    algo_cls, algo = build_component(registry.algorithms, cfg.algo, "algo")
    _, env_cfg, make_env = env_factory(cfg.env)
    if make_env().name != "longctx":
        raise SystemExit("bench/methods/rao/rao_longctx_skills.py: env must be longctx (its count questions)")
    engine_cls, engine_cfg = engine_component(cfg.get("rollout"))
    if args.policy:
        model, tokenizer = load_pretrained(Path(args.policy))
    else:
        model, tokenizer = train.build_policy(settings, cfg, make_env, env_cfg, train.expert_source(algo_cls, algo))
    engine = engine_cls(engine_cfg, model, tokenizer)
    for size in args.sizes:
        sized = scaled_env_factory(make_env, "num_chunks", size)
        stats, trees = evaluate_trees(engine, tokenizer, settings.agent, algo.recursion, sized,
                                      "eval_in_distribution", args.tasks, algo.report.batch_size)
        print(json.dumps({"num_chunks": size, "success": stats["success"], "nodes": stats["tree/nodes"],
                          **node_skills(trees)}), flush=True)


if __name__ == "__main__":
    main()
