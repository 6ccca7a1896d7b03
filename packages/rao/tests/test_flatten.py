"""Trees → training samples: one per turn of every node, prompt masked, the node's advantage."""

import pytest
import torch
from rao_script import PROMPT, ScriptDecider, oracle_text
from rao_sums_env import SumsConfig, SumsEnv

from coevo.core.algos.batching import Sample
from coevo.rao.flatten import kept_nodes, tree_samples
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import RecursionSettings


def _trees(tokenizer, n=2):
    envs = [SumsEnv(SumsConfig(length=8)) for _ in range(n)]
    runner = TreeRunner(PROMPT, RecursionSettings(), tokenizer)
    return runner.run([envs[0].task("train", i) for i in range(n)], envs, ScriptDecider(oracle_text, tokenizer))


def test_every_turn_of_every_node_is_a_sequence_with_agent_token_masks(tokenizer):
    trees = _trees(tokenizer)
    advantages = [[0.1 * (k + 1) + t for k in range(len(tree.nodes))] for t, tree in enumerate(trees)]
    samples = tree_samples(trees, advantages)
    turns = [(t, node, turn) for t, tree in enumerate(trees) for node in tree.nodes for turn in node.episode.turns]
    assert len(samples) == len(turns) == 2 * 10
    for sample, (t, node, turn) in zip(samples, turns):
        assert isinstance(sample, Sample)
        n = len(turn.prompt_ids)
        assert sample.input_ids == turn.prompt_ids + turn.response_ids
        assert sample.agent_mask == [0] * n + [1] * len(turn.response_ids)
        assert sample.input_ids[-1] == tokenizer.eos_token_id and sample.agent_mask[-1] == 1
        assert sample.advantage == pytest.approx(advantages[t][node.index])
    reports = [s for s in samples if "Sub-agent 1" in tokenizer.decode(s.input_ids)]
    assert len(reports) == 2 * 3  # the answer turn of the root and of both depth-1 parents, per tree
    for s in reports:  # the children's reports are prompt: never trained
        prompt_len = s.agent_mask.index(1)
        assert "Sub-agent 1" in tokenizer.decode(s.input_ids[:prompt_len])


def test_child_keep_samples_children_and_always_keeps_roots(tokenizer):
    trees = _trees(tokenizer, n=4)
    kept = kept_nodes(trees, 0.5, torch.Generator().manual_seed(0))
    assert {(t, 0) for t in range(4)} <= set(kept)
    children = [k for k in kept if k[1] != 0]
    assert 0 < len(children) < 4 * 6
    assert kept == kept_nodes(trees, 0.5, torch.Generator().manual_seed(0))  # seeded
