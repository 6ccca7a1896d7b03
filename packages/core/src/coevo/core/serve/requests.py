"""OpenAI request bodies, checked: every field a client sends is hostile input.

``parse_chat`` and ``parse_completion`` turn a decoded JSON body into a ``SamplingRequest`` (prompt
token ids, sampling settings, ``n``, stop strings, seed, log-probs wanted) or raise ``RequestError``,
which the app answers with an OpenAI-style error body (``{"error": {"message", "type", "param",
"code"}}``) and its HTTP status. Unknown fields are ignored, as OpenAI's server ignores the ones it
does not use; fields coevo cannot honour (``tools``, ``top_logprobs`` > 0, penalties ≠ 0, ``best_of``,
``logit_bias``) are refused by name rather than silently dropped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from coevo.core.rollout.engine import SamplingSettings
from coevo.core.serve.settings import ServerSettings

SESSION_ID = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
MAX_MESSAGES = 1024
ROLES = ("system", "user", "assistant", "developer")
UNSUPPORTED = ("tools", "functions", "tool_choice", "function_call", "logit_bias", "response_format", "suffix", "echo")
SEED_LIMIT = 2**63


class RequestError(Exception):
    """A refused request: the status, the message and the field it is about."""

    def __init__(self, message: str, param: str | None = None, status: int = 400,
                 code: str | None = None, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.message, self.param, self.status, self.code, self.kind = message, param, status, code, kind

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}}


@dataclass
class SamplingRequest:
    prompt_ids: list[int]
    sampling: SamplingSettings
    n: int = 1
    stop: list[str] = field(default_factory=list)
    seed: int | None = None
    logprobs: bool = False
    stream: bool = False
    include_usage: bool = False  # stream_options.include_usage: a last chunk with the token counts
    session_id: str | None = None
    messages: list[dict[str, str]] | None = None  # chat requests: the conversation as sent
    temperature_given: bool | None = None  # None when the request left temperature and top_p out


def _number(body: dict, key: str, default: float, low: float, high: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RequestError(f"'{key}' must be a number, got {type(value).__name__}", key)
    if not low <= value <= high:
        raise RequestError(f"'{key}' must be between {low} and {high}, got {value}", key)
    return float(value)


def _integer(body: dict, key: str, default: int | None, low: int, high: int) -> int | None:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"'{key}' must be an integer, got {type(value).__name__}", key)
    if not low <= value <= high:
        raise RequestError(f"'{key}' must be between {low} and {high}, got {value}", key)
    return value


def _flag(body: dict, key: str) -> bool:
    value = body.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RequestError(f"'{key}' must be true or false, got {type(value).__name__}", key)
    return value


def _stop(body: dict, settings: ServerSettings) -> list[str]:
    stop = body.get("stop")
    if stop is None:
        return []
    stops = [stop] if isinstance(stop, str) else stop
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
        raise RequestError("'stop' must be a non-empty string or a list of them", "stop")
    if len(stops) > settings.max_stop:
        raise RequestError(f"'stop' takes at most {settings.max_stop} strings, got {len(stops)}", "stop")
    if any(len(s) > 256 for s in stops):
        raise RequestError("each 'stop' string must be at most 256 characters", "stop")
    return stops


def session_of(body: dict, header: str | None) -> str | None:
    """The session id: the ``X-Session-Id`` header, else the ``user`` field; ``None`` when neither."""
    value = header if header is not None else body.get("user")
    if value is None:
        return None
    if not isinstance(value, str) or not SESSION_ID.match(value):
        raise RequestError("the session id (header X-Session-Id or field 'user') must be 1-128 characters "
                           "of letters, digits and ._:@-", "user")
    return value


def _common(body: dict, settings: ServerSettings, model_name: str) -> dict[str, Any]:
    """The fields chat and completion requests share, checked."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str):
        raise RequestError("'model' is required (a string)", "model")
    if model != model_name:
        raise RequestError(f"the model '{model[:128]}' does not exist; this server serves '{model_name}'",
                           "model", 404, "model_not_found")
    for key in UNSUPPORTED:
        if body.get(key) is not None:
            raise RequestError(f"'{key}' is not supported by this server", key)
    for key in ("presence_penalty", "frequency_penalty"):
        if _number(body, key, 0.0, -2.0, 2.0) != 0.0:
            raise RequestError(f"'{key}' is not supported (the trained-on log-probs are those of the plain "
                               f"sampling distribution); leave it at 0", key)
    if _integer(body, "best_of", 1, 1, 1) != 1:
        raise RequestError("'best_of' is not supported", "best_of")
    temperature = _number(body, "temperature", 1.0, 0.0, 2.0)
    top_p = _number(body, "top_p", 1.0, 0.0, 1.0)
    if top_p <= 0:
        raise RequestError("'top_p' must be greater than 0", "top_p")
    stream = _flag(body, "stream")
    options = body.get("stream_options")
    if options is not None and (not isinstance(options, dict) or not stream):
        raise RequestError("'stream_options' is an object and only allowed with stream=true", "stream_options")
    return {
        "temperature": temperature,
        "top_p": top_p,
        "n": _integer(body, "n", 1, 1, settings.max_n),
        "stop": _stop(body, settings),
        "seed": _integer(body, "seed", None, -SEED_LIMIT, SEED_LIMIT - 1),
        "stream": stream,
        "include_usage": bool(options and options.get("include_usage") is True),
        "given": True if body.get("temperature") is not None or body.get("top_p") is not None else None,
    }


