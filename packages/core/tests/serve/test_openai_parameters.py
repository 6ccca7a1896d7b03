"""The endpoint with the real ``openai`` client against a real server: every sampling parameter, and
token-exact traces (ids and log-probs equal to the engine called directly with the same seed)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")

from running_endpoint import MODEL, direct, start  # noqa: E402

from coevo.core.policy.conversation import render_prompt  # noqa: E402

MESSAGES = [{"role": "system", "content": "You are a box agent."}, {"role": "user", "content": "open box 1"}]


@pytest.fixture(scope="module")
def server(tiny_model, tokenizer):
    srv = start(tiny_model, tokenizer)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=60)


def test_models_lists_the_policy(client):
    assert [m.id for m in client.models.list().data] == [MODEL]


@pytest.mark.parametrize("n,temperature,top_p", [(1, 1.0, 1.0), (3, 0.7, 1.0), (2, 1.0, 0.9)])
def test_chat_trace_is_the_engine_call_with_the_same_seed(client, tiny_model, tokenizer, n, temperature, top_p):
    reply = client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=11, n=n, temperature=temperature,
                                           top_p=top_p, max_tokens=12, logprobs=True)
    trace = reply.model_extra["coevo"]
    prompt = render_prompt(tokenizer, MESSAGES)  # coevo's own agent loop renders prompts with it
    assert trace["prompt_token_ids"] == prompt
    expected = direct(tiny_model, tokenizer, prompt, 11, n, temperature, top_p, 12)
    assert len(reply.choices) == n
    for choice, ids, gen in zip(reply.choices, trace["completion_token_ids"], expected):
        assert ids == gen.token_ids  # ended by eos or max_tokens: nothing cut
        assert [t.logprob for t in choice.logprobs.content] == gen.logprobs  # exact floats through JSON
        eos = tokenizer.eos_token_id
        assert choice.message.content == tokenizer.decode([t for t in ids if t != eos])
        assert choice.finish_reason == ("stop" if gen.finished else "length")
    assert reply.usage.prompt_tokens == len(prompt)
    assert reply.usage.completion_tokens == sum(len(g.token_ids) for g in expected)


def test_same_seed_same_text_other_seeds_differ(client):
    def text(seed):
        return client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=seed, max_tokens=10
                                              ).choices[0].message.content

    assert text(5) == text(5)
    assert len({text(5), text(6), text(7)}) > 1  # 10 tokens from a 300-token vocabulary at T=1


def test_temperature_zero_is_greedy(client, tiny_model, tokenizer):
    reply = client.chat.completions.create(model=MODEL, messages=MESSAGES, temperature=0, max_tokens=8, seed=1)
    other = client.chat.completions.create(model=MODEL, messages=MESSAGES, temperature=0, max_tokens=8, seed=2)
    greedy = direct(tiny_model, tokenizer, render_prompt(tokenizer, MESSAGES), 0, temperature=0.0, max_tokens=8)[0]
    assert reply.model_extra["coevo"]["completion_token_ids"][0] == greedy.token_ids
    assert other.choices[0].message.content == reply.choices[0].message.content


def test_max_tokens_caps_the_completion(client, tiny_model, tokenizer):
    prompt = render_prompt(tokenizer, MESSAGES)
    seed = next(s for s in range(50) if not direct(tiny_model, tokenizer, prompt, s, max_tokens=5)[0].finished)
    reply = client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=seed, max_tokens=5)
    assert reply.usage.completion_tokens == 5
    assert reply.choices[0].finish_reason == "length"


def test_stop_string_cuts_text_and_tokens(client, tiny_model, tokenizer):
    prompt = render_prompt(tokenizer, MESSAGES)
    full = client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=3, max_tokens=30)
    text, ids = full.choices[0].message.content, full.model_extra["coevo"]["completion_token_ids"][0]
    stop = next(text[i:i + 2] for i in range(len(text) // 2, len(text) - 1) if "\ufffd" not in text[i:i + 2])
    cut = client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=3, max_tokens=30, stop=[stop, "\x00"])
    assert cut.choices[0].message.content == text[: text.index(stop)]
    assert cut.choices[0].finish_reason == "stop"
    cut_ids = cut.model_extra["coevo"]["completion_token_ids"][0]
    assert cut_ids == ids[: len(cut_ids)] and len(cut_ids) < len(ids)  # through the token that completed the stop
    assert stop in tokenizer.decode(cut_ids) and stop not in tokenizer.decode(cut_ids[:-1])
    lp = [t.logprob for t in client.chat.completions.create(
        model=MODEL, messages=MESSAGES, seed=3, max_tokens=30, stop=stop, logprobs=True).choices[0].logprobs.content]
    assert lp == direct(tiny_model, tokenizer, prompt, 3, max_tokens=30)[0].logprobs[: len(cut_ids)]


@pytest.mark.parametrize("n", [1, 2])
def test_chat_stream_equals_the_whole_answer(client, n):
    whole = client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=4, n=n, max_tokens=20, logprobs=True)
    texts, finish, logprobs = [""] * n, [None] * n, [[] for _ in range(n)]
    stream = client.chat.completions.create(model=MODEL, messages=MESSAGES, seed=4, n=n, max_tokens=20,
                                            logprobs=True, stream=True, stream_options={"include_usage": True})
    usage = None
    for chunk in stream:
        usage = chunk.usage or usage
        for c in chunk.choices:
            texts[c.index] += c.delta.content or ""
            finish[c.index] = c.finish_reason or finish[c.index]
            logprobs[c.index] += [t.logprob for t in (c.logprobs.content if c.logprobs else None) or []]
    assert texts == [c.message.content for c in whole.choices]
    assert finish == [c.finish_reason for c in whole.choices]
    assert logprobs == [[t.logprob for t in c.logprobs.content] for c in whole.choices]
    assert usage.completion_tokens == whole.usage.completion_tokens


def test_completions_token_in_token_out(client, tiny_model, tokenizer):
    prompt = tokenizer.encode("open box 2", add_special_tokens=False)
    reply = client.completions.create(model=MODEL, prompt=prompt, seed=8, max_tokens=10, logprobs=0, n=2)
    expected = direct(tiny_model, tokenizer, prompt, 8, n=2, max_tokens=10)
    assert reply.model_extra["coevo"]["prompt_token_ids"] == prompt
    for choice, gen in zip(reply.choices, expected):
        assert choice.logprobs.token_logprobs == gen.logprobs
        assert choice.text == tokenizer.decode([t for t in gen.token_ids if t != tokenizer.eos_token_id])
    text = client.completions.create(model=MODEL, prompt="open box 2", seed=8, max_tokens=10, n=2)
    assert [c.text for c in text.choices] == [c.text for c in reply.choices]  # a text prompt: the same ids


def test_completions_stream(client):
    whole = client.completions.create(model=MODEL, prompt="open box 2", seed=9, max_tokens=15, stop=["e"])
    streamed = "".join(c.choices[0].text for c in client.completions.create(
        model=MODEL, prompt="open box 2", seed=9, max_tokens=15, stop=["e"], stream=True) if c.choices)
    assert streamed == whole.choices[0].text
