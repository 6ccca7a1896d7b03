"""Training through the endpoint without coevo's agent loop: ``EndpointLoop`` hands a batch's episodes
to an agent outside (here a thread using only the ``openai`` client and HTTP), and what comes back is
exactly what the agent's requests generated: prompt ids, generated ids, log-probs, grouped by task,
with GRPO's agent-token mask on the generated tokens only. Missing rewards and wrong task ids are
dropped and counted; requests at another temperature than the trainer's are refused."""

from __future__ import annotations

import json
import threading
import urllib.request

import pytest

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")

from running_endpoint import MODEL  # noqa: E402

from coevo.core.agent.loop import summarize  # noqa: E402
from coevo.core.algos.grpo import turn_samples  # noqa: E402
from coevo.core.rollout.engine import SamplingSettings  # noqa: E402
from coevo.core.rollout.hf_engine import HFEngine  # noqa: E402
from coevo.core.serve.background import BackgroundServer  # noqa: E402
from coevo.core.serve.external_loop import EndpointLoop  # noqa: E402
from coevo.core.serve.rewards import post_reward  # noqa: E402
from coevo.core.serve.settings import ServerSettings  # noqa: E402
from coevo.core.serve.task_board import TaskBoard  # noqa: E402
from coevo.core.testing.boxes_env import BoxesEnv  # noqa: E402


def _job(url: str) -> dict | None:
    with urllib.request.urlopen(f"{url}/tasks/next?wait=5", timeout=30) as response:  # noqa: S310
        return json.loads(response.read()) if response.status == 200 else None


class Agent(threading.Thread):
    """Takes ``count`` jobs and plays each as 2 chat turns (the second re-sends the first answer);
    posts reward = the task index + 0.5 * (its episode number in the batch) and (that number mod 2) invalid
    replies; remembers what it got."""

    def __init__(self, url: str, count: int, skip_reward: str = "", wrong_task: str = ""):
        super().__init__(daemon=True)
        self.url, self.count, self.skip_reward, self.wrong_task = url, count, skip_reward, wrong_task
        self.got: dict[str, list[tuple[list[int], list[int], list[float]]]] = {}
        self.rewards: dict[str, float] = {}
        self.error = None

    def run(self) -> None:
        try:
            client = openai.OpenAI(base_url=self.url, api_key="unused", max_retries=0, timeout=60)
            done = 0
            while done < self.count:
                job = _job(self.url)
                if job is None:
                    continue
                done += 1
                sid = job["session_id"]
                messages = [{"role": "user", "content": f"Your task is to: {job['task']['index']}."}]
                self.got[sid] = []
                for _ in range(2):
                    reply = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=6,
                                                           logprobs=True, user=sid)
                    trace = reply.model_extra["coevo"]
                    self.got[sid].append((trace["prompt_token_ids"], trace["completion_token_ids"][0],
                                          [t.logprob for t in reply.choices[0].logprobs.content]))
                    messages += [{"role": "assistant", "content": reply.choices[0].message.content},
                                 {"role": "user", "content": "Nothing happens."}]
                if sid == self.skip_reward:
                    continue
                reward = job["task"]["index"] + 0.5 * int(sid.rsplit("e", 1)[1])
                self.rewards[sid] = reward
                post_reward(self.url, sid, reward, task_id="boxes/x/0" if sid == self.wrong_task else job["task_id"],
                            invalid=int(sid.rsplit("e", 1)[1]) % 2)
        except Exception as exc:  # noqa: BLE001
            self.error = exc


@pytest.fixture
def endpoint(tiny_model, tokenizer):
    board = TaskBoard()
    server = BackgroundServer(HFEngine(None, tiny_model, tokenizer), tokenizer,
                              ServerSettings(host="127.0.0.1", port=0, reward_timeout_s=1.0), board=board,
                              fixed_sampling=SamplingSettings(temperature=1.0, top_p=1.0)).start()
    loop = EndpointLoop(server, board, {"name": "boxes"}, batch_timeout_s=60, version=lambda: 3)
    yield server, loop
    loop.close()
    server.stop()


