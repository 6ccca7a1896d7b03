"""End to end: the plain openai-client agent of ``examples/openai_agent_household.py`` on household.

1. The tokens the endpoint records for one of its episodes are the tokens coevo's own agent loop
   would train on for the same conversation: replaying the recorded replies through ``AgentLoop``
   (train's prompt settings) gives the same prompt ids turn by turn, and the same reply ids.
2. ``coevo-train agent=openai_client external.command=…`` trains through it: the trainer starts the
   endpoint and the example, every step's sessions come back rewarded, and the run finishes.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import pytest
import torch

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")

from coevo.core import registry  # noqa: E402
from coevo.core.agent.loop import AgentLoop, AgentSettings  # noqa: E402
from coevo.core.agent.prompt import PromptSettings  # noqa: E402
from coevo.core.cli import train  # noqa: E402
from coevo.core.cli.config_sources import compose_config  # noqa: E402
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model  # noqa: E402
from coevo.core.policy.tokenizer import train_bpe_tokenizer  # noqa: E402
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings  # noqa: E402
from coevo.core.rollout.hf_engine import HFEngine  # noqa: E402
from coevo.core.serve.background import BackgroundServer  # noqa: E402
from coevo.core.serve.settings import ServerSettings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "openai_agent_household.py"


def _example():
    spec = importlib.util.spec_from_file_location("openai_agent_household", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Replay(RolloutEngine):
    """Answers each generate call with the next recorded reply (the endpoint's tokens, as they were)."""

    def __init__(self, replies: list[tuple[list[int], list[float]]], eos: int):
        self.replies, self.eos = list(replies), eos

    def generate(self, prompts, settings):
        ids, lps = self.replies.pop(0)
        return [Generation(ids, lps, finished=bool(ids) and ids[-1] == self.eos)]

    def score(self, prompts, candidates):
        raise NotImplementedError


@pytest.mark.parametrize("show_admissible", [False, True])
def test_recorded_tokens_are_what_coevos_loop_trains_on(show_admissible):
    torch.manual_seed(0)
    env_cls = registry.envs.get("household")
    env = env_cls(env_cls.Config(max_steps=5))
    task = env.task("train", 3)
    env.reset(task)
    tokenizer = train_bpe_tokenizer([env.goal, env.memory() or "", "<action>go to fridge 1</action>"] * 4,
                                    vocab_size=300)
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer).eval()
    example = _example()
    example.SHOW_ADMISSIBLE = show_admissible  # (AGENT_SHOW_ADMISSIBLE=0 turns it off)
    with BackgroundServer(HFEngine(None, model, tokenizer), tokenizer, ServerSettings(port=0)) as server:
        client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=60)
        job = {"session_id": "ep", "task": dataclasses.asdict(task), "task_id": task.task_id,
               "env": {"name": "household", "max_steps": 5}}
        example.play_job(client, "coevo-policy", server.url, job)
        (session,) = server.store.take_rewarded()
    assert len(session.turns) == 5  # the untrained model never finishes the task
    settings = AgentSettings(mode="generate", prompt=PromptSettings(system_prompt="", first_observation="goal",
                                                                    goal_reminder=True, show_admissible=show_admissible),
                             sampling=SamplingSettings(max_new_tokens=example.MAX_TOKENS))
    loop = AgentLoop(Replay([(t.completion_ids, t.logprobs) for t in session.turns], tokenizer.eos_token_id),
                     tokenizer, settings)
    (episode,) = loop.run([task], [env_cls(env_cls.Config(max_steps=5))])
    assert [t.prompt_ids for t in episode.turns] == [t.prompt_ids for t in session.turns]
    assert [t.response_ids for t in episode.turns] == [t.completion_ids for t in session.turns]
    assert session.reward == pytest.approx(episode.reward)  # the harness scores as coevo's loop does


def test_train_through_the_endpoint(tmp_path):
    torch.set_num_threads(1)
    run_dir = tmp_path / "run"
    cfg = compose_config("train", [
        "algo=grpo", "env=household", "agent=openai_client", f"run_dir={run_dir}",
        f"external.command='{sys.executable} {EXAMPLE}'", "external.batch_timeout_s=300",
        f"warmstart.cache_dir={tmp_path / 'cache'}", "model.hidden_size=32", "model.num_layers=2",
        "model.num_heads=2", "model.num_kv_heads=1", "model.intermediate_size=64", "model.vocab_size=400",
        "warmstart.episodes=20", "warmstart.sft.epochs=1", "trainer.max_steps=2", "trainer.progress_bar=false",
        "algo.tasks_per_step=2", "algo.group_size=2", "eval.num_tasks=2", "eval.also_greedy=false",
        "eval.samples_per_task=1", "env.max_steps=4",
    ], repository=str(ROOT / "configs"))
    result = train.run(cfg)
    assert result["steps"] == 2
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["train/external/sessions"] for r in rows] == [4.0, 8.0]  # running totals: 2 tasks x 2 episodes a step
    assert rows[-1]["train/external/dropped"] == 0 and rows[-1]["train/budget/rollouts"] == 4
    assert "training is over" in (run_dir / "agent.log").read_text()  # the example ended with the run
    assert (run_dir / "policy" / "model.safetensors").is_file()
