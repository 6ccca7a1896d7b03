"""A plain agent written against the ``openai`` client, trained by coevo through its endpoint.

The agent (``play``) knows nothing of coevo: it reads the household environment's text (the goal,
each observation and the memory line), keeps the last exchange as chat history, asks the model
for one reply per step with ``client.chat.completions.create`` and passes the reply to the
environment. Its prompts are laid out as coevo's own agent loop lays them out (the warm-started
model was trained on that layout): the task sentence first, then the last reply and observation,
with "Task: …" and "Memory: …" lines on the latest message.

The harness around it (``main``) is the environment's side: it takes jobs from the trainer's task
board (``$COEVO_TASKS_URL``), builds the household environment the job names, plays the episode with
the agent under the job's session id, and posts the episode's return as the session's reward.

Training (coevo-train starts this file beside the trainer, with ``OPENAI_BASE_URL`` set)::

    make train ALGO=grpo ARGS="agent=openai_client external.command='python examples/openai_agent_household.py'"
    # without the command list on each message (it must match coevo's agent.prompt.show_admissible,
    # which the warm start was trained with):
    make train ALGO=grpo ARGS="agent=openai_client agent.prompt.show_admissible=false \
        external.command='env AGENT_SHOW_ADMISSIBLE=0 python examples/openai_agent_household.py'"

Against an endpoint you started yourself: ``OPENAI_BASE_URL=http://127.0.0.1:8000/v1
COEVO_TASKS_URL=http://127.0.0.1:8000/v1/tasks/next python examples/openai_agent_household.py``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from openai import OpenAI

MAX_TOKENS = 64  # a reply's length limit (coevo-train's agent.sampling.max_new_tokens)
# list the admissible commands on the latest message, as agent=openai_client's warm start saw them
# (AGENT_SHOW_ADMISSIBLE=0 leaves them out: then train with agent.prompt.show_admissible=false)
SHOW_ADMISSIBLE = os.environ.get("AGENT_SHOW_ADMISSIBLE", "1") != "0"
INVALID_PENALTY = 0.1  # subtracted from the return per invalid reply (coevo's agent.invalid_penalty)


# -- the agent: the openai client and the environment's text, nothing else ----------------------
def _message(text: str, goal: str | None, memory: str | None, commands: list[str]) -> str:
    extra = ([f"Task: {goal}"] if goal else []) + ([f"Memory: {memory}"] if memory else [])
    if SHOW_ADMISSIBLE and commands:
        extra.append("Admissible: " + ", ".join(commands))
    return "\n".join([text, *extra])


def play(client: OpenAI, model: str, session_id: str, goal: str, memory: str | None, commands: list[str],
         step: Callable[[str, bool], tuple[str, str | None, list[str], bool]], max_turns: int) -> None:
    """One episode: ``step(reply, complete)`` applies a reply and returns the environment's answer:
    (observation, memory line, admissible commands, done)."""
    opening = f"Your task is to: {goal}."
    last: tuple[str, str] | None = None  # (my last reply, what the environment answered)
    for _ in range(max_turns):
        if last is None:
            messages = [{"role": "user", "content": _message(opening, None, memory, commands)}]
        else:
            messages = [{"role": "user", "content": opening}, {"role": "assistant", "content": last[0]},
                        {"role": "user", "content": _message(last[1], goal, memory, commands)}]
        answer = client.chat.completions.create(model=model, messages=messages, max_tokens=MAX_TOKENS,
                                                user=session_id)
        reply = answer.choices[0].message.content or ""
        observation, memory, commands, done = step(reply, answer.choices[0].finish_reason == "stop")
        if done:
            return
        last = (reply, observation)


# -- the harness: the environment's side (coevo's household environment) ------------------------
_env_lock = threading.Lock()


def environment_of(job: dict):
    """The environment the job names, with its settings, and its task."""
    from coevo.core import registry
    from coevo.core.config import build_component
    from coevo.core.env.protocol import Task

    with _env_lock:  # the registry discovers the installed environments on first use
        env_cls, config = build_component(registry.envs, dict(job["env"]), "env")
    return env_cls(config), Task(**job["task"])


def play_job(client: OpenAI, model: str, base_url: str, job: dict) -> dict:
    """Play ``job``'s task with the agent; post and return the reward."""
    env, task = environment_of(job)
    env.reset(task)
    score = {"reward": 0.0, "invalid": 0, "won": False}

    def step(reply: str, complete: bool):
        action = env.parse_action(reply) if complete else None
        if action is None:
            score["invalid"] += 1
            return env.invalid_observation, env.memory(), env.admissible_actions(), False
        result = env.step(action)
        score["reward"] += result.reward
        score["invalid"] += int(result.invalid)
        score["won"] = score["won"] or result.won
        return result.observation, env.memory(), env.admissible_actions(), result.done

    play(client, model, job["session_id"], env.goal, env.memory(), env.admissible_actions(), step, env.max_steps)
    reward = score["reward"] - INVALID_PENALTY * score["invalid"]
    _post(f"{base_url}/sessions/{job['session_id']}/reward",
          {"reward": reward, "task_id": job["task_id"], "won": score["won"], "invalid": score["invalid"]})
    return {"session_id": job["session_id"], "reward": reward, "won": score["won"]}


def _post(url: str, body: dict) -> None:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=60).read()  # noqa: S310 (the trainer's endpoint)


def _next_job(tasks_url: str) -> dict | None | bool:
    """A job; ``None`` when none came within the wait; ``False`` once training is over."""
    try:
        with urllib.request.urlopen(f"{tasks_url}?wait=10", timeout=30) as response:  # noqa: S310
            return json.loads(response.read()) if response.status == 200 else None
    except urllib.error.HTTPError as exc:
        if exc.code == 410:
            return False
        raise


def worker(client: OpenAI, model: str, base_url: str, tasks_url: str) -> None:
    while (job := _next_job(tasks_url)) is not False:
        if not job:
            continue
        try:
            play_job(client, model, base_url, job)
        except Exception as exc:  # noqa: BLE001 - one episode failed: its session times out, the others go on
            print(f"episode {job.get('session_id')} failed: {type(exc).__name__}: {exc}", file=sys.stderr)


def main() -> None:
    base_url = os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1").rstrip("/")
    tasks_url = os.environ.get("COEVO_TASKS_URL", f"{base_url}/tasks/next")
    model = os.environ.get("COEVO_MODEL", "coevo-policy")
    workers = int(os.environ.get("AGENT_WORKERS", "32"))  # episodes played at once (the engine batches them)
    client = OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "unused"), max_retries=2, timeout=600)
    with ThreadPoolExecutor(workers) as pool:
        for done in [pool.submit(worker, client, model, base_url, tasks_url) for _ in range(workers)]:
            done.result()
    print("training is over: the agent stops", file=sys.stderr)


if __name__ == "__main__":
    main()
