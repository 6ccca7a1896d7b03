"""Session traces through a real server: what is recorded per turn, rewards, timeouts, rewritten
histories, clients that go away mid-stream, and concurrent sessions."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")
import httpx  # noqa: E402
from running_endpoint import MODEL, direct, start  # noqa: E402

from coevo.core.serve.rewards import post_reward  # noqa: E402


@pytest.fixture
def server(tiny_model, tokenizer):
    srv = start(tiny_model, tokenizer)
    yield srv
    srv.stop()


def _client(server, session: str | None = None):
    headers = {"X-Session-Id": session} if session else None
    return openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=60, default_headers=headers)


def test_turns_record_prompt_ids_completion_logprobs_version(server, tiny_model, tokenizer):
    client = _client(server)
    prompt = tokenizer.encode("open box 1", add_special_tokens=False)
    first = client.completions.create(model=MODEL, prompt=prompt, seed=1, max_tokens=6, user="ep-1", logprobs=0)
    ids1 = first.model_extra["coevo"]["completion_token_ids"][0]
    server.worker.version = 7  # the trainer's next weights
    prompt2 = prompt + ids1 + tokenizer.encode(" look", add_special_tokens=False)  # append-only history
    client.completions.create(model=MODEL, prompt=prompt2, seed=2, max_tokens=6, user="ep-1")
    session = server.store.get("ep-1")
    assert [t.prompt_ids for t in session.turns] == [prompt, prompt2]
    assert [t.version for t in session.turns] == [0, 7]
    assert [t.seed for t in session.turns] == [1, 2]
    for turn, (p, seed) in zip(session.turns, [(prompt, 1), (prompt2, 2)]):
        gen = direct(tiny_model, tokenizer, p, seed, max_tokens=6)[0]
        assert (turn.completion_ids, turn.logprobs) == (gen.token_ids, gen.logprobs)
    assert all(t.extends for t in session.turns) and server.store.counts["rewritten_turns"] == 0
    (segment,) = session.segments()  # one sequence, loss exactly on the two generated spans
    assert segment["input_ids"] == prompt2 + session.turns[1].completion_ids
    n1, n2 = len(ids1), len(session.turns[1].completion_ids)
    tail = len(prompt2) - len(prompt) - n1
    assert segment["agent_mask"] == [0] * len(prompt) + [1] * n1 + [0] * tail + [1] * n2
    assert segment["logprobs"] == [0.0] * len(prompt) + first.choices[0].logprobs.token_logprobs + [0.0] * tail \
        + session.turns[1].logprobs


def test_rewritten_history_is_split_and_counted(server, tokenizer):
    """A chat template that re-renders history: the second prompt does not start with the first
    prompt + completion, so the session splits there (two samples) and the turn is counted."""
    client = _client(server, "ep-rewrite")
    messages = [{"role": "user", "content": "open box 1"}]
    reply = client.chat.completions.create(model=MODEL, messages=messages, seed=3, max_tokens=5)
    rewritten = [{"role": "user", "content": "Summary: box 1 is open."},  # the agent rewrote its history
                 {"role": "assistant", "content": reply.choices[0].message.content},
                 {"role": "user", "content": "now close it"}]
    client.chat.completions.create(model=MODEL, messages=rewritten, seed=4, max_tokens=5)
    session = server.store.get("ep-rewrite")
    assert [t.extends for t in session.turns] == [True, False]
    assert server.store.stats()["rewritten_turns"] == 1
    segments = session.segments()
    assert [s["input_ids"] for s in segments] == [t.prompt_ids + t.completion_ids for t in session.turns]
    assert [sum(s["agent_mask"]) for s in segments] == [len(t.completion_ids) for t in session.turns]


def test_reward_closes_the_session(server):
    client = _client(server)
    client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=3, user="r-1")
    # an invalid count above the session's turns is refused, and the session stays open for a right one
    too_many = httpx.post(f"{server.url}/sessions/r-1/reward", json={"reward": 1.5, "invalid": 2})
    assert too_many.status_code == 400 and too_many.json()["error"]["param"] == "invalid"
    assert "more than the session's 1 turns" in too_many.json()["error"]["message"]
    assert post_reward(server.url, "r-1", 1.5, task_id="task-9", won=True, invalid=1) == {
        "session_id": "r-1", "reward": 1.5, "turns": 1}
    with pytest.raises(openai.ConflictError, match="already has its reward"):  # no turn after the reward
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=3,
                                       user="r-1")
    second = httpx.post(f"{server.url}/sessions/r-1/reward", json={"reward": 0.0})
    assert second.status_code == 409
    assert httpx.post(f"{server.url}/sessions/nobody/reward", json={"reward": 1}).status_code == 404
    assert httpx.post(f"{server.url}/sessions/x/reward", json={"reward": "1"}).json()["error"]["param"] == "reward"
    assert httpx.post(f"{server.url}/sessions/x/reward", content=b'{"reward": NaN}').status_code == 400
    for bad in (-1, 1.5, True, "2"):  # a count: a whole number, 0 or more
        answer = httpx.post(f"{server.url}/sessions/x/reward", json={"reward": 1, "invalid": bad})
        assert (answer.status_code, answer.json()["error"]["param"]) == (400, "invalid"), bad
    (taken,) = server.store.take_rewarded()
    assert (taken.session_id, taken.reward, taken.task_id, taken.won, taken.invalid) == ("r-1", 1.5, "task-9", True, 1)
    assert server.store.take_rewarded() == []


def test_sessions_without_reward_time_out(tiny_model, tokenizer):
    srv = start(tiny_model, tokenizer, reward_timeout_s=0.5)
    try:
        client = _client(srv)
        for sid in ("late-1", "late-2"):
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}], max_tokens=2,
                                           user=sid)
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}], max_tokens=2)  # none
        time.sleep(2.0)  # the sweeper drops them (no request needed)
        stats = httpx.get(srv.url + "/sessions").json()
        assert (stats["timed_out"], stats["open"], stats["turns"]) == (2, 0, 2)
        assert httpx.post(f"{srv.url}/sessions/late-1/reward", json={"reward": 1}).status_code == 404
        assert srv.store.take_rewarded() == []
    finally:
        srv.stop()


def test_client_leaving_mid_stream_records_nothing(server, tiny_model, tokenizer):
    """The client reads the first token and closes the connection while the engine is still
    generating a long answer: the generation is aborted, nothing is recorded, it is counted."""
    messages = [{"role": "user", "content": "open box 1"}]
    from coevo.core.policy.conversation import render_prompt

    prompt = render_prompt(tokenizer, messages)
    long = direct(tiny_model, tokenizer, prompt, 0, temperature=0.0, max_tokens=800)[0]
    assert not long.finished  # greedy, the untrained model never ends this answer: 800 tokens to generate
    body = {"model": MODEL, "messages": messages, "temperature": 0, "max_tokens": 800, "stream": True, "user": "gone"}
    started = time.perf_counter()
    with httpx.Client(timeout=30) as http, http.stream("POST", server.url + "/chat/completions", json=body) as r:
        for line in r.iter_lines():
            if '"content"' in line and '"content": ""' not in line:
                break  # the first token's text: go away
    deadline = time.monotonic() + 10
    while server.store.stats()["disconnected"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.store.stats()["disconnected"] == 1
    assert server.store.get("gone") is None and server.store.stats()["turns"] == 0
    client = _client(server)  # the engine is free again at once (the aborted generation did not run on)
    t0 = time.perf_counter()
    client.chat.completions.create(model=MODEL, messages=messages, max_tokens=2, user="after")
    assert time.perf_counter() - t0 < 5 and server.store.stats()["turns"] == 1
    assert server.worker.aborted == 1  # the generation stopped early, not after its 800 tokens
    assert not tiny_model.training and time.perf_counter() - started < 30


def test_concurrent_sessions_do_not_mix(server, tiny_model, tokenizer):
    """8 clients, each its own session of 3 append-only turns, all at once: every session holds
    exactly its own prompts and the tokens its client received, each equal to the engine's
    direct call with that turn's seed."""
    sent: dict[str, list[tuple[list[int], list[int], int]]] = {}
    errors = []

    def play(k: int) -> None:
        try:
            client = _client(server, f"c-{k}")
            prompt = tokenizer.encode(f"open box {k}", add_special_tokens=False)
            sent[f"c-{k}"] = []
            for turn in range(3):
                seed = 100 * k + turn
                reply = client.completions.create(model=MODEL, prompt=prompt, seed=seed, max_tokens=4 + k % 3)
                ids = reply.model_extra["coevo"]["completion_token_ids"][0]
                sent[f"c-{k}"].append((list(prompt), ids, seed))
                prompt = prompt + ids + tokenizer.encode(f" look {k}", add_special_tokens=False)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    for sid, turns in sent.items():
        session = server.store.get(sid)
        assert [(t.prompt_ids, t.completion_ids, t.seed) for t in session.turns] == turns
        assert all(t.extends for t in session.turns)
        for t in session.turns:
            gen = direct(tiny_model, tokenizer, t.prompt_ids, t.seed, max_tokens=len(t.completion_ids))[0]
            assert t.completion_ids == gen.token_ids[: len(t.completion_ids)]
            assert t.logprobs == gen.logprobs[: len(t.completion_ids)]
    assert server.store.stats()["turns"] == 24