def _tasks(k: int, group: int):
    env = BoxesEnv()
    tasks = [env.task("train", i) for i in range(k)]
    return [t for t in tasks for _ in range(group)], [i for i in range(k) for _ in range(group)], env


def test_sessions_become_the_episodes_grpo_trains_on(endpoint):
    server, loop = endpoint
    tasks, groups, env = _tasks(2, 2)
    agent = Agent(server.url, 4)
    agent.start()
    episodes = loop.run(tasks, [env] * 4, groups)
    agent.join(30)
    assert agent.error is None
    assert [ep.group_id for ep in episodes] == [0, 0, 1, 1] and [ep.task for ep in episodes] == tasks
    assert [ep.reward for ep in episodes] == [0.0, 0.5, 2.0, 2.5]  # what the agent posted: index + 0.5 * episode
    assert [ep.num_invalid for ep in episodes] == [0, 1, 0, 1]  # the posted counts: the invalid rate is 2 of 8 turns
    assert summarize(episodes)["invalid_rate"] == pytest.approx(2 / 8)
    for ep, sid in zip(episodes, sorted(agent.got)):
        assert [(t.prompt_ids, t.response_ids, t.response_logprobs) for t in ep.turns] == agent.got[sid]
    # GRPO's samples: the recorded tokens, loss on the generated ones only
    samples = turn_samples(episodes, [[1.0] * len(ep.turns) for ep in episodes])
    turns = [t for ep in episodes for t in ep.turns]
    assert len(samples) == len(turns) == 8
    for sample, turn in zip(samples, turns):
        assert sample.input_ids == turn.prompt_ids + turn.response_ids
        assert sample.agent_mask == [0] * len(turn.prompt_ids) + [1] * len(turn.response_ids)
        assert sample.rollout_logprobs == [0.0] * len(turn.prompt_ids) + turn.response_logprobs
    metrics = loop.metrics()
    assert metrics["external/sessions"] == 4 and metrics["external/dropped"] == 0
    assert metrics["external/stale_turns"] == 0  # every turn generated with this batch's version (3)


def test_missing_rewards_and_wrong_tasks_are_dropped_and_counted(endpoint):
    server, loop = endpoint
    tasks, groups, env = _tasks(2, 2)
    agent = Agent(server.url, 4, skip_reward="b1-v3-e1", wrong_task="b1-v3-e2")
    agent.start()
    episodes = loop.run(tasks, [env] * 4, groups)  # e1 times out after reward_timeout_s=1
    agent.join(30)
    assert [ep.group_id for ep in episodes] == [0, 1]
    metrics = loop.metrics()
    assert (metrics["external/dropped"], metrics["external/wrong_task"], metrics["external/timed_out"]) == (1, 1, 1)


def test_training_requests_sample_at_the_trainers_settings(endpoint):
    server, loop = endpoint
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=60)
    with pytest.raises(openai.BadRequestError, match="temperature=1, top_p=1"):
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}], temperature=0.5,
                                       user="s")
    with pytest.raises(openai.BadRequestError, match="trains on sessions"):
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}])


def test_the_worker_generates_only_while_a_batch_is_played(endpoint):
    """Outside ``run`` the trainer may be changing the weights: a request waits for the next batch."""
    server, loop = endpoint
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=60)
    answered = threading.Event()

    def ask():
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}], max_tokens=2,
                                       user="early")
        answered.set()

    threading.Thread(target=ask, daemon=True).start()
    assert not answered.wait(1.0)
    tasks, groups, env = _tasks(1, 2)
    agent = Agent(server.url, 2)
    agent.start()
    loop.run(tasks, [env] * 2, groups)
    assert answered.wait(10)
    assert server.store.get("early").turns[0].version == 3
