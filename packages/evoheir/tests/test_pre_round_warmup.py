"""The pre-round warm-up's reference-reading examples: Recovery's repair-teacher prompt, answered as the reference is."""

import torch

from coevo.core.agent.loop import AgentSettings
from coevo.core.testing.gloo import tiny_model_and_tokenizer
from coevo.envs.math.answers import answers_match, extract_boxed
from coevo.evoheir.config import ScoutSettings
from coevo.evoheir.math_env import MathEnv
from coevo.evoheir.pre_round_warmup import pre_round_warm_up, reference_reading_examples
from coevo.evoheir.recovery import repair_question


def test_reference_examples_show_the_repair_teachers_prompt_and_reach_the_answer():
    env = MathEnv(MathEnv.Config(problem_types=["addition", "one_step_equation"]))
    examples = reference_reading_examples(env, AgentSettings(), 6, 5_000_600)
    assert len(examples) == 6  # one turn per problem: a math episode is one reply
    for i, conversation in enumerate(examples):
        problem = env.problem(env.task("train", 5_000_600 + i))
        question, reply = conversation[-2]["content"], conversation[-1]["content"]
        assert conversation[-1]["role"] == "assistant" and reply == env.expert_reply(problem.answer)
        # the teacher reads exactly what Recovery shows it: the question, then a reference reaching the label
        assert repair_question(problem.text, reply) in question
        assert answers_match(problem.answer, extract_boxed(reply))
    kinds = {env.problem(env.task("train", 5_000_600 + i)).problem_type for i in range(6)}
    assert kinds == {"addition", "one_step_equation"}


def test_no_reference_examples_is_an_empty_list():
    env = MathEnv(MathEnv.Config(problem_types=["addition"]))
    assert reference_reading_examples(env, AgentSettings(), 0, 5_000_000) == []


def _warmed(seed: int) -> dict:
    """The tiny model (boxes tokenizer: math text still encodes) after a small warm-up shuffled with ``seed``."""
    model, tokenizer = tiny_model_and_tokenizer()
    env = MathEnv(MathEnv.Config(problem_types=["addition"]))
    settings = ScoutSettings(warmup_examples=8, warmup_epochs=2)
    stats = pre_round_warm_up(model, tokenizer, AgentSettings(), env, settings, seed, reference_examples=4)
    assert stats["examples"] == 8 + 8 + 4  # Scout replies, as many solver answers, reference-reading ones
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def test_the_warm_up_order_is_its_seeds_alone():
    # EvoHeir passes algo.scout.warmup_seed, not the run's seed: every run seed starts round 1 from one root
    torch.manual_seed(0)
    first, again, other = _warmed(0), _warmed(0), _warmed(1)
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)
