"""``algo.commit.metric=greedy`` (the default): screening, confirmation and the audit play each item once with argmax
decoding, the answer the held-out accuracy counts.

Greedy play is a function of the weights and the item alone (no seed moves it), so a per-item
difference new − old is in {−1, 0, 1}, and items are drawn independently: the certified bar's
assumptions (independent paired differences in [−1, 1], σ = 1) hold as they do for sampled scoring.
"""

import pytest
import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.rollout.engine import SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig
from coevo.core.testing.gloo import tiny_model_and_tokenizer
from coevo.evoheir.config import CommitSettings, EvoHeirConfig, ScreenSettings
from coevo.evoheir.math_env import MathEnv
from coevo.evoheir.paired import item_success, play_items
from coevo.evoheir.threshold import certified_threshold, decision_delta

TRIALS = 20_000


@pytest.fixture(scope="module")
def loop():
    """A random tiny model sampling at temperature 1 (its replies vary a lot from seed to seed)."""
    torch.manual_seed(0)
    model, tokenizer = tiny_model_and_tokenizer()
    model.eval()
    settings = AgentSettings(sampling=SamplingSettings(temperature=1.0, top_p=1.0, max_new_tokens=8))
    return AgentLoop(HFEngine(HFEngineConfig(), model, tokenizer), tokenizer, settings)


def _replies(loop, seed, greedy, n=6):
    env = MathEnv(MathEnv.Config(problem_types=["addition", "one_step_equation"]))
    tasks = [env.task("train", 3_000_000 + i) for i in range(n)]
    envs = [MathEnv(env.config) for _ in tasks]
    return [[turn.response_ids for turn in ep.turns] for ep in play_items(loop, envs, tasks, 1, seed, greedy=greedy)]


def test_greedy_play_ignores_the_seed_and_sampled_play_does_not(loop):
    assert _replies(loop, 1, greedy=True) == _replies(loop, 2, greedy=True)
    assert _replies(loop, 1, greedy=False) != _replies(loop, 2, greedy=False)
    assert _replies(loop, 1, greedy=False) == _replies(loop, 1, greedy=False)  # sampled: seeded


def test_greedy_play_refuses_several_samples(loop):
    env = MathEnv()
    with pytest.raises(ValueError, match="greedy scoring plays each item once, got samples=2"):
        item_success(loop, [env, MathEnv()], [env.task("train", 0)], 2, 0, greedy=True)


def test_greedy_scoring_with_several_samples_is_refused_naming_every_key():
    with pytest.raises(ValueError) as error:
        EvoHeirConfig(screen=ScreenSettings(samples=2), commit=CommitSettings(samples=2))  # metric: greedy
    message = str(error.value)
    assert "algo.screen.samples=2, algo.commit.samples=2" in message
    assert "set algo.screen.samples=1 algo.commit.samples=1, or algo.commit.metric=sampled" in message
    EvoHeirConfig()  # greedy with one answer per item: the defaults
    EvoHeirConfig(screen=ScreenSettings(samples=2), commit=CommitSettings(metric="sampled", samples=2))
    with pytest.raises(ValueError, match="choose"):
        EvoHeirConfig(commit=CommitSettings(metric="beam"))


@pytest.mark.parametrize("t", [1, 3])
@pytest.mark.parametrize("agreement", [0.0, 0.8])
def test_a_harmful_update_passes_the_certified_bar_at_most_delta_t_of_the_time_under_greedy_scoring(t, agreement):
    """Each fresh item: the root's greedy answer is right with probability q (spread over the items);
    the proposal keeps the root's verdict with probability ``agreement`` and otherwise is right with
    probability q again, so its expected accuracy equals the root's (true gain 0, the hardest harmful
    case). At agreement 0 the two verdicts are independent coin flips: the largest variance."""
    generator = torch.Generator().manual_seed(10 * t + int(agreement * 10))
    m, delta = 64, 0.1
    tau = certified_threshold(1.0, delta, t, m)  # t=1: 0.306; t=3: 0.392
    q = 0.1 + 0.8 * torch.rand(TRIALS, m, generator=generator)  # [trials, m]
    old = (torch.rand(TRIALS, m, generator=generator) < q).float()  # [trials, m] root right/wrong
    redrawn = (torch.rand(TRIALS, m, generator=generator) < q).float()
    keep = torch.rand(TRIALS, m, generator=generator) < agreement
    new = torch.where(keep, old, redrawn)  # [trials, m] proposal right/wrong, same expected accuracy
    v = (new - old).mean(-1)  # [trials]
    assert set((new - old).unique().tolist()) <= {-1.0, 0.0, 1.0}
    assert v.mean().abs().item() < 0.003  # true gain 0 (standard error ~0.0006 over 20,000 trials)
    assert (v > tau).float().mean().item() <= decision_delta(delta, t)
