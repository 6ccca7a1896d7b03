"""What a hostile or mistaken client gets: an OpenAI-style error body (``error.message``, ``type``,
``param``, ``code``) with status 400 (404 for an unknown model or route), never a traceback; the
server keeps serving."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")
import httpx  # noqa: E402
from running_endpoint import MODEL, start  # noqa: E402

MESSAGES = [{"role": "user", "content": "open box 1"}]


@pytest.fixture(scope="module")
def server(tiny_model, tokenizer):
    srv = start(tiny_model, tokenizer, max_request_bytes=4096, max_context_tokens=512)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0, timeout=60)


def _post(server, path: str, content: bytes | str) -> httpx.Response:
    return httpx.post(server.url + path, content=content, headers={"Content-Type": "application/json"}, timeout=30)


@pytest.mark.parametrize("body,param,fragment", [
    ({"model": MODEL}, "messages", "'messages' must be a non-empty list"),
    ({"model": MODEL, "messages": [{"role": "robot", "content": "x"}]}, "messages[0]", "role"),
    ({"model": MODEL, "messages": MESSAGES, "temperature": 5}, "temperature", "between 0.0 and 2.0"),
    ({"model": MODEL, "messages": MESSAGES, "n": 1000}, "n", "between 1 and 16"),
    ({"model": MODEL, "messages": MESSAGES, "max_tokens": 0}, "max_tokens", "between 1 and 4096"),
    ({"model": MODEL, "messages": MESSAGES, "max_tokens": "ten"}, "max_tokens", "must be an integer"),
    ({"model": MODEL, "messages": MESSAGES, "stop": ["a", "b", "c", "d", "e"]}, "stop", "at most 4"),
    ({"model": MODEL, "messages": MESSAGES, "top_logprobs": 3}, "top_logprobs", "not supported"),
    ({"model": MODEL, "messages": MESSAGES, "tools": [{}]}, "tools", "not supported"),
    ({"model": MODEL, "messages": MESSAGES, "user": "bad id with spaces"}, "user", "session id"),
    ({"messages": MESSAGES}, "model", "'model' is required"),
])
def test_malformed_chat_requests_get_400_naming_the_field(server, body, param, fragment):
    response = _post(server, "/chat/completions", json.dumps(body))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == param and fragment in error["message"] and error["type"] == "invalid_request_error"


@pytest.mark.parametrize("content,fragment", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "JSON object"),
    (b"\xff\xfe", "not valid JSON"),
    (json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "x" * 5000}]}), "max_request_bytes=4096"),
])
def test_unreadable_bodies_get_400(server, content, fragment):
    response = _post(server, "/chat/completions", content)
    assert response.status_code == 400 and fragment in response.json()["error"]["message"]


def test_context_limit_is_named(client):
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=500)
    error = caught.value.body
    assert error["code"] == "context_length_exceeded"
    assert "maximum context length is 512 tokens" in error["message"]
    with pytest.raises(openai.BadRequestError, match="maximum context length is 512"):
        client.completions.create(model=MODEL, prompt=[5] * 600, max_tokens=1)


def test_unknown_model_and_route_get_404(server, client):
    with pytest.raises(openai.NotFoundError, match="serves 'coevo-policy'"):
        client.chat.completions.create(model="gpt-4o", messages=MESSAGES)
    assert httpx.get(server.url + "/nothing").json()["error"]["code"] == "not_found"


def test_completion_prompt_checks(client, tokenizer):
    with pytest.raises(openai.BadRequestError, match="token ids must be in"):
        client.completions.create(model=MODEL, prompt=[len(tokenizer) + 5], max_tokens=1)
    with pytest.raises(openai.BadRequestError, match="several prompts"):
        client.completions.create(model=MODEL, prompt=["a", "b"], max_tokens=1)
    with pytest.raises(openai.BadRequestError, match="logprobs"):
        client.completions.create(model=MODEL, prompt="a", max_tokens=1, logprobs=3)


def test_still_serving_after_bad_requests(client):
    assert client.chat.completions.create(model=MODEL, messages=MESSAGES, max_tokens=3).usage.completion_tokens >= 1