def _max_tokens(body: dict, settings: ServerSettings, *keys: str) -> int:
    for key in keys:
        value = _integer(body, key, None, 1, settings.max_tokens_limit)
        if value is not None:
            return value
    return settings.default_max_tokens


def _messages(body: dict) -> list[dict[str, str]]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list", "messages")
    if len(messages) > MAX_MESSAGES:
        raise RequestError(f"'messages' holds at most {MAX_MESSAGES} messages", "messages")
    plain = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise RequestError(f"messages[{i}] must be an object with a role of {list(ROLES)}", f"messages[{i}]")
        content = message.get("content")
        if isinstance(content, list):  # content parts: text only
            if not all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
                       for p in content):
                raise RequestError(f"messages[{i}].content: only text parts are supported", f"messages[{i}]")
            content = "".join(p["text"] for p in content)
        if not isinstance(content, str):
            raise RequestError(f"messages[{i}].content must be a string", f"messages[{i}]")
        role = "system" if message["role"] == "developer" else message["role"]
        plain.append({"role": role, "content": content})
    return plain


def parse_chat(body: Any, settings: ServerSettings, model_name: str, tokenizer, session_header: str | None,
               context_limit: int) -> SamplingRequest:
    common = _common(body, settings, model_name)
    messages = _messages(body)
    if _integer(body, "top_logprobs", 0, 0, 20):
        raise RequestError("'top_logprobs' > 0 is not supported (the engine reports the sampled tokens' "
                           "log-probs only); ask logprobs=true", "top_logprobs")
    from coevo.core.policy.conversation import render_prompt

    try:
        prompt = render_prompt(tokenizer, messages)
    except Exception as exc:  # noqa: BLE001 - a template that refuses the conversation is the client's error
        raise RequestError(f"the chat template cannot render these messages: {str(exc)[:200]}", "messages") from None
    max_tokens = _max_tokens(body, settings, "max_completion_tokens", "max_tokens")
    check_context(len(prompt), max_tokens, context_limit, "messages")
    return _request(prompt, max_tokens, common, _flag(body, "logprobs"), session_of(body, session_header), messages)


def parse_completion(body: Any, settings: ServerSettings, model_name: str, tokenizer, session_header: str | None,
                     context_limit: int) -> SamplingRequest:
    common = _common(body, settings, model_name)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]  # one prompt in a list
    if isinstance(prompt, str):
        if len(prompt) > settings.max_request_bytes:
            raise RequestError("'prompt' is too long", "prompt")
        ids = list(tokenizer.encode(prompt, add_special_tokens=False))
    elif isinstance(prompt, list) and prompt and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
        vocab = len(tokenizer)
        if not all(0 <= t < vocab for t in prompt):
            raise RequestError(f"'prompt' token ids must be in [0, {vocab})", "prompt")
        ids = list(prompt)  # token in: trained on exactly as sent
    else:
        raise RequestError("'prompt' must be a string, a list of token ids, or a list holding one of them "
                           "(several prompts per request are not supported: send one request each)", "prompt")
    if not ids:
        raise RequestError("'prompt' is empty", "prompt")
    logprobs = _integer(body, "logprobs", None, 0, 5)
    if logprobs:
        raise RequestError("'logprobs' > 0 is not supported (no top alternatives are computed); ask "
                           "logprobs=0 for the sampled tokens' log-probs", "logprobs")
    max_tokens = _max_tokens(body, settings, "max_tokens")
    check_context(len(ids), max_tokens, context_limit, "prompt")
    return _request(ids, max_tokens, common, logprobs is not None, session_of(body, session_header), None)


def check_context(prompt_tokens: int, max_tokens: int, limit: int, param: str) -> None:
    """OpenAI's context-length error, naming the limit."""
    if prompt_tokens + max_tokens > limit:
        raise RequestError(
            f"This model's maximum context length is {limit} tokens. However, you requested "
            f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the {param}, {max_tokens} in the completion). "
            f"Please reduce the length of the {param} or the completion.",
            param, code="context_length_exceeded")


def _request(prompt, max_tokens, common, logprobs, session_id, messages) -> SamplingRequest:
    greedy = common["temperature"] == 0
    sampling = SamplingSettings(temperature=common["temperature"], top_p=1.0 if greedy else common["top_p"],
                                max_new_tokens=max_tokens)
    return SamplingRequest(prompt, sampling, common["n"], common["stop"], common["seed"], logprobs, common["stream"],
                           common["include_usage"], session_id, messages, common["given"])