def test_requests_without_a_session_are_not_recorded(server):
    _client(server).chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}], max_tokens=2)
    assert server.store.stats()["turns"] == 0


def test_requests_without_seed_share_engine_calls_without_mixing(server, tiny_model, tokenizer):
    """16 clients at once, no seed: the worker batches them (``batch_rows`` > 1), and every recorded
    completion is its own prompt's: its log-probs are what the model gives those tokens after that
    prompt (scored alone; equal up to float rounding of the padded batch)."""
    from coevo.core.rollout.hf_engine import HFEngine

    prompts = {f"b-{k}": tokenizer.encode(f"open box {k}" + " look" * k, add_special_tokens=False) for k in range(16)}
    barrier = threading.Barrier(16)

    def ask(sid: str) -> None:
        client = _client(server, sid)
        barrier.wait()
        client.completions.create(model=MODEL, prompt=prompts[sid], max_tokens=3 + len(sid) % 4)

    threads = [threading.Thread(target=ask, args=(sid,)) for sid in prompts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    turns = {sid: server.store.get(sid).turns[0] for sid in prompts}
    assert max(t.batch_rows for t in turns.values()) > 1
    scores = HFEngine(None, tiny_model, tokenizer).score(
        [prompts[sid] for sid in prompts], [[turns[sid].completion_ids] for sid in prompts])
    for sid, score in zip(prompts, scores):
        assert turns[sid].prompt_ids == prompts[sid]
        assert len(turns[sid].completion_ids) <= 3 + len(sid) % 4  # each cut at its own max_tokens
        assert score[0] == pytest.approx(turns[sid].logprobs, abs=1e-4)
